//! Rummikub's bots, search and analysis tools, apart from its rules:
//! they read the rules, and the rules never read them.

pub mod agreement;
pub mod analysis;
pub(super) mod board;
pub mod bound;
pub(super) mod hidden;
pub(super) mod outcomes;
pub mod playout;
pub mod predict;
pub mod review;
pub mod sampler;
pub(super) mod strategy;
