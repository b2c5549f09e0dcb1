//! Fair-play review: engine agreement counted per rated match and human
//! account, and the moderators' view of who agrees improbably often, or
//! farms results early against the same few opponents. A signal for a
//! person to look at, never an automatic action.
//!
//! - [`recorder`]: after a rated match ends, its agreement per human seat
//!   (the games' own engines, replayed from the log off the room's path).
//! - [`store`]: the counts beside the log, one row per match and account.
//! - [`stats`]: the test against the pool's human population.
//! - [`boosting`]: the booster signal, from the ledger and the logs.
//! - [`view`]: the moderators' answer for a pool.

pub mod boosting;
pub mod recorder;
pub mod stats;
pub mod store;
pub mod view;

pub use recorder::after_rated_end;
pub use stats::{binomial_tail, ALPHA, DEFAULT_MIN_CHOICES, P0_CEILING, P0_FLOOR};
pub use view::{review, Review};
