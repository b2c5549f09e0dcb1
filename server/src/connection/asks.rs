//! Seeks and challenges as the client sent them, for the session's
//! matchmaking to check and make.

use parlor_games::{GameKind, Seat};
use parlor_protocol::Clock;
use serde_json::Value;

/// A seek as the client sent it.
pub(super) struct SeekAsk {
    pub game: GameKind,
    pub seats: Option<u8>,
    pub options: Value,
    pub clock: Option<Clock>,
    pub rated: bool,
    pub bots: bool,
    pub bots_after_ms: Option<u64>,
}

/// A challenge as the client sent it.
pub(super) struct ChallengeAsk {
    pub to: String,
    pub game: GameKind,
    pub options: Value,
    pub clock: Option<Clock>,
    pub rated: bool,
    pub seat: Option<Seat>,
}
