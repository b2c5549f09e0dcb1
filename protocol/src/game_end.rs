//! How a scheduled game (a tournament's or the ladder's) ended, beside
//! its result, so that a loss on time or a forfeit reads as one rather
//! than as a bare "0-1".

use serde::{Deserialize, Serialize};

/// How a game ended. A closed set: a client that meets a value it does
/// not know shows the result alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// Played out: the game's rules gave the result.
    Rules,
    /// A player resigned (or left the match, which resigns it).
    Resigned,
    /// A player's clock ran out with no default move to play for it.
    Time,
    /// Never played: a player had left the event when it was paired.
    Forfeit,
}
