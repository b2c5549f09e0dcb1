//! Finding opponents: seeks paired into matches.
//!
//! - [`pairing`]: the pure function that pairs waiting seeks (seeks in,
//!   groups out), with the rating window that widens while a seek waits.

pub mod pairing;

pub use pairing::{pair, rating_window, Seek, Seeker};
