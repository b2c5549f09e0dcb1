//! Messages the server sends.

use parlor_games::{GameKind, Outcome, Seat, SeatSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::error_code::ErrorCode;
use crate::matchmaking::{ChallengeEnd, ChallengeInfo, DeclineReason, GameEntry, SeekEnd};
use crate::types::{Clock, RoomId, RoomStatus, RoomSummary, SeatInfo, SeatRef};

/// The state of a room as one recipient may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Update {
    /// The room.
    pub room: RoomId,
    /// The game.
    pub game: GameKind,
    /// The position's sequence number: moves must quote it.
    pub seq: u64,
    /// Where the room is in its life.
    pub status: RoomStatus,
    /// The seats and who holds them.
    pub seats: Vec<SeatInfo>,
    /// The recipient's seat; absent for spectators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<Seat>,
    /// Seats that must act now.
    pub to_act: SeatSet,
    /// The game's view for this recipient.
    pub view: Value,
    /// The recipient's legal moves, when it must act and the list is short
    /// enough to send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal: Option<Vec<Value>>,
    /// Milliseconds left on each seat's clock, when the room has a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Vec<u64>>,
    /// How the match ended, once it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Set when the room closed without an outcome (its status is then
    /// `finished`): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<Closed>,
    /// Once a rated match has ended and its ratings are applied: each
    /// rated player's change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_changes: Option<Vec<crate::RatingChange>>,
    /// The recipient's seat may `abort` the match now (it has started,
    /// the seat has not yet made its first move, and it is no
    /// tournament's or ladder's game); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub may_abort: bool,
}

/// What happened at one step of a match. `M` is the move: JSON as read
/// back, or a borrowed typed move when a server writes the log (the same
/// text, without building a JSON tree per move).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoggedAction<M = Value> {
    /// The seat played this move.
    Move(M),
    /// The seat's clock ran out and the game's default move was played.
    TimeoutMove(M),
    /// The seat lost at once: its clock ran out with no default move, or it resigned.
    Forfeit,
}

/// One step of a match log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEntry {
    /// The position it was played from.
    pub seq: u64,
    /// Who acted.
    pub seat: Seat,
    /// What they did.
    pub action: LoggedAction,
}

/// Everything needed to replay a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchHeader {
    /// The game.
    pub game: GameKind,
    /// Its options, normalised.
    pub options: Value,
    /// Number of seats.
    pub seats: u8,
    /// Matches dealt before provably fair dealing: the RNG seed all chance
    /// came from (published only once the match is over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// How the deal was made: the committed server seed and every seat's
    /// client seed (the secret half is published only once the match is over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<Deal>,
    /// The clock, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// Whether the match is rated (every seat an account that joined it
    /// as rated: through a rated seek, challenge or rematch).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// The event the match is a game of, if any (its server seed and salt
    /// then come from the event's seed; in a duplicate set, whose games
    /// share one deal, no seat adds a client seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Box<crate::EventGame>>,
    /// The ladder game the match is, if any: its players by seat, seated
    /// as the room starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder: Option<Box<crate::LadderGame>>,
    /// The accounts a challenge or seek seated, by seat: their seats are
    /// held for them from the room's making, so a room made just before
    /// a crash comes back with every seat its player's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<Box<MatchedGame>>,
}

/// Who a challenge or a seek between accounts seated, kept in the match
/// header: the room holds each seat for its account as it starts, and
/// the player's connection takes it (as a ladder's or event's game does).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MatchedGame {
    /// The accounts by seat.
    pub players: Vec<String>,
}

/// The inputs of a provably fair deal (see the protocol document).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Deal {
    /// SHA-256 of the server seed followed by the salt, published when the
    /// room was created.
    pub commitment: String,
    /// The server's seed, 32 bytes in hex.
    pub server_seed: String,
    /// The salt, 16 bytes in hex.
    pub salt: String,
    /// Each seat's client seed, in seat order (`null`: none given).
    pub client_seeds: Vec<Option<String>>,
    /// The seats a built-in bot played, which the server seats and which
    /// add no seed (absent: none, or a log written before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bot_seats: Vec<Seat>,
}

/// How a match that did not finish ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Closed {
    /// The room never started within the time allowed.
    NeverStarted,
    /// Every seated player was gone for the time allowed (for a room of
    /// bots alone: nobody watched it for that long).
    Abandoned,
    /// A rated match in which some seat did not make its first move
    /// within its first clock period: it does not count.
    Aborted,
}

/// A finished match: its header and every step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchLog {
    /// The room.
    pub room: RoomId,
    /// How to set the match up again.
    pub header: MatchHeader,
    /// Every step, in order.
    pub moves: Vec<LogEntry>,
    /// How it ended.
    pub outcome: Option<Outcome>,
    /// Set when the room closed without an outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<Closed>,
    /// For a rated match (every seat an account's): the accounts by seat,
    /// so that the ratings ledger's names can be checked against the
    /// match they claim to have played. Empty (and absent) otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<String>,
    /// The players' chat, in order (absent: none, or a log read before
    /// the match ended). No part of the match: replaying ignores it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<crate::ChatLine>,
}

/// A message from the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The answer to `hello`.
    Welcome {
        /// The protocol version both will use.
        version: u32,
        /// This connection's id (for logs).
        session: Uuid,
        /// Keep it: `resume` with it after a dropped connection or a server
        /// restart takes back every seat held under it.
        token: Uuid,
        /// The games this server hosts.
        games: Vec<GameKind>,
        /// The account the connection authenticated as (by `hello`'s
        /// token, a bearer token or a session cookie on the upgrade);
        /// absent for a guest.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        account: Option<crate::AccountInfo>,
    },
    /// The answer to `resume`: the seats taken back (updates follow).
    Resumed {
        /// The token now in use on this connection.
        token: Uuid,
        /// The seats held.
        seats: Vec<SeatRef>,
    },
    /// A page of public rooms.
    Rooms {
        /// One entry per room, by id.
        rooms: Vec<RoomSummary>,
        /// The cursor of the next page; absent on the last page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<String>,
    },
    /// A room was created.
    RoomCreated {
        /// Its id.
        room: RoomId,
        /// The game.
        game: GameKind,
        /// Its seats.
        seats: u8,
        /// The commitment to the server's deal seed (see the protocol document).
        commitment: String,
    },
    /// The session now holds `seat` (an update follows).
    Joined {
        /// The room.
        room: RoomId,
        /// The seat.
        seat: Seat,
        /// The commitment to the server's deal seed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        commitment: Option<String>,
        /// The room waits for this seat's client seed (send `seed`): the
        /// seat was taken for the player (a match found, a challenge
        /// accepted, a rematch, a tournament's or the ladder's game) and
        /// the deal is not made yet.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        seed_wanted: bool,
    },
    /// The session now watches the room (an update follows).
    Spectating {
        /// The room.
        room: RoomId,
    },
    /// A built-in bot took a seat.
    BotAdded {
        /// The room.
        room: RoomId,
        /// The seat.
        seat: Seat,
        /// Its strategy.
        strategy: String,
    },
    /// The session left the room.
    Left {
        /// The room.
        room: RoomId,
    },
    /// The room's state for this recipient.
    Update(Update),
    /// A seated player's connection dropped or came back.
    Presence {
        /// The room.
        room: RoomId,
        /// The seat.
        seat: Seat,
        /// Whether they are connected now.
        connected: bool,
    },
    /// The log of a finished match.
    Log(MatchLog),
    /// Results of an analysis tool, each one JSON document.
    Analysis {
        /// The game.
        game: GameKind,
        /// The tool.
        tool: String,
        /// The results in order.
        results: Vec<Value>,
        /// Whether results were cut at the reply limit.
        truncated: bool,
    },
    /// The answer to `seek`: it waits.
    Seeking {
        /// Its id, for `cancel_seek`.
        seek: u64,
        /// The game.
        game: GameKind,
        /// Seats.
        seats: u8,
        /// Whether it is rated.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
    },
    /// A seek ended without a match.
    SeekEnded {
        /// Its id.
        seek: u64,
        /// Why.
        reason: SeekEnd,
    },
    /// A seek found its opponents: the player is seated in `room` at
    /// `seat` (`joined` and `update` follow).
    Matched {
        /// The seek.
        seek: u64,
        /// The new room.
        room: RoomId,
        /// The player's seat.
        seat: Seat,
        /// Every seat's player by name, in seat order (a built-in bot as
        /// `bot:STRATEGY`).
        players: Vec<String>,
    },
    /// A tournament's round seated the player: sent to every connection
    /// of the account. The seat is held for them; `join` it (room and
    /// seat) to play. An absent player's clock runs all the same.
    TournamentGame(Box<crate::TournamentSeat>),
    /// The answer to `create_tournament`: the new event's id.
    TournamentCreated {
        /// The event's id.
        tournament: String,
    },
    /// The answer to `join_tournament`: the account is entered.
    TournamentJoined {
        /// The event's id.
        tournament: String,
    },
    /// The answer to `leave_tournament`: the account left (or, in a
    /// running event, withdrew).
    TournamentLeft {
        /// The event's id.
        tournament: String,
    },
    /// A tournament the account entered was cancelled (fewer than two
    /// players when it was due, or a round's game could not be made):
    /// sent to every connection of each entrant. Its page says why too.
    TournamentCancelled {
        /// The event's id.
        tournament: String,
        /// Why, for people.
        reason: String,
    },
    /// The ladder seated the bot: sent to every connection of its account.
    /// The seat is held for it; `join` it (room and seat) to play. Its
    /// clock runs all the same.
    LadderGame(Box<crate::LadderSeat>),
    /// The answer to `ladder_join`: the account is entered in the game's
    /// ladder (and is paired while it is connected).
    LadderJoined {
        /// The game.
        game: GameKind,
    },
    /// The answer to `ladder_leave`: the account is paired no more (its
    /// games being played go on).
    LadderLeft {
        /// The game.
        game: GameKind,
    },
    /// A challenge was made: sent to the challenged player's every
    /// connection, and to the challenger's as the confirmation.
    ChallengeMade(ChallengeInfo),
    /// A challenge ended; on `accepted`, both players are seated in
    /// `room` (`joined` and `update` follow).
    ChallengeEnded {
        /// Its id.
        challenge: u64,
        /// How.
        end: ChallengeEnd,
        /// For `declined`: why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<DeclineReason>,
        /// For `accepted`: the new room.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<RoomId>,
    },
    /// A player offered a rematch: sent to everyone in the finished room.
    RematchOffered {
        /// The finished room.
        room: RoomId,
        /// The seats whose players have offered so far.
        seats: Vec<Seat>,
    },
    /// Every player offered: the rematch is on in `next`, this player
    /// seated at `seat` (`joined` and `update` follow).
    RematchStarted {
        /// The finished room.
        room: RoomId,
        /// The new room.
        next: RoomId,
        /// The player's seat in it.
        seat: Seat,
    },
    /// The answer to `my_games`: the account's unfinished games.
    Games {
        /// One per room the account holds a seat in, by room id.
        games: Vec<GameEntry>,
    },
    /// It is the player's turn in a room this connection is not in (sent
    /// to every connection of the seat's account).
    YourTurn {
        /// The room.
        room: RoomId,
        /// The game.
        game: GameKind,
        /// The seat to act.
        seat: Seat,
        /// When its time runs out, in milliseconds since the Unix epoch
        /// (rooms with a clock).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// A message of a room's chat, to everyone who may read its channel.
    Said {
        /// The room.
        room: RoomId,
        /// The message.
        #[serde(flatten)]
        line: crate::ChatLine,
    },
    /// A room's recent chat, sent to a player (the players' channel) or
    /// a spectator (the spectators') joining or resuming it mid-game.
    ChatHistory {
        /// The room.
        room: RoomId,
        /// The channel.
        to: crate::Channel,
        /// The latest messages, oldest first.
        lines: Vec<crate::ChatLine>,
    },
    /// The answer to `ping`.
    Pong {
        /// The ping's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// A refusal.
    Error {
        /// Stable, for programs.
        code: ErrorCode,
        /// For people.
        message: String,
        /// The room it concerns, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<RoomId>,
        /// Machine-readable details (for `action/illegal_move`: the game's reason).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Value>,
    },
}

impl ServerMsg {
    /// An error with no room or detail.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        ServerMsg::Error {
            code,
            message: message.into(),
            room: None,
            detail: None,
        }
    }

    /// An error about `room`.
    pub fn room_error(room: &RoomId, code: ErrorCode, message: impl Into<String>) -> Self {
        ServerMsg::Error {
            code,
            message: message.into(),
            room: Some(room.clone()),
            detail: None,
        }
    }
}
