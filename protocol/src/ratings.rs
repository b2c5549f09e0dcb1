//! Ratings as the protocol and the JSON API show them: a rated player's
//! rating beside their seat, each player's change at the end of a rated
//! match, leaderboards, and a player's ratings and rated games. The
//! ledger's own lines are `parlor_competition::LedgerLine`.

use parlor_games::Seat;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Ratings deviation above which a rating is provisional: shown with a
/// `?` and kept off leaderboards (lichess's threshold, in Glicko-2's
/// display scale).
pub const PROVISIONAL_RD: f64 = 110.0;

/// Whether a rating with deviation `rd` is provisional.
pub fn provisional(rd: f64) -> bool {
    rd > PROVISIONAL_RD
}

/// A rated player's rating in a room's seat list, rounded for display.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatRating {
    /// The rating, rounded to a whole number.
    pub rating: i32,
    /// Whether it is provisional (shown as `1500?`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
}

/// One player's rating change at the end of a rated match (the final
/// `update`'s `rating_changes`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RatingChange {
    /// The seat played.
    pub seat: Seat,
    /// The account's name.
    pub name: String,
    /// The rating entering the match (after any idle widening).
    pub before: f64,
    /// The rating after it.
    pub after: f64,
    /// The rating deviation after it.
    pub rd: f64,
}

/// A rating in one pool, as a player's page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolRating {
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub rd: f64,
    /// Its volatility.
    pub vol: f64,
    /// Rated matches played in the pool.
    pub games: u64,
    /// Whether it is provisional ([`PROVISIONAL_RD`]).
    pub provisional: bool,
}

/// One rated match on a player's page, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedGame {
    /// The match's ledger line.
    pub n: u64,
    /// When it ended (ms since the Unix epoch).
    pub at_ms: u64,
    /// The pool (the game).
    pub pool: String,
    /// The room, whose replay shows the match.
    pub room: String,
    /// The player's place (1 is best).
    pub place: u8,
    /// How many rated players it had.
    pub players: u8,
    /// The others' names, by seat.
    pub opponents: Vec<String>,
    /// The rating entering it.
    pub before: f64,
    /// The rating after it.
    pub after: f64,
    /// The deviation after it.
    pub rd: f64,
}

/// A row of a leaderboard (`GET /api/leaderboard/GAME`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardRow {
    /// 1 for the best.
    pub rank: u32,
    /// The account's name.
    pub name: String,
    /// `human` or `bot`.
    pub kind: String,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub rd: f64,
    /// Rated matches played in the pool.
    pub games: u64,
}

/// A leaderboard: one game's pool, best first, provisional ratings left out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The game (the pool).
    pub game: String,
    /// The rows.
    pub players: Vec<LeaderboardRow>,
}

/// The ledger's latest line (`GET /api/ratings/head`): `n` 0 and 64
/// zeros while it is empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerHead {
    /// The latest line's number.
    pub n: u64,
    /// Its hash.
    pub hash: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provisional_is_above_the_threshold_only() {
        assert!(provisional(110.000_001));
        assert!(!provisional(110.0));
        assert!(!provisional(45.0));
    }

    #[test]
    fn a_settled_seat_rating_writes_no_flag() {
        let r = SeatRating {
            rating: 1612,
            provisional: false,
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"rating":1612}"#);
        let back: SeatRating = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }
}
