//! The continuous bot ladder as the JSON API and the protocol show it:
//! a game's ladder page (its entrants, games being played and recent
//! results), the list of ladders, the game a ladder seats a bot in, and
//! what a ladder game's match header keeps.

use parlor_games::{GameKind, Seat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::types::RoomId;

/// Who plays a ladder game, kept in its match header: the room seats
/// them as it starts (a connected bot's seat held for its account, an
/// anchor's played by the server).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LadderGame {
    /// The accounts by seat.
    pub players: Vec<String>,
    /// Per seat: the built-in strategy that plays it for its account (a
    /// ladder's anchor), or `null` for a bot that plays over the protocol.
    pub strategies: Vec<Option<String>>,
}

/// Where the ladder seated a bot (the `ladder_game` message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LadderSeat {
    /// The game.
    pub game: GameKind,
    /// The room.
    pub room: RoomId,
    /// The bot's seat.
    pub seat: Seat,
    /// The opponent's account.
    pub opponent: String,
}

/// One entrant of a ladder (`GET /api/ladder/GAME`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderEntrantInfo {
    /// The account.
    pub name: String,
    /// Its rating in the game's pool (the initial rating before its first
    /// rated game).
    pub rating: f64,
    /// The rating's deviation.
    pub rd: f64,
    /// Whether the rating is still provisional.
    pub provisional: bool,
    /// Ladder games finished with a result.
    pub games: u64,
    /// Of those, won.
    pub wins: u64,
    /// Lost.
    pub losses: u64,
    /// Drawn.
    pub draws: u64,
    /// Whether it can be paired now (signed in on some node; anchors
    /// always are).
    pub connected: bool,
    /// Ladder games it is playing now.
    pub playing: u32,
    /// Whether it is one of the server's built-in bots (an anchor).
    pub builtin: bool,
}

/// How a ladder game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LadderResult {
    /// Seat 0 won.
    Seat0,
    /// Seat 1 won.
    Seat1,
    /// A draw.
    Draw,
    /// Closed without an outcome (for example aborted): it counts nothing.
    Void,
}

/// A ladder game, being played or over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LadderGameInfo {
    /// The room.
    pub room: RoomId,
    /// The accounts by seat.
    pub seats: Vec<String>,
    /// When it was made (ms since the Unix epoch).
    pub started_ms: u64,
    /// How it ended; absent while it is played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<LadderResult>,
    /// How it ended, with a result (absent for a game recorded before it
    /// was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<crate::GameEnd>,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_ms: Option<u64>,
}

/// A game's ladder page: `GET /api/ladder/GAME`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderInfo {
    /// The game.
    pub game: GameKind,
    /// Whether this server pairs its ladders (off with `--no-ladder`).
    pub running: bool,
    /// The entrants, best rating first.
    pub entrants: Vec<LadderEntrantInfo>,
    /// The games being played, oldest first.
    pub playing: Vec<LadderGameInfo>,
    /// The latest finished games, newest first.
    pub recent: Vec<LadderGameInfo>,
    /// The most games a bot plays at once.
    pub max_games: u32,
    /// The most games a pair plays in a UTC day.
    pub daily_cap: u32,
}

/// A ladder in `GET /api/ladder`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LadderSummary {
    /// The game.
    pub game: GameKind,
    /// Entrants (anchors included).
    pub entrants: u32,
    /// Games being played.
    pub playing: u32,
}
