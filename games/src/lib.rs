//! Pure rules of the games Parlor hosts.
//!
//! Nothing here does I/O, reads a clock or touches a global RNG: every chance
//! event draws from a [`GameRng`] handed in by the caller, so a match is fully
//! described by `(game, config, seats, key, moves)` and can be replayed. New
//! matches are keyed ([`GameRng::from_key`], the key derived as [`deal`]
//! describes, so that anyone can audit a deal); matches stored before that
//! replay from their legacy `u64` seed ([`GameRng::from_seed`]).
//!
//! Each game implements [`Game`] (its rules) and, apart from them,
//! [`Analysis`] (its tools, see [`analysis`]); [`AnyGame`] is the closed
//! set the server hosts.

/// The hosted games, listed once: `GameKind`'s variant and the game's
/// type. Adding a game is one line here; `any`'s dispatch and the
/// analysis registry are both written from this list (each by its own
/// macro, handed to this one), so neither can miss a game.
macro_rules! with_hosted_games {
    ($then:ident) => {
        $then! {
            Nimrod => crate::nimrod::Nimrod,
            Rummikub => crate::rummikub::Rummikub,
            Cribbage => crate::cribbage::Cribbage,
            Mitsudomoe => crate::mitsudomoe::Mitsudomoe,
        }
    };
}

pub mod analysis;
mod analysis_registry;
pub mod any;
pub mod cribbage;
pub mod deal;
pub mod game;
pub mod mitsudomoe;
pub mod nimrod;
pub mod outcome;
pub mod places;
pub mod rng;
pub mod rummikub;
#[cfg(feature = "schema")]
mod schema;
pub mod seat;
pub mod secrets;
pub mod strategy;

pub use analysis::{Analysis, AnalysisError, ArgsInput, Budget};
pub use any::{AnyBot, AnyGame, AnyMove, AnyView, DecodeError, GameKind, IllegalMove, LegalMoves};
pub use deal::{check_client_seed, deal_key, DealSecret};
pub use game::{Game, Outcome, Seat, SeatSet, SetupError, Viewer};
pub use rng::GameRng;
pub use secrets::Secrets;
pub use strategy::{Bots, Strategy};
