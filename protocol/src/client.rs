//! Messages a client sends.

use parlor_games::{GameKind, Seat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::matchmaking::DeclineReason;
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
    "abort",
    "get_log",
    "analyze",
    "ping",
    "seek",
    "cancel_seek",
    "challenge",
    "cancel_challenge",
    "accept",
    "decline",
    "rematch",
    "my_games",
    "create_tournament",
    "join_tournament",
    "leave_tournament",
    "ladder_join",
    "ladder_leave",
    "seed",
    "say",
];

/// A message from a client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Must come first: the protocol version the client speaks, and a name
    /// to show to other players.
    Hello {
        /// The client's protocol version. Any integer is read: one beyond
        /// `u32` as `u32::MAX` and a negative one as 0, which negotiate as
        /// the numbers themselves would (see [`crate::negotiate`]).
        #[serde(deserialize_with = "crate::version::saturating")]
        #[schemars(schema_with = "crate::version::any_integer")]
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
    /// End a started match without a result, before one's own seat has
    /// made its first move: not rated; counts toward `rated/cooldown` in a
    /// rated match. Never a tournament's or the ladder's game.
    Abort {
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
    /// Look for opponents: answered by `seeking`, later by `matched` (the
    /// player is then seated; `joined` and `update` follow). Seeks pair by
    /// game, seat count, options, clock and rated; a rated seek needs an
    /// account and pairs by rating. The seek ends when the connection
    /// closes.
    Seek {
        /// The game.
        game: GameKind,
        /// Seats (default: the game's fewest).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seats: Option<u8>,
        /// Game options (default: the game's defaults).
        #[serde(default, skip_serializing_if = "Value::is_null")]
        options: Value,
        /// A clock (a rated seek without one gets the game's rated default).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<Clock>,
        /// Rated (needs an account).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        /// Casual seeks only: when nobody is found within `bots_after_ms`,
        /// fill the other seats with built-in bots.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bots: bool,
        /// How long to wait before bots fill in (default 30,000 ms).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bots_after_ms: Option<u64>,
        /// A fresh client seed (as in `join`): says this client answers
        /// `joined`'s `seed_wanted` with `seed`, so the new room waits for
        /// its seat's seed. It is checked, but not mixed into the deal:
        /// the server sees it before it commits (see "Fair dealing").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seed: Option<String>,
    },
    /// Withdraw a seek (absent: every seek of this connection); answered
    /// by `seek_ended`.
    CancelSeek {
        /// The seek's id from `seeking`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seek: Option<u64>,
    },
    /// Challenge a named player (an account) to a two-seat match; needs an
    /// account. Both sides get `challenge`; the challenged answers with
    /// `accept` or `decline`.
    Challenge {
        /// The challenged account's name.
        to: String,
        /// The game.
        game: GameKind,
        /// Game options (default: the game's defaults).
        #[serde(default, skip_serializing_if = "Value::is_null")]
        options: Value,
        /// A clock (a rated challenge without one gets the game's rated
        /// default).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<Clock>,
        /// Rated.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        /// The challenger's seat (default: drawn at random).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        /// A fresh client seed (as in `join`): says this client answers
        /// `joined`'s `seed_wanted` with `seed`, so the new room waits for
        /// its seat's seed. It is checked, but not mixed into the deal:
        /// the server sees it before it commits (see "Fair dealing").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seed: Option<String>,
    },
    /// Withdraw a challenge one made.
    CancelChallenge {
        /// The challenge's id.
        challenge: u64,
    },
    /// Accept a challenge: both players are seated in a new room.
    Accept {
        /// The challenge's id.
        challenge: u64,
        /// A fresh client seed (as in `join`): says this client answers
        /// `joined`'s `seed_wanted` with `seed`, so the new room waits for
        /// its seat's seed. It is checked, but not mixed into the deal:
        /// the server sees it before it commits (see "Fair dealing").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seed: Option<String>,
    },
    /// Decline a challenge.
    Decline {
        /// The challenge's id.
        challenge: u64,
        /// Why (default `generic`).
        #[serde(default)]
        reason: DeclineReason,
    },
    /// After a match ends, offer (or accept) a rematch: when every
    /// player's seat has offered, a new room with the same game, options
    /// and clock starts, seats rotated by one, everyone seated.
    Rematch {
        /// The finished room.
        room: RoomId,
        /// A fresh client seed (as in `join`): says this client answers
        /// `joined`'s `seed_wanted` with `seed`, so the new room waits for
        /// its seat's seed. It is checked, but not mixed into the deal:
        /// the server sees it before it commits (see "Fair dealing").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seed: Option<String>,
    },
    /// The unfinished games of the connection's account; answered by
    /// `games`.
    MyGames,
    /// Create a tournament, as `POST /api/tournaments` does (needs an
    /// account); answered by `tournament_created`.
    CreateTournament(Box<crate::NewTournament>),
    /// Enter a tournament, as `POST /api/tournaments/ID/join` does (needs
    /// an account); answered by `tournament_joined`.
    JoinTournament {
        /// The event's id.
        id: String,
    },
    /// Leave a tournament, as `POST /api/tournaments/ID/leave` does;
    /// answered by `tournament_left`.
    LeaveTournament {
        /// The event's id.
        id: String,
    },
    /// Enter the game's bot ladder, as `POST /api/ladder/GAME/join` does
    /// (a bot account only); answered by `ladder_joined`.
    LadderJoin {
        /// The game.
        game: GameKind,
    },
    /// Leave the game's bot ladder; answered by `ladder_left`.
    LadderLeave {
        /// The game.
        game: GameKind,
    },
    /// Add this seat's seed to a room's deal, after `joined` said
    /// `seed_wanted` (the commitment is known by then): once every seat
    /// that waits for one has its seed, or the wait ends, the room deals.
    /// No answer of its own: the update of the dealt match follows.
    Seed {
        /// The room.
        room: RoomId,
        /// 1 to 64 letters, digits, `-` or `_`, fresh for this room.
        client_seed: String,
    },
    /// Say something in a room's chat: `text`, or a canned `phrase`
    /// instead. Heard by those who may read `to` (see "Chat"); refused
    /// with a `chat/...` error.
    Say {
        /// The room.
        room: RoomId,
        /// What to say (1 to [`crate::MAX_CHAT_CHARS`] characters, no
        /// control characters); absent with `phrase`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// A canned phrase instead of `text`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phrase: Option<crate::Phrase>,
        /// The channel (default: `players` for a seated player,
        /// `spectators` for a spectator).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<crate::Channel>,
    },
    /// Measure the round trip; answered by `pong` with the same id.
    Ping {
        /// Echoed back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
}
