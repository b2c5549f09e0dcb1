//! Cribbage for two, three or four players (four in partnerships).
//!
//! - [`card`]: cards, the deck, the JSON and compact (`5H`, `TD`) notations.
//! - [`score`]: what a hand is worth in the show ([`hand_value`]), with an
//!   itemised [`Breakdown`] for people.
//! - [`advice`]: which cards to keep: the seed's [`select_hand`] and the
//!   crib-aware [`advise`].
//! - [`pegging`]: the play, with its running count to 31.
//! - [`Cribbage`]: the hosted game (its rules in `game/`: the hand's
//!   course, the check of a move, what each viewer sees), with its
//!   [`Config`], [`Move`], [`Phase`], [`Illegal`] and [`View`] each in its
//!   own file; [`events`]: every point as an event.
//! - bots: [`Expert`] (`expert`), [`SeedPlayer`] (`seed`), [`RandomMove`]
//!   (`random`), each choosing from a seat's [`View`] alone.
//! - [`analysis`](ai::analysis): the `score` and `discard` tools.

pub mod advice;
pub mod ai;
pub mod card;
mod config;
pub mod events;
mod game;
mod illegal;
mod moves;
pub mod pegging;
mod phase;
pub mod score;
mod view;

pub use advice::{
    advise, crib_expectation, rated_keeps, select_hand, Advice, DealError, RatedKeep, Role,
    Selection,
};
pub use ai::strategy::{Expert, RandomMove, SeedPlayer, EXPERT_SAMPLES, LOOKAHEAD_PLIES};
pub use card::{Card, CardSet, ParseCardError, Rank, Suit};
pub use config::{Config, DEFAULT_TARGET, TARGETS};
pub use events::{Event, Reason, Stage};
pub use game::Cribbage;
pub use illegal::Illegal;
pub use moves::Move;
pub use pegging::{Laid, PegReason, PegScore, Pegging, MAX_COUNT};
pub use phase::Phase;
pub use score::{
    breakdown, crib_value, distribution, hand_value, value, Breakdown, HandKind, Item, ItemKind,
};
pub use view::{HandRecord, Shown, View};
