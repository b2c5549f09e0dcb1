//! `parlor GAME TOOL ...`: analysis without a server, JSON in and out.

use std::io::{Read, Write};

use parlor_games::{AnalysisError, ArgsInput, Budget, GameKind};
use serde_json::Value;

use crate::progress::Progress;

/// The analysis subcommands' arguments: a tool and its words, which the
/// game reads (flags such as `--start 5D` included).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ToolArgs {
    // The tool; its help lists every game's tools.
    #[arg(help = crate::help::tool())]
    pub tool: String,
    /// The input as words (e.g. `best-move 5 9`, `score 5H 5S 5C JD
    /// --start 5D`), flags included; without cards or numbers the input
    /// is JSON on standard input, and flags given set fields over it.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// The tool's JSON input: from its words, or read from `stdin` when the
/// game says the words are not the whole input. When that input would
/// come from a terminal (`stdin_is_terminal`), nobody is piping anything
/// in: rather than wait silently for JSON typed by hand, say how to give
/// the input.
pub fn input(
    game: GameKind,
    a: &ToolArgs,
    stdin: impl Read,
    stdin_is_terminal: bool,
) -> Result<Value, String> {
    match game.tool_args(&a.tool, &a.args)? {
        ArgsInput::Complete(v) => Ok(v),
        ArgsInput::Stdin(_) if stdin_is_terminal => Err(usage(game, &a.tool)),
        ArgsInput::Stdin(fields) => {
            let read: Value = serde_json::from_reader(stdin)
                .map_err(|e| format!("{game} {}: the input is not valid JSON: {e}", a.tool))?;
            ArgsInput::over_stdin(fields, read).map_err(|e| format!("{game} {}: {e}", a.tool))
        }
    }
}

/// What to type when a tool's input was not given.
pub fn usage(game: GameKind, tool: &str) -> String {
    format!(
        "{game} {tool} needs its input, as words or as JSON on standard input, and none was \
         given.\nUsage: parlor {game} {tool} [WORDS]... or parlor {game} {tool} < input.json \
         (e.g. echo '{{...}}' | parlor {game} {tool}).\nThe tools and their words: parlor \
         {game} --help, and docs/protocol/analysis.md for the JSON."
    )
}

/// Runs the tool, printing each result as one line of JSON; a spinner on
/// standard error shows it is working when it takes more than a second.
pub fn run(game: GameKind, tool: &str, input: &Value, out: &mut impl Write) -> Result<(), String> {
    let mut io_error = None;
    let progress = Progress::start(format!("{game} {tool}: working"));
    let res = game.analyze(tool, input, Budget::UNLIMITED, &mut |doc| {
        progress.result();
        match writeln!(out, "{doc}") {
            Ok(()) => true,
            Err(e) => {
                io_error = Some(e);
                false
            }
        }
    });
    progress.finish();
    if let Some(e) = io_error {
        // A closed pipe (e.g. `| head`) is a normal way to stop reading.
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Ok(());
        }
        return Err(format!("cannot write the results: {e}"));
    }
    match res {
        Ok(()) | Err(AnalysisError::Stopped(_)) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}
