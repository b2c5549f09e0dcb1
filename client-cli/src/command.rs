//! Words a player may type during a game that are not moves.

/// Moves listed by `last`.
pub const LAST_SHOWN: usize = 10;

/// An in-game command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// How to type moves, and these commands.
    Help,
    /// Give up the game: the seat loses at once.
    Resign,
    /// End the match without a result, before one's own first move.
    Abort,
    /// Leave, keeping the seat to resume later.
    Quit,
    /// The last moves.
    Last,
}

impl Command {
    /// The command a line names, if it names one.
    pub fn read(line: &str) -> Option<Command> {
        match line.trim().to_lowercase().as_str() {
            "help" | "h" => Some(Command::Help),
            "resign" => Some(Command::Resign),
            "abort" | "/abort" => Some(Command::Abort),
            "quit" | "exit" => Some(Command::Quit),
            "last" => Some(Command::Last),
            _ => None,
        }
    }
}

/// What the commands do, for `help`.
pub fn help() -> String {
    format!(
        "In a game, type `help` for how to move and these commands, `last` for the last \
         {LAST_SHOWN} moves, `resign` to give the game up (you lose), `/abort` to end it without a \
         result before your first move (not in a tournament or the ladder), or `quit` to leave and \
         keep your seat to come back later.\nCtrl-C asks whether to resign or to leave the seat."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_read_whatever_their_case_and_moves_are_not_commands() {
        assert_eq!(Command::read(" Help "), Some(Command::Help));
        assert_eq!(Command::read("QUIT"), Some(Command::Quit));
        assert_eq!(Command::read("resign"), Some(Command::Resign));
        assert_eq!(Command::read("last"), Some(Command::Last));
        assert_eq!(Command::read("/abort"), Some(Command::Abort));
        assert_eq!(Command::read("Abort"), Some(Command::Abort));
        assert_eq!(Command::read("a 3"), None);
        assert_eq!(Command::read("5h kd"), None);
    }
}
