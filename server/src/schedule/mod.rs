//! What tournaments and the ladder share, so that neither imports the
//! other: both are scheduled work that every node ticks, each row of
//! theirs (an event, a game's ladder) stepped only by the node holding
//! its lease, and both answer their requests with one kind of refusal.
//!
//! - [`lease`]: a table with a lease per row ([`LeasedTable`]).
//! - [`ticker`]: the tick every node runs under those leases
//!   ([`LeasedTicker`]), releasing them when the server stops.
//! - [`error`]: the refusal of a tournament or ladder request
//!   ([`EventError`]).
//! - [`ending`]: how one of their finished games ended ([`game_end`]).

pub mod ending;
pub mod error;
pub mod lease;
pub mod ticker;

pub use ending::{game_end, read_game_end};
pub use error::{EventError, EventRefusal};
pub use lease::LeasedTable;
pub use ticker::{LeasedTicker, Leases, Tick, LOCAL_NODE};
