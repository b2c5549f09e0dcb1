//! Messages a client sends.

use parlor_games::{GameKind, Seat};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::types::{Clock, RoomId, RoomStatus};

/// Most rooms one `rooms` page lists: a page of the largest rooms stays far
/// below [`crate::MAX_SERVER_FRAME_BYTES`].
pub const MAX_ROOMS_PER_PAGE: u32 = 200;

/// Every `type` a client may send, for telling an unknown type from a
/// malformed message.
pub const CLIENT_TYPES: &[&str] = &[
    "hello",
    "resume",
    "list_rooms",
    "create_room",
    "join",
    "spectate",
    "add_bot",
    "play",
    "leave",
    "get_log",
    "analyze",
    "ping",
];

/// A message from a client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Must come first: the protocol version the client speaks, and a name
    /// to show to other players.
    Hello {
        /// The client's protocol version. Any integer is read: one beyond
        /// `u32` as `u32::MAX` and a negative one as 0, which negotiate as
        /// the numbers themselves would (see [`crate::negotiate`]).
        #[serde(deserialize_with = "crate::version::saturating")]
        version: u32,
        /// Display name (default "anonymous").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// An API token (`parlor_...`), for clients that cannot set an
        /// `Authorization` header on the upgrade: the connection then acts
        /// as the token's account, under the account's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    /// Take back the seats held under an earlier session's resume token.
    Resume {
        /// The token from that session's `welcome`.
        token: Uuid,
    },
    /// List the public rooms, a page at a time, ordered by room id.
    ListRooms {
        /// Only rooms of this game.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game: Option<GameKind>,
        /// Only rooms in this state.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<RoomStatus>,
        /// Continue after this point: the `next` of the previous page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cursor: Option<String>,
        /// Most rooms in the page (default and most: [`MAX_ROOMS_PER_PAGE`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// Create a room; the creator then joins or adds bots like anyone.
    CreateRoom {
        /// The game.
        game: GameKind,
        /// Seats (default: the game's fewest).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seats: Option<u8>,
        /// Game options (default: the game's defaults).
        #[serde(default, skip_serializing_if = "Value::is_null")]
        options: Value,
        /// A turn clock (default: none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<Clock>,
        /// Private rooms are not listed; join them by id.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        private: bool,
    },
    /// Sit in a room: in `seat`, or the first free one.
    Join {
        /// The room.
        room: RoomId,
        /// The seat wanted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        /// Entropy the player adds to the deal (1 to 64 letters, digits,
        /// `-` or `_`): the deal derives from the server's committed seed
        /// and every seat's client seed, so nobody alone can choose it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seed: Option<String>,
    },
    /// Watch a room.
    Spectate {
        /// The room.
        room: RoomId,
    },
    /// Put a built-in bot in a free seat.
    AddBot {
        /// The room.
        room: RoomId,
        /// The seat (default: the first free one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        /// The strategy (default: the game's first).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strategy: Option<String>,
    },
    /// Play a move for a seat this session holds.
    Play {
        /// The room.
        room: RoomId,
        /// The seat moving.
        seat: Seat,
        /// The `seq` of the update this move answers.
        seq: u64,
        /// The move, in the game's encoding.
        #[serde(rename = "move")]
        mv: Value,
    },
    /// Stop watching; give up a seat before the match starts; resign during it.
    Leave {
        /// The room.
        room: RoomId,
    },
    /// The log of a finished match.
    GetLog {
        /// The room.
        room: RoomId,
        /// Rummikub (two players): also send, as an `analysis` reply of the
        /// `replay` tool, player 1's predicted win fraction after each move.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        predict: bool,
    },
    /// Run a game's analysis tool on a position the client supplies.
    Analyze {
        /// The game.
        game: GameKind,
        /// The tool's name.
        tool: String,
        /// The tool's input.
        input: Value,
    },
    /// Measure the round trip; answered by `pong` with the same id.
    Ping {
        /// Echoed back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
}
