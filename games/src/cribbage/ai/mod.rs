//! Cribbage's bots, search and analysis tools, apart from its rules:
//! they read the rules, and the rules never read them.

pub mod agreement;
pub mod analysis;
pub(super) mod strategy;
