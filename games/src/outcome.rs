//! How a finished game ended: its own module, so that what reads an
//! outcome (the places a match ends in, ratings) needs nothing of the game
//! contract.

use serde::{Deserialize, Serialize};

use crate::seat::SeatSet;

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Outcome {
    /// These seats won (several for a partnership); every other seat lost.
    Win {
        /// The winning seats.
        winners: SeatSet,
    },
    /// Nobody won.
    Draw,
}
