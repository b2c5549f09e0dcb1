//! What finding opponents sends: seeks, challenges, rematches and the
//! list of a player's games.

use parlor_games::{GameKind, Seat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::types::{Clock, RoomId, RoomStatus};

/// Why a seek ended without a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeekEnd {
    /// The seeker cancelled it.
    Cancelled,
    /// The server could not keep it (the node matching it went away and
    /// no other could take it over): seek again.
    Lost,
    /// It paired, but the room could not be made (the `error` sent just
    /// before says why, e.g. `room/too_many`).
    Refused,
}

/// Why a challenged player declined, as lichess's reasons go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeclineReason {
    /// No reason given.
    #[default]
    Generic,
    /// Not now; maybe later.
    Later,
    /// The clock is too fast.
    TooFast,
    /// The clock is too slow.
    TooSlow,
    /// Not this game, or not these options.
    Game,
    /// Only casual games, please.
    Casual,
    /// Only rated games, please.
    Rated,
    /// Not against bots.
    NoBots,
    /// Only against bots.
    OnlyBots,
}

/// How a challenge ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeEnd {
    /// Accepted: both players are seated in `room`.
    Accepted,
    /// The challenged player declined (`reason` says why).
    Declined,
    /// The challenger withdrew it.
    Cancelled,
    /// Nobody answered within the time a challenge lasts.
    Expired,
    /// The challenger's connection closed, or the named player has no
    /// connection left.
    Gone,
    /// The server lost it (in a cluster, its database crashed while it
    /// waited): challenge again.
    Lost,
}

/// A challenge, as both players see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChallengeInfo {
    /// Its id, quoted by `accept`, `decline` and `cancel_challenge`.
    pub challenge: u64,
    /// The challenger's account name.
    pub from: String,
    /// The challenger's account kind (`human` or `bot`).
    pub from_kind: String,
    /// The challenged player's account name.
    pub to: String,
    /// The game.
    pub game: GameKind,
    /// Seats (two: a challenge names one opponent).
    pub seats: u8,
    /// The game's options, normalised.
    pub options: Value,
    /// The clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// Whether the match is rated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// The challenger's seat, when they chose one (else it is drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// When it expires unanswered, in milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
}

/// One unfinished game of the player's, as `games` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameEntry {
    /// The room.
    pub room: RoomId,
    /// The game.
    pub game: GameKind,
    /// The player's seat.
    pub seat: Seat,
    /// Waiting for players, or playing.
    pub status: RoomStatus,
    /// Whether the player's seat must act now.
    pub your_turn: bool,
    /// Every seat's occupant by name (`null`: empty; a built-in bot as
    /// `bot:STRATEGY`), the player's own included.
    pub players: Vec<Option<String>>,
    /// The clock, if the room has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// When the player's time to move runs out, in milliseconds since the
    /// Unix epoch (only when it is their turn and the room has a clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// Whether the match is rated.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}
