//! Why a Cribbage move is refused: one variant per rule broken, checked
//! in the order [`Cribbage`](super::Cribbage)'s rules check them (the game,
//! the seat, the phase, then the cards).

use serde::Serialize;

use super::card::Card;
use super::phase::Phase;
use crate::game::Seat;

/// Why a move is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Illegal {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// The seat is not at this table.
    #[error("{seat} is not at this table of {seats}")]
    NoSuchSeat {
        /// The seat that tried to move.
        seat: Seat,
        /// Seats at the table.
        seats: u8,
    },
    /// Cards can be thrown to the crib only before the play.
    #[error("it is not time to discard: it is the {phase}")]
    NotDiscarding {
        /// The phase now.
        phase: Phase,
    },
    /// Cards can be laid only during the play.
    #[error("it is not time to play a card: it is the {phase}")]
    NotPlaying {
        /// The phase now.
        phase: Phase,
    },
    /// This seat has already thrown to the crib this hand.
    #[error("{seat} has already discarded this hand")]
    AlreadyDiscarded {
        /// The seat.
        seat: Seat,
    },
    /// The wrong number of cards thrown.
    #[error("discard exactly {expected} card(s), not {got}")]
    DiscardCount {
        /// Cards each player throws.
        expected: usize,
        /// Cards in the move.
        got: usize,
    },
    /// A card named twice in one discard.
    #[error("{card} is named twice")]
    DuplicateCard {
        /// The card.
        card: Card,
    },
    /// The seat does not hold this card (or has laid it already).
    #[error("you do not hold {card}")]
    NotHeld {
        /// The card.
        card: Card,
    },
    /// Another seat lays next.
    #[error("it is not {seat}'s turn to play, but {next}'s")]
    NotYourTurn {
        /// The seat that tried to play.
        seat: Seat,
        /// The seat to play.
        next: Seat,
    },
    /// The card would take the count past 31.
    #[error("{card} would take the count from {count} past 31")]
    OverThirtyOne {
        /// The card.
        card: Card,
        /// The count now.
        count: u8,
    },
}
