//! The records the log holds: a match's header and origin, its seats and
//! steps, the key it is filed under, and a match as read back whole.

use std::net::IpAddr;

use parlor_games::Seat;
use parlor_protocol::{LogEntry, MatchHeader, RoomId};
use uuid::Uuid;

use super::StoreError;

/// Who sits in a seat, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredSeat {
    /// A player, known by their resume token.
    Player {
        /// Resume token.
        token: Uuid,
        /// Display name.
        name: String,
        /// What they added to the deal.
        client_seed: Option<String>,
        /// Whether `name` is a registered account's (then the seat is
        /// filed under the name's key, for `my_games`, and the account
        /// may take it back from any connection).
        account: bool,
    },
    /// A built-in bot.
    Bot {
        /// Strategy name.
        strategy: String,
        /// The account it plays as (a ladder's anchor; filed under the
        /// name's key like an account's seat), or none for a bot added to
        /// a room. Seats stored before anchors existed read as none.
        account: Option<String>,
    },
}

/// One step as the store files it: the action is already the JSON text
/// of a `LoggedAction` (a room writes it straight from its typed move,
/// which spares building a JSON tree per move only to print it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The position it was played from.
    pub seq: u64,
    /// Who acted.
    pub seat: Seat,
    /// The `LoggedAction`, as JSON.
    pub action: String,
}

impl Step {
    /// The step `seat` took from position `seq`; `action` serialises as a
    /// `LoggedAction`.
    pub fn new(seq: u64, seat: Seat, action: &impl serde::Serialize) -> Result<Step, StoreError> {
        let action = serde_json::to_string(action)
            .map_err(|e| StoreError::Corrupt(format!("a step did not encode: {e}")))?;
        Ok(Step { seq, seat, action })
    }
}

/// A match's number in the store, what its seats and moves are filed
/// under, and the epoch its writer holds it at. Numbers grow with every
/// match, which keeps a live match's rows together at the end of the
/// tables (see `schema`). The epoch is a shared store's fencing token:
/// each node that takes a room over bumps it, and a write made at an older
/// epoch is refused ([`StoreError::Fenced`]); SQLite's is always 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MatchKey {
    pub(in crate::store) id: i64,
    pub(in crate::store) epoch: i64,
}

impl MatchKey {
    /// A match first held at epoch 1 (its creation).
    pub(crate) fn new(id: i64) -> MatchKey {
        MatchKey { id, epoch: 1 }
    }

    /// A match held at `epoch`.
    pub(crate) fn at(id: i64, epoch: i64) -> MatchKey {
        MatchKey { id, epoch }
    }

    /// The epoch this key writes at.
    pub fn epoch(&self) -> i64 {
        self.epoch
    }
}

/// A match's header as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// The room.
    pub room: RoomId,
    /// Game, options, seats, seed and clock.
    pub header: MatchHeader,
    /// Not listed in the lobby.
    pub private: bool,
    /// Who made it, and when.
    pub origin: Origin,
}

/// Who made a match and when: what the caps and lifetimes need after a
/// restart (absent for matches stored by older servers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The creator's resume token.
    pub creator: Option<Uuid>,
    /// The creator's address, as the caps count it (IPv6 by /64).
    pub addr: Option<IpAddr>,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_ms: Option<u64>,
}

/// A match restored at start-up.
#[derive(Clone, Debug)]
pub struct StoredMatch {
    /// Its number in the store.
    pub key: MatchKey,
    /// Its header.
    pub record: MatchRecord,
    /// Seats taken, by seat number.
    pub seats: Vec<(Seat, StoredSeat)>,
    /// Every step so far.
    pub moves: Vec<LogEntry>,
    /// Clocks (ms left per seat) after the last step, if the room has a clock.
    pub clocks: Option<Vec<u64>>,
    /// Whose turn it was at the last step, if recorded (see [`Turn`]).
    pub turn: Option<Turn>,
}

/// A match claimed for this node in cluster mode, and the lease
/// generation it was claimed under: the node holds it only while that
/// generation lasts (a claim that crossed the loss of the lease is left
/// to be claimed again).
#[derive(Clone, Debug)]
pub struct Claimed {
    /// The match, read back whole.
    pub stored: StoredMatch,
    /// The node's lease generation when it was claimed.
    pub generation: u64,
}

/// Whose turn it is and until when: recorded with each step, but only for
/// rooms where it is read back (a seat held by an account, whose
/// `my_games` lists it, or a correspondence clock, whose deadlines must
/// outlive a restart), so that guests' rooms write nothing more per move.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Turn {
    /// The seats to act, each with when its time runs out (ms since the
    /// Unix epoch; `None` without a clock).
    pub due: Vec<TurnSeat>,
}

/// One seat to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TurnSeat {
    /// The seat.
    pub seat: Seat,
    /// When its time runs out, in ms since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

impl Turn {
    /// When `seat` must act by, if it is to act: `Some(deadline)`.
    pub fn of(&self, seat: Seat) -> Option<Option<u64>> {
        self.due
            .iter()
            .find(|d| d.seat == seat)
            .map(|d| d.deadline_ms)
    }
}

/// A finished match an account sat in: what a player's record counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMatch {
    /// The game's name.
    pub game: String,
    /// The account's seat.
    pub seat: Seat,
    /// How it ended (`None`: closed without an outcome, e.g. aborted).
    pub outcome: Option<parlor_games::Outcome>,
}

/// One unfinished match a seat of an account is in, as `my_games` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountGame {
    /// The match's header.
    pub record: MatchRecord,
    /// The account's seat.
    pub seat: Seat,
    /// Every seat taken.
    pub seats: Vec<(Seat, StoredSeat)>,
    /// Whose turn it is, if recorded.
    pub turn: Option<Turn>,
}

impl AccountGame {
    /// The game as `games` (and a followed player's games) list it.
    pub fn into_entry(self) -> parlor_protocol::GameEntry {
        let g = self;
        let header = g.record.header;
        let mut players: Vec<Option<String>> = vec![None; usize::from(header.seats)];
        for (seat, who) in g.seats {
            if let Some(p) = players.get_mut(seat.index()) {
                *p = Some(match who {
                    StoredSeat::Player { name, .. } => name,
                    StoredSeat::Bot {
                        account: Some(name),
                        ..
                    } => name,
                    StoredSeat::Bot { strategy, .. } => format!("bot:{strategy}"),
                });
            }
        }
        let status = if players.iter().all(Option::is_some) {
            parlor_protocol::RoomStatus::Playing
        } else {
            parlor_protocol::RoomStatus::Waiting
        };
        let due = match status {
            parlor_protocol::RoomStatus::Playing => g.turn.as_ref().and_then(|t| t.of(g.seat)),
            _ => None,
        };
        parlor_protocol::GameEntry {
            room: g.record.room,
            game: header.game,
            seat: g.seat,
            status,
            your_turn: due.is_some(),
            players,
            clock: header.clock,
            deadline_ms: due.flatten().filter(|_| header.clock.is_some()),
            rated: header.rated,
        }
    }
}
