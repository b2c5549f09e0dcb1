//! Pure functions of competitive play, with no I/O: the server applies
//! them and the `parlor` CLI re-derives them from public data, so a rating
//! on Parlor is a fact anyone can recompute.
//!
//! - [`glicko2`]: one Glicko-2 rating period as Glickman's "Example of the
//!   Glicko-2 system" defines it, plus the idle-time growth of the
//!   rating deviation and Parlor's bounds on it.
//! - [`ledger`]: the public ratings ledger's lines, their canonical form
//!   and hash chain, and the fold that re-derives every rating from them.
//! - [`ladder`]: the continuous bot ladder's choice of who plays whom now.
//! - [`tournament`]: round-robin, Swiss and arena pairings, duplicate
//!   deals and standings, all derived from an event's committed seed.

pub mod glicko2;
pub mod ladder;
pub mod ledger;
pub mod tournament;

pub use glicko2::{Glicko2, Rating, Result as GameResult};
pub use ledger::{LedgerError, LedgerLine, LedgerPlayer, Standing};
