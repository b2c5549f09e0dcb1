//! Rooms: one actor task per room owns its match.
//!
//! The actor is the only code that touches the game. Sessions send it
//! [`RoomCmd`]s (a [`RoomRequest`] and who asks) through the room directory; it validates in the order of
//! boardgame.io's master (match exists, not over, seat held, fresh `seq`,
//! seat to act, move decodes, rules accept), writes each accepted step to
//! the store before anyone hears of it, then sends every member its own
//! view. It knows nothing of the directory: it reaches connections and
//! reports its changes through its [`RoomHost`].

mod abort;
mod actor;
mod attached;
mod broadcast;
mod chat;
mod clock;
mod event_seats;
mod expiry;
mod fencing;
mod moves;
mod rating;
mod rematch;
mod seating;
mod seeds;
mod setup;
mod slot;
mod turn;

use std::sync::Arc;
use std::time::Duration;

use parlor_games::{GameKind, Seat};
use parlor_protocol::{RoomId, RoomSummary};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::outbox::{ConnId, Outbox};
use crate::store::Store;

pub use clock::{Clocks, DAY_MS};
pub use rematch::RematchPlan;
pub use seeds::SEED_WAIT;
pub use setup::{spawn_restored, spawn_room, RoomInit};
pub use slot::AWAITED_SEED;

/// A session acting in a room: who it is and which connection to answer.
/// It travels between a cluster's nodes as is, its connection then being
/// the gateway's (the owner swaps in its stand-in's, [`RoomCmd::with_conn`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Member {
    /// The session's resume token: the identity seats are held under.
    pub token: Uuid,
    /// Display name.
    pub name: Arc<str>,
    /// The connection the request came on.
    pub conn: ConnId,
    /// Whether `name` is a registered account's (the session
    /// authenticated); a guest's otherwise.
    #[serde(default)]
    pub account: bool,
}

/// What a session asks of a room: the one spelling of a room command,
/// from a connection's request to the actor's handler, over the bus too
/// (a new request is a variant here and its arm in the actor).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "c", rename_all = "snake_case")]
pub enum RoomRequest {
    /// Take a seat (or the first free one).
    Join {
        /// Which seat.
        seat: Option<Seat>,
        /// The player's contribution to the deal.
        client_seed: Option<String>,
        /// Without a seed: hold the seat until the player's `seed` (or
        /// the seed wait's end) before dealing, the player's client
        /// having said it sends one once it knows the commitment.
        #[serde(default)]
        await_seed: bool,
    },
    /// Add the seat's client seed to the deal, for a seat that waits
    /// for one.
    Seed {
        /// The seed.
        client_seed: String,
    },
    /// Watch.
    Spectate,
    /// Seat a built-in bot.
    AddBot {
        /// Which seat.
        seat: Option<Seat>,
        /// Which strategy.
        strategy: Option<String>,
    },
    /// Play a move.
    Play {
        /// For which seat.
        seat: Seat,
        /// The position it answers.
        seq: u64,
        /// The move as sent.
        mv: Value,
    },
    /// Stop watching, free a seat before the start, or resign.
    Leave,
    /// End the match unrated, before the asking seat's first move.
    Abort,
    /// A session took back its token: re-attach its seats to this
    /// connection (the member's, a new one).
    Resume,
    /// After the match: offer (or agree to) a rematch.
    Rematch,
    /// Say something in the room's chat (its text checked, its rate and
    /// the account's mute too, by the session it came from).
    Say {
        /// What is said (a phrase's text for a phrase).
        text: String,
        /// The canned phrase it is, if it is one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phrase: Option<parlor_protocol::Phrase>,
        /// The channel asked for (default: the speaker's own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<parlor_protocol::Channel>,
    },
}

/// What a room's actor is sent: a session's request, or one of the
/// node's own control messages.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomCmd {
    /// A session's request.
    Request {
        /// Who.
        who: Member,
        /// What.
        req: RoomRequest,
    },
    /// A connection closed: its seats stay held, its spectating ends.
    Detach {
        /// The session's token.
        token: Uuid,
        /// The connection that closed.
        conn: ConnId,
    },
    /// A moderator closed an account: every seat it holds in the match
    /// being played resigns (a loss, rated as usual). Sent by the node
    /// that closed it, wherever the room is hosted.
    Resign {
        /// The account's name key.
        account: String,
    },
    /// This node no longer owns the room (cluster mode: it lost its
    /// lease): tell everyone in it where they stand, and stop. Only a
    /// room's own node sends it: it never travels.
    #[serde(skip)]
    Relinquish,
}

impl RoomCmd {
    /// `who` asks `req`.
    pub fn request(who: Member, req: RoomRequest) -> RoomCmd {
        RoomCmd::Request { who, req }
    }

    /// The connection the command came on; `None` for what no connection
    /// sends now (a connection that closed, a room given up).
    pub fn conn(&self) -> Option<ConnId> {
        match self {
            RoomCmd::Request { who, .. } => Some(who.conn),
            RoomCmd::Detach { .. } | RoomCmd::Resign { .. } | RoomCmd::Relinquish => None,
        }
    }

    /// The connection the command names, a closed one included; `None`
    /// for a room given up.
    pub fn origin(&self) -> Option<ConnId> {
        match self {
            RoomCmd::Request { who, .. } => Some(who.conn),
            RoomCmd::Detach { conn, .. } => Some(*conn),
            RoomCmd::Resign { .. } | RoomCmd::Relinquish => None,
        }
    }

    /// Whether it may be sent to another node (all but what only a
    /// room's own node sends).
    pub fn travels(&self) -> bool {
        !matches!(self, RoomCmd::Relinquish)
    }

    /// The command with its connection `conn` (here, a stand-in for the
    /// gateway's connection it came on).
    pub fn with_conn(self, conn: ConnId) -> RoomCmd {
        match self {
            RoomCmd::Request { who, req } => RoomCmd::Request {
                who: Member { conn, ..who },
                req,
            },
            RoomCmd::Detach { token, .. } => RoomCmd::Detach { token, conn },
            RoomCmd::Resign { account } => RoomCmd::Resign { account },
            RoomCmd::Relinquish => RoomCmd::Relinquish,
        }
    }
}

/// What a room tells its host.
#[derive(Debug)]
pub enum RoomEvent {
    /// Its listing changed (seats, status or spectators).
    Changed {
        /// The room.
        room: RoomId,
        /// As listed.
        summary: RoomSummary,
        /// Not listed.
        private: bool,
    },
    /// `token` now holds `seat`.
    Seated {
        /// The room.
        room: RoomId,
        /// Whose.
        token: Uuid,
        /// Which seat.
        seat: Seat,
    },
    /// `token` no longer holds a seat here.
    Unseated {
        /// The room.
        room: RoomId,
        /// Whose.
        token: Uuid,
    },
    /// A seat held by an account has become due to act: tell the
    /// account's connections, but those showing the room (`except`).
    YourTurn {
        /// The account name's key.
        account_key: String,
        /// The room.
        room: RoomId,
        /// Its game.
        game: GameKind,
        /// The seat to act.
        seat: Seat,
        /// When its time runs out (ms since the Unix epoch), with a clock.
        deadline_ms: Option<u64>,
        /// The connections the seat is shown on (this node's).
        except: Vec<ConnId>,
    },
    /// Every player of a finished match offered a rematch: make it.
    Rematch(RematchPlan),
    /// The actor stopped: forget the room.
    Stopped {
        /// The room.
        room: RoomId,
        /// The epoch the actor held it at: a room given up and taken back
        /// by the same node runs at a higher one, and must not be
        /// forgotten when the old actor stops.
        epoch: i64,
    },
}

/// How long rooms nobody plays in are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetimes {
    /// A room that has not started within this closes.
    pub unstarted: Duration,
    /// A started room whose seated players are all gone this long closes.
    pub abandoned: Duration,
}

/// What a room needs from the node hosting it: the seam where a room
/// directory (local, or a cluster's) plugs in.
pub trait RoomHost: Send + Sync + std::fmt::Debug + 'static {
    /// Reports a change.
    fn report(&self, event: RoomEvent);
    /// The queue of connection `conn`, if it is still open.
    fn outbox(&self, conn: ConnId) -> Option<Outbox>;
    /// Where steps are stored.
    fn store(&self) -> &Store;
    /// The tracker room tasks run on.
    fn tracker(&self) -> &TaskTracker;
    /// The node's shutdown signal.
    fn shutdown(&self) -> CancellationToken;
    /// How long idle rooms live.
    fn lifetimes(&self) -> Lifetimes;
}
