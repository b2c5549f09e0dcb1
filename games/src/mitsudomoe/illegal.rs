//! Why a turn is refused: one variant per rule broken, checked in the
//! order of the turn (ring step, ball step, relocations).

use serde::Serialize;

use super::color::Color;
use super::square::Square;
use crate::game::Seat;

/// Why a Mitsudomoe move is refused. On the wire: `{"reason": "...", ...}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Illegal {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// It is the other seat's turn.
    #[error("it is not {seat}'s turn")]
    NotYourTurn {
        /// The seat that tried to move.
        seat: Seat,
    },
    /// A ring was to be placed, but the mover has none left in supply.
    #[error("you have no ring left in supply: move one of your exposed rings instead")]
    NoRingInSupply,
    /// The ring step lifts from a square whose top is not the mover's ring.
    #[error("the top of {square} is not one of your rings")]
    NotYourRing {
        /// The square named.
        square: Square,
    },
    /// The ring step lifts a ring with a ball on it.
    #[error("your ring on {square} is not exposed: a ball sits on it")]
    RingUnderBall {
        /// The square named.
        square: Square,
    },
    /// The ring step puts the ring back where it was.
    #[error("the ring must move to another square than {square}")]
    RingNotMoved {
        /// The square named.
        square: Square,
    },
    /// The ring step's destination holds a ball.
    #[error("a ring cannot go onto {square}: a ball is there")]
    RingOntoBall {
        /// The square named.
        square: Square,
    },
    /// The ball step starts where the mover has no ball.
    #[error("there is no ball of yours on {square}")]
    NotYourBall {
        /// The square named.
        square: Square,
    },
    /// The ball step moves a ball that has reached a goal space.
    #[error("your ball on {square} has reached a goal space and never moves again")]
    BallOnGoal {
        /// The square named.
        square: Square,
    },
    /// The ball step is neither to an adjacent square nor along a line.
    #[error("{from} to {to} is neither a step to an adjacent square nor a vault along a line")]
    NotAStepOrVault {
        /// The ball's square.
        from: Square,
        /// Where it was to land.
        to: Square,
    },
    /// The ball's destination already holds a ball.
    #[error("the ball cannot land on {square}: a ball is there")]
    LandingHasBall {
        /// The square named.
        square: Square,
    },
    /// The ball's destination is not topped by one of the mover's rings.
    #[error("the ball cannot land on {square}: its top is not one of your rings")]
    NotOnYourRing {
        /// The square named.
        square: Square,
    },
    /// A vault passes a square without a ball: only consecutive balls are jumped.
    #[error("no vault over {square}: it holds no ball, and a vault jumps only consecutive balls")]
    VaultGap {
        /// The first square between without a ball.
        square: Square,
    },
    /// A vault would jump an opponent's ball resting on one of its own goals.
    #[error("the ball on {square} has reached its goal and cannot be jumped")]
    GoalBallJumped {
        /// The square named.
        square: Square,
    },
    /// A jumped opponent ball has no free ring of its colour to go to,
    /// so the vault is impossible.
    #[error(
        "no vault over {square}: that ball would have no free {color} ring to be relocated to"
    )]
    NowhereToRelocate {
        /// The jumped ball's square.
        square: Square,
        /// Its colour.
        color: Color,
    },
    /// A jumped opponent ball is not relocated.
    #[error("the jumped ball on {square} must be relocated")]
    MissingRelocation {
        /// The jumped ball's square.
        square: Square,
    },
    /// A relocation names a square that is not a jumped opponent ball.
    #[error("{square} is not an opponent ball this vault jumps, so it cannot be relocated")]
    NotJumped {
        /// The square named.
        square: Square,
    },
    /// A jumped ball is relocated twice.
    #[error("the ball jumped on {square} is relocated twice")]
    RelocatedTwice {
        /// The square named.
        square: Square,
    },
    /// A relocation's destination holds a ball at that point of the list.
    #[error("the ball from {from} cannot go to {to}: a ball is there at that point (relocations happen in the order listed)")]
    RelocationOccupied {
        /// The relocated ball's square.
        from: Square,
        /// Its destination.
        to: Square,
    },
    /// A relocation's destination is not topped by a ring of the ball's colour.
    #[error("the ball from {from} cannot go to {to}: its top is not a {color} ring")]
    RelocationNotOnRing {
        /// The relocated ball's square.
        from: Square,
        /// Its destination.
        to: Square,
        /// The ball's colour.
        color: Color,
    },
}
