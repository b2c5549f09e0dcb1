//! Small types shared by several messages.

use std::borrow::Cow;
use std::fmt;

use parlor_games::{GameKind, Seat};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize};

/// Longest room id accepted on the wire: ids the server makes are 12
/// characters; anything much longer is garbage and is refused early.
pub const MAX_ROOM_ID_LEN: usize = 64;

/// A room's id, as the server made it (12 lowercase hex digits).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RoomId(String);

impl RoomId {
    /// Wraps an id string; `None` when it is empty, too long or has
    /// characters other than ASCII letters, digits, `-` and `_`.
    pub fn new(s: impl Into<String>) -> Option<Self> {
        let s = s.into();
        let ok = !s.is_empty()
            && s.len() <= MAX_ROOM_ID_LEN
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        ok.then_some(RoomId(s))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl JsonSchema for RoomId {
    fn schema_name() -> Cow<'static, str> {
        "RoomId".into()
    }

    fn schema_id() -> Cow<'static, str> {
        concat!(module_path!(), "::RoomId").into()
    }

    // What `deserialize` accepts, not only what the server makes, so that
    // the schema refuses exactly the ids the decoder does.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A room's id: the server makes 12 lowercase hex digits; 1 to 64 ASCII letters, digits, '-' or '_' are read.",
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_ROOM_ID_LEN,
            "pattern": "^[A-Za-z0-9_-]+$",
        })
    }
}

impl fmt::Display for RoomId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for RoomId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        RoomId::new(s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "a room id is 1 to {MAX_ROOM_ID_LEN} letters, digits, '-' or '_'"
            ))
        })
    }
}

/// A turn clock, a room option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Clock {
    /// Each move must come within `ms` milliseconds: `{"per_move": {"ms": 30000}}`.
    PerMove {
        /// Time per move.
        ms: u64,
    },
    /// A main time per seat, plus `increment_ms` added after each of its
    /// moves: `{"increment": {"main_ms": 300000, "increment_ms": 2000}}`.
    Increment {
        /// Starting time per seat.
        main_ms: u64,
        /// Added after each move.
        increment_ms: u64,
    },
    /// Correspondence: each move must come within this many days (1 to
    /// 14), counted on the wall clock so that restarts do not stop it:
    /// `{"days_per_move": 3}`. Only for rooms whose players all have
    /// accounts; such a room stays open while its players are away.
    DaysPerMove(u8),
}

impl Clock {
    /// Whether it is a correspondence clock (days per move).
    pub fn is_correspondence(&self) -> bool {
        matches!(self, Clock::DaysPerMove(_))
    }
}

/// Where a room is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomStatus {
    /// Seats are still free; the match starts when all are taken.
    Waiting,
    /// The match is on.
    Playing,
    /// The match is over.
    Finished,
}

/// Who sits in a seat. `S` is the text type: owned as received, or `&str`
/// when a server writes it from names it already holds (one wire layout
/// for both, without cloning every name for every update).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Occupant<S = String> {
    /// Nobody yet.
    Empty,
    /// A person or an external bot, connected over the protocol.
    Player {
        /// The name given in `hello`.
        name: S,
        /// Whether their connection is up.
        connected: bool,
        /// Whether the seat was taken by a registered account (its name is
        /// then the account's); absent (false) for a guest.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        account: bool,
    },
    /// A built-in bot run by the server.
    Bot {
        /// The strategy's name.
        strategy: S,
        /// The account it plays as (a ladder's anchor, whose games are
        /// rated); absent for a bot added to a room, which is unrated.
        #[serde(default = "no_account", skip_serializing_if = "Option::is_none")]
        #[schemars(default = "no_account::<S>")]
        account: Option<S>,
    },
}

/// A bot's account when none is given (a plain `default` would ask the
/// text type for a default of its own).
fn no_account<S>() -> Option<S> {
    None
}

impl Occupant<&str> {
    /// The owned form.
    pub fn to_owned(&self) -> Occupant {
        match *self {
            Occupant::Empty => Occupant::Empty,
            Occupant::Player {
                name,
                connected,
                account,
            } => Occupant::Player {
                name: name.to_owned(),
                connected,
                account,
            },
            Occupant::Bot { strategy, account } => Occupant::Bot {
                strategy: strategy.to_owned(),
                account: account.map(str::to_owned),
            },
        }
    }
}

/// One seat of a room (`S` as in [`Occupant`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatInfo<S = String> {
    /// The seat.
    pub seat: Seat,
    /// Who sits there.
    #[serde(flatten)]
    pub occupant: Occupant<S>,
    /// The player's rating in a rated room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<crate::SeatRating>,
}

/// A room as the lobby lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoomSummary {
    /// The room's id.
    pub room: RoomId,
    /// The game it plays.
    pub game: GameKind,
    /// Where it is in its life.
    pub status: RoomStatus,
    /// Its seats.
    pub seats: Vec<SeatInfo>,
    /// How many spectators watch.
    pub spectators: u32,
    /// The commitment to the server's deal seed (absent for matches stored
    /// before provably fair dealing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
}

/// A seat in a room, e.g. one that a resumed session holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatRef {
    /// The room.
    pub room: RoomId,
    /// The seat.
    pub seat: Seat,
}

/// The key that makes account names unique: names compare whatever the
/// (ASCII) case, so `Alice` and `alice` are one account. What seats,
/// registries and tables of accounts are keyed by.
pub fn account_key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The account a connection acts as, as `welcome` names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AccountInfo {
    /// The account's name, as its owner spelled it.
    pub name: String,
    /// `human` or `bot`.
    pub kind: String,
    /// The account's role on this server: `player`, `moderator` or
    /// `admin` (told only to the account itself, so that its client may
    /// offer the moderators' page). Absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}
