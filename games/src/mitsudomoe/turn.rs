//! A move: one whole turn, the ring step then the ball step, with where
//! each jumped opponent ball goes.

use serde::{Deserialize, Serialize};

use super::relocation::Relocations;
use super::square::Square;

/// The compulsory first step: a ring of the mover's colour placed from
/// supply (`from` is `null`) or moved from the top of a stack where it
/// lies exposed. `{"from": "B3", "to": "C3"}` or `{"from": null, "to": "C3"}`
/// (`from` may be left out for a placement).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RingStep {
    /// Where the ring is lifted from; `None`: from the supply.
    #[serde(default)]
    pub from: Option<Square>,
    /// Where it goes.
    pub to: Square,
}

/// The compulsory second step: one of the mover's balls steps to an
/// adjacent square or vaults along a line. `{"from": "A4", "to": "C4"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BallStep {
    /// The ball's square.
    pub from: Square,
    /// Where it lands.
    pub to: Square,
}

/// One whole turn, as it travels on the wire:
///
/// ```json
/// {"ring": {"from": null, "to": "B4"}, "ball": {"from": "B5", "to": "B3"},
///  "relocate": [{"from": "B4", "to": "D3"}]}
/// ```
///
/// `relocate` lists where each jumped opponent ball goes, carried out in
/// the order given (empty, or left out, when no opponent ball is
/// jumped). In notation: `+B4 B5-B3 xB4-D3` (see
/// [`notation`](super::notation)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    /// The ring step.
    pub ring: RingStep,
    /// The ball step.
    pub ball: BallStep,
    /// The jumped opponent balls' new squares, in the order they move.
    #[serde(default)]
    pub relocate: Relocations,
}
