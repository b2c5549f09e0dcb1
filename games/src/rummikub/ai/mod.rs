//! Rummikub's bots, search and analysis tools, apart from its rules:
//! they read the rules, and the rules never read them.

pub mod analysis;
pub mod bound;
pub(super) mod outcomes;
pub mod predict;
pub(super) mod strategy;
