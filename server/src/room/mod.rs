//! Rooms: one actor task per room owns its match.
//!
//! The actor is the only code that touches the game. Sessions send it
//! [`RoomCmd`]s through a bounded inbox; it validates in the order of
//! boardgame.io's master (match exists, not over, seat held, fresh `seq`,
//! seat to act, move decodes, rules accept), writes each accepted step to
//! the store before anyone hears of it, then sends every member its own view.

mod actor;
mod clock;
mod slot;

use std::sync::Arc;

use parlor_games::Seat;
use serde_json::Value;
use uuid::Uuid;

use crate::outbox::{ConnId, Outbox};

pub use actor::{spawn_restored, spawn_room, RoomInit};
pub use clock::Clocks;

/// A session acting in a room: who it is and where to answer.
#[derive(Clone, Debug)]
pub struct Member {
    /// The session's resume token: the identity seats are held under.
    pub token: Uuid,
    /// Display name.
    pub name: Arc<str>,
    /// The connection's queue.
    pub out: Outbox,
}

/// A request for a room's actor.
#[derive(Debug)]
pub enum RoomCmd {
    /// Take a seat (or the first free one).
    Join {
        /// Who.
        who: Member,
        /// Which seat.
        seat: Option<Seat>,
    },
    /// Watch.
    Spectate {
        /// Who.
        who: Member,
    },
    /// Seat a built-in bot.
    AddBot {
        /// Who asked.
        who: Member,
        /// Which seat.
        seat: Option<Seat>,
        /// Which strategy.
        strategy: Option<String>,
    },
    /// Play a move.
    Play {
        /// Who.
        who: Member,
        /// For which seat.
        seat: Seat,
        /// The position it answers.
        seq: u64,
        /// The move as sent.
        mv: Value,
    },
    /// Stop watching, free a seat before the start, or resign.
    Leave {
        /// Who.
        who: Member,
    },
    /// A session took back its token: re-attach its seats to this connection.
    Resume {
        /// Who, on the new connection.
        who: Member,
    },
    /// A connection closed: its seats stay held, its spectating ends.
    Detach {
        /// The session's token.
        token: Uuid,
        /// The connection that closed.
        conn: ConnId,
    },
}
