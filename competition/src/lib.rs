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
//!   deals, tie-breaks and standings, all derived from an event's entrants,
//!   its results and its committed seed.
//!
//! Three kinds of player appear, each named for where it stands: a
//! [`MatchEntrant`] (a rated match's player, whom the ledger rates), a
//! [`tournament::Entrant`] (an event's player) and a
//! [`ladder::LadderEntrant`] (a ladder's bot). Likewise the ledger's fold
//! arrives at a [`RatingTable`], while [`tournament::Standing`] is one line
//! of an event's standings.

pub mod correction;
pub mod glicko2;
pub mod ladder;
pub mod ledger;
pub mod tournament;

pub use glicko2::{GameResult, Glicko2, Rating};
pub use ledger::{LedgerError, LedgerLine, LedgerPlayer, MatchEntrant, Placing, RatingTable};
