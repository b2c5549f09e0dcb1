//! `parlor analyze GAME TOOL` and its short form `parlor GAME TOOL`: a
//! game's analysis tools, JSON in and out, no server needed.

use clap::Parser;
use parlor_cli::analysis::{self, ToolArgs};
use parlor_games::GameKind;

/// `parlor GAME TOOL [ARGS]` parsed after the game's name.
#[derive(Debug, Parser)]
struct GameTool {
    #[command(flatten)]
    tool: ToolArgs,
}

/// Runs `parlor GAME TOOL [ARGS]`, where `words` starts with the game.
pub fn run_words(words: &[String]) -> Result<(), String> {
    let (name, rest) = words
        .split_first()
        .ok_or_else(|| "name a game or a command".to_owned())?;
    let game: GameKind = name.parse().map_err(|e| {
        format!("{e}; the commands are play, bot, rooms, watch, replay, verify and analyze")
    })?;
    let argv = std::iter::once(format!("parlor {game}")).chain(rest.iter().cloned());
    match GameTool::try_parse_from(argv) {
        Ok(t) => run(game, &t.tool),
        // Help and usage go to the terminal as clap would print them.
        Err(e) => e.exit(),
    }
}

/// Runs one of `game`'s analysis tools on stdin (or its arguments).
pub fn run(game: GameKind, a: &ToolArgs) -> Result<(), String> {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdin());
    let input = analysis::input(game, a, std::io::stdin().lock(), terminal)?;
    let mut out = std::io::stdout().lock();
    analysis::run(game, &a.tool, &input, &mut out)
}
