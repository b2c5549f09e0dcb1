//! Help texts that list what the games offer. They are built from
//! [`GameKind`] so that the names of games, bots and tools are written
//! once, in the games, and a new bot or tool shows up here by itself.

use parlor_games::GameKind;

/// Each game with its items from `list`: `nimrod: a, b; rummikub: c`.
fn by_game(list: impl Fn(GameKind) -> &'static [&'static str]) -> String {
    GameKind::ALL
        .iter()
        .map(|&g| format!("{g}: {}", list(g).join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The hosted games, comma-separated.
pub fn games() -> String {
    let names: Vec<&str> = GameKind::ALL.iter().map(|g| g.name()).collect();
    names.join(", ")
}

/// Every game's built-in bots, the default first.
pub fn bots() -> String {
    by_game(GameKind::strategies)
}

/// Every game's analysis tools.
pub fn tools() -> String {
    by_game(GameKind::tools)
}

/// `parlor play GAME`.
pub fn play_game() -> String {
    format!("The game: {}", games())
}

/// `parlor play --vs`.
pub fn play_vs() -> String {
    format!(
        "Bot strategy for the other seats of a new room; `none` waits for people to join. \
         Default: the game's first bot ({})",
        bots()
    )
}

/// `parlor bot --strategy`.
pub fn bot_strategy() -> String {
    format!("The bot's strategy (default: the game's first; {})", bots())
}

/// The analysis commands named after each game, for `parlor --help`.
pub fn game_commands() -> String {
    let lines: Vec<String> = GameKind::ALL
        .iter()
        .map(|&g| format!("  parlor {g} TOOL [ARGS]   tools: {}", g.tools().join(", ")))
        .collect();
    format!(
        "Analysis, JSON in and out (input as words, or JSON on stdin):\n{}",
        lines.join("\n")
    )
}

/// The tool of an analysis subcommand.
pub fn tool() -> String {
    format!("The tool ({})", tools())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_bot_and_tool_is_listed_in_order() {
        let (bots, tools) = (bots(), tools());
        for &g in GameKind::ALL {
            assert!(games().contains(g.name()));
            let listed = format!("{g}: {}", g.strategies().join(", "));
            assert!(bots.contains(&listed), "{bots}");
            assert!(play_vs().contains(&listed));
            assert!(bot_strategy().contains(&listed));
            let listed = format!("{g}: {}", g.tools().join(", "));
            assert!(tools.contains(&listed), "{tools}");
            assert!(tool().contains(&listed));
        }
    }
}
