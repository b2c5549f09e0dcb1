//! A Cribbage room's options: the points to win.

use serde::{Deserialize, Serialize};

/// The usual game, once round a standard board.
pub const DEFAULT_TARGET: u16 = 121;

/// The targets a room may choose: the full game, or the short game once
/// round the board (both standard; any other target changes the balance
/// between pegging and the show the game is known for).
pub const TARGETS: [u16; 2] = [61, 121];

/// Room options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Points to win: 121 (default) or 61.
    #[serde(default = "default_target")]
    pub target: u16,
}

fn default_target() -> u16 {
    DEFAULT_TARGET
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target: DEFAULT_TARGET,
        }
    }
}
