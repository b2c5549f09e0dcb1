//! What is happening in a Cribbage hand: discarding, the play, or the end.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What is happening now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Players are throwing cards to the crib.
    Discard,
    /// The play: players lay cards in turn.
    Play,
    /// The game is over.
    Over,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Discard => "discard",
            Phase::Play => "play",
            Phase::Over => "end of the game",
        })
    }
}
