//! Players following players: an account keeps a list of the players it
//! follows, and sees which of them are online now and which games they
//! are playing (to watch them, or to challenge them). Following is one
//! way and private: the followed player is not told, and nothing about
//! the follower is shown to anyone.
//!
//! - [`store`]: the `follows` table (follow within
//!   [`MAX_FOLLOWS_PER_ACCOUNT`], unfollow, list).

pub mod store;

pub use store::{FollowEntry, FollowError, Follows};

/// The most players one account may follow: far more than a player keeps
/// up with, while a bound keeps one account's rows, and the presence
/// read of its list, small.
pub const MAX_FOLLOWS_PER_ACCOUNT: usize = 500;
