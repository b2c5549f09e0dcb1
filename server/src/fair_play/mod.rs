//! Bounds on gaming the ratings, counted from what the store keeps and
//! the same on every node and both databases:
//!
//! - [`pairs`]: rated results between the same two accounts count at most
//!   [`RATED_PAIR_CAP`] in any [`RATED_PAIR_WINDOW_MS`], whatever the
//!   route (seek, challenge, rematch): past it a rated challenge or
//!   rematch between them is refused and seeks do not pair them rated, so
//!   two puppets cannot farm a third's rating. (The ladder keeps its own
//!   cap, `ladder/`; tournaments pair whom their rules pair.)
//! - [`cooldown`]: an account whose silence (or whose `abort`) aborted 3 rated matches in a
//!   day may not make or accept rated seeks or challenges for an hour,
//!   doubling each time.
//! - [`review`]: engine agreement counted after every rated match of a
//!   human account, and the moderators' view of improbable agreement and
//!   early results farmed between the same accounts
//!   (`GET /api/mod/fairplay`).
//!
//! Callers turn a bound into their own refusal; this module only counts.

pub mod cooldown;
pub mod pairs;
pub mod review;

pub use cooldown::{cooling_down, record_abort};

pub use pairs::{capped_opponents, pair_capped, RATED_PAIR_CAP, RATED_PAIR_WINDOW_MS};
