//! Tournaments as the JSON API and the protocol show them: creating one,
//! its public page (players, rounds, standings, the seed's commitment and,
//! once it is over, the seed), and the game a round seats a player in.
//! Pairings and standings are `parlor_competition::tournament`'s.

use parlor_competition::tournament::{ArenaPairing, Format, Standing};
use parlor_games::{GameKind, Seat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::types::{Clock, RoomId};

/// Who may enter an event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntrantKind {
    /// Human accounts only.
    Human,
    /// Bot accounts only.
    Bot,
    /// Either.
    #[default]
    Any,
}

/// Where an event stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Taking entries until it starts.
    Upcoming,
    /// Being played.
    Running,
    /// Over: its standings are final and its seed is revealed.
    Finished,
    /// Did not start (fewer than two players when it was due).
    Cancelled,
}

impl TournamentStatus {
    /// The status as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Upcoming => "upcoming",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Cancelled => "cancelled",
        }
    }
}

/// `POST /api/tournaments`'s body (and the `create_tournament` request).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    /// The game.
    pub game: GameKind,
    /// How players are paired.
    pub format: Format,
    /// A name for people (default: the game and format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Round robin: cycles (every pair meets once in each); Swiss: rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Arena: its length in minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes: Option<u32>,
    /// Seats per game: two (events pair players head to head).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<u8>,
    /// The game's options (`null`: its defaults).
    #[serde(default)]
    pub options: Value,
    /// The clock (default: the game's rated clock; events always run on one,
    /// so that an absent player's games end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// Whether its games are rated.
    #[serde(default)]
    pub rated: bool,
    /// When it starts, in milliseconds since the Unix epoch.
    pub starts_at_ms: u64,
    /// The most players it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_players: Option<u32>,
    /// Whether each pairing plays duplicate deals (the same deal from both
    /// seats, at the same time).
    #[serde(default)]
    pub duplicate: bool,
    /// Who may enter.
    #[serde(default)]
    pub kind: EntrantKind,
}

/// A player in an event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentPlayer {
    /// The account's name.
    pub name: String,
    /// The rating it was seeded by (its pool rating when the event
    /// started; before that, none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    /// Whether the player left the running event (their later games are
    /// forfeited, a Swiss event pairs them no more, an arena pauses them).
    /// Always present, as the page's documentation lists it.
    #[serde(default)]
    pub withdrawn: bool,
}

/// How a game of an event ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentResult {
    /// The seats that won; empty for a draw.
    pub winners: Vec<Seat>,
    /// How it ended (absent from an event stored before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<crate::GameEnd>,
}

/// One game of a round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentGame {
    /// Its room (`null`: a game forfeited without being played).
    pub room: Option<RoomId>,
    /// The players by seat.
    pub seats: Vec<String>,
    /// How it ended; `null` while it is played.
    pub result: Option<TournamentResult>,
}

/// An event's public page: `GET /api/tournaments/ID`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentInfo {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Who made it.
    pub created_by: String,
    /// The game.
    pub game: GameKind,
    /// The format.
    pub format: Format,
    /// Where it stands.
    pub status: TournamentStatus,
    /// Rounds in all (`null` for an arena, or before the players are known
    /// for a round robin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds_total: Option<u32>,
    /// As created: cycles (round robin) or rounds (Swiss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds_asked: Option<u32>,
    /// An arena's length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes: Option<u32>,
    /// The game's options, normalised.
    pub options: Value,
    /// The clock of its games.
    pub clock: Clock,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether boards play duplicate deals.
    pub duplicate: bool,
    /// Who may enter.
    pub kind: EntrantKind,
    /// When it starts (ms since the Unix epoch).
    pub starts_at_ms: u64,
    /// The most players it takes.
    pub max_players: u32,
    /// SHA-256 of its seed, published at creation.
    pub commitment: String,
    /// The seed, in hex, once it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    /// Its players, in the order they entered.
    pub players: Vec<TournamentPlayer>,
    /// Each round's games, in the order the pairing rule lists them (a
    /// duplicate board's games together).
    pub rounds: Vec<Vec<TournamentGame>>,
    /// Each round's bye (`null`: none).
    pub byes: Vec<Option<String>>,
    /// An arena's waves: each wave's free players left without an
    /// opponent (empty lists for round robin and Swiss).
    #[serde(default)]
    pub waiting: Vec<Vec<String>>,
    /// The standings, best first.
    pub standings: Vec<Standing>,
    /// The tie-break's name.
    pub tiebreak: String,
    /// An arena's pairing rule, the one it was made under: `waits-first`,
    /// or `top-down` for an arena made before that rule (a page without
    /// the field, from an older server, follows `top-down`); absent for
    /// round robin and Swiss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_pairing: Option<ArenaPairing>,
    /// Why it was cancelled (with `status` `cancelled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
}

/// An event in `GET /api/tournaments`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentSummary {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The game.
    pub game: GameKind,
    /// The format.
    pub format: Format,
    /// Where it stands.
    pub status: TournamentStatus,
    /// When it starts.
    pub starts_at_ms: u64,
    /// Players entered.
    pub players: u32,
    /// The most it takes.
    pub max_players: u32,
    /// Rounds begun.
    pub round: u32,
    /// Whether its games are rated.
    pub rated: bool,
    /// Who may enter.
    pub kind: EntrantKind,
    /// For a signed-in caller: whether they are entered (and not
    /// withdrawn); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entered: Option<bool>,
}

/// Which event a match belongs to and where its deal came from (kept in
/// the match's header): the event's seed makes the deal of board `board`'s
/// deal `deal` in round `round` (see `parlor_competition::tournament::
/// EventSeed::deal`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EventGame {
    /// The event's id.
    pub event: String,
    /// The round (an arena's wave), from 1.
    pub round: u32,
    /// The board, from 0.
    pub board: u32,
    /// Which of the board's deals.
    pub deal: u32,
    /// The players by seat (accounts: the room holds their seats for them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<String>,
    /// The other rooms playing the same deal (a duplicate set): this
    /// room's log stays private until they are over too, since it reveals
    /// their deal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub siblings: Vec<RoomId>,
}

/// Where a tournament's round seated a player (the `tournament_game`
/// message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TournamentSeat {
    /// The event's id.
    pub tournament: String,
    /// The round, from 1.
    pub round: u32,
    /// The room.
    pub room: RoomId,
    /// The player's seat.
    pub seat: Seat,
    /// Both players by seat.
    pub players: Vec<String>,
}
