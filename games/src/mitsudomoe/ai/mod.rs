//! Mitsudomoe's bots, search and analysis tools, apart from its rules:
//! they read the rules, and the rules never read them.

pub mod agreement;
pub mod analysis;
pub mod eval;
pub mod perft;
pub mod search;
pub mod strategy;
