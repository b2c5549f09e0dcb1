//! Players blocking players. If A blocks B, in both directions: neither
//! challenges the other (`challenge/blocked`; B is told only that A does
//! not accept its challenges, A that it blocks B), seeks and the ladder
//! never pair them, and no rematch between them is made. Chat, when it
//! exists, asks [`Blocks::either_blocks`] before a message passes.
//!
//! - [`store`]: the `blocks` table: block (within
//!   [`MAX_BLOCKS_PER_ACCOUNT`]), unblock, list, and the questions the
//!   rest of the server asks (does either block the other; which pairs
//!   among these players are kept apart).
//! - [`pairs`]: the pairs kept apart, as a pairing round reads them once.

pub mod pairs;
pub mod store;

pub use pairs::BlockedPairs;
pub use store::{BlockError, Blocked, Blocks};

/// The most accounts one account may block: far more than anyone meets
/// trouble with (a player blocks a handful), while a bound keeps one
/// account's rows, and each pairing round's read of them, small.
pub const MAX_BLOCKS_PER_ACCOUNT: usize = 500;

/// The most players one read of blocks among seekers names at once: the
/// statement's placeholders stay well inside both databases' limits.
pub const BLOCKS_READ_CHUNK: usize = 500;
