//! The clock a rated match gets when its seek or challenge names none:
//! rated matches always run on a clock, so that nobody can stall a rated
//! game for ever and an absent player's match is aborted or lost in time.

use parlor_games::GameKind;
use parlor_protocol::Clock;

/// The game's rated default clock (documented in the protocol document,
/// "Finding opponents"): a few minutes a side plus an increment, longer
/// for the games whose turns take longer.
pub fn rated_default(game: GameKind) -> Clock {
    let (main_ms, increment_ms) = match game {
        GameKind::Nimrod => (180_000, 2_000),
        GameKind::Mitsudomoe => (600_000, 5_000),
        GameKind::Rummikub => (600_000, 10_000),
        GameKind::Cribbage => (600_000, 5_000),
    };
    Clock::Increment {
        main_ms,
        increment_ms,
    }
}
