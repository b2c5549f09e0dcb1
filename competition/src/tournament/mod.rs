//! Tournaments: pairings, deals and standings as pure functions of the
//! event's entrants, its results so far and its seed, so that anyone who
//! has the published event and its revealed seed re-derives every round.
//!
//! - [`event_seed`]: the committed seed and every draw made from it (lots
//!   that order equals, and each game's deal).
//! - [`rating_order`]: the seeding, players by rating with equals by lot,
//!   which the formats fall back on.
//! - [`round_robin()`], [`swiss()`], [`arena()`]: the three formats'
//!   pairing rules, each documented in its module.
//! - [`round`]: a round's boards and the games they are played as (one
//!   game, or a duplicate set of deals played from both seats).
//! - [`event`]: an event's rules, its next round, and the check that a
//!   published history follows from them and the seed.
//! - [`standings()`]: points, tie-breaks and the order, per [`Format`].
//!
//! Events pair players head to head: every game has two seats.

pub mod arena;
pub mod event;
pub mod event_seed;
pub mod format;
pub mod rating_order;
pub mod record;
pub mod round;
pub mod round_robin;
pub mod seats;
pub mod standings;
pub mod swiss;

pub use arena::{arena, ArenaPairing};
pub use event::{check_rounds, Disagreement, EventRules};
pub use event_seed::{EventSeed, SeedError};
pub use format::Format;
pub use record::{Entrant, GameRecord, RoundRecord, SEATS, UNRATED_SEEDING};
pub use round::{PlannedGame, Play, Round, DUPLICATE_DEALS};
pub use round_robin::{round_robin, rounds_per_cycle};
pub use standings::{points, standings, Standing};
pub use swiss::swiss;
