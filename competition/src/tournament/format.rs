//! The event formats, and the points a game is worth in each.

use serde::{Deserialize, Serialize};

/// How an event pairs its players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every pair of players meets once in each cycle.
    RoundRobin,
    /// A fixed number of rounds, players paired within score groups.
    Swiss,
    /// A time window; whoever finishes a game is paired again at once.
    Arena,
}

impl Format {
    /// The format's name as the API spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Swiss => "swiss",
            Format::Arena => "arena",
        }
    }

    /// The format named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        [Format::RoundRobin, Format::Swiss, Format::Arena]
            .into_iter()
            .find(|f| f.name() == name)
    }

    /// Points for a bye: a Swiss bye counts as a win (the pairing, not
    /// the player, left them out); a round robin's bye is a round with no
    /// game and earns nothing; arenas have none.
    pub fn bye_points(self) -> f64 {
        match self {
            Format::Swiss => 1.0,
            Format::RoundRobin | Format::Arena => 0.0,
        }
    }

    /// Points for a game scored `score` (1, ½ or 0) by a player who won
    /// the `streak` games before it. Round robin and Swiss: the score.
    /// Arena: 2 / 1 / 0, doubled (4 / 2) for a player on a streak of two
    /// or more wins, as long as the streak lasts.
    pub fn game_points(self, score: f64, streak: u32) -> f64 {
        match self {
            Format::RoundRobin | Format::Swiss => score,
            Format::Arena => {
                let base = score * 2.0;
                if streak >= ARENA_STREAK {
                    base * 2.0
                } else {
                    base
                }
            }
        }
    }

    /// The tie-break's name: Sonneborn-Berger for round robin (each
    /// game's score times the opponent's points), Buchholz for Swiss and
    /// arena (the sum of the opponents' points, over games played).
    pub fn tiebreak_name(self) -> &'static str {
        match self {
            Format::RoundRobin => "sonneborn-berger",
            Format::Swiss | Format::Arena => "buchholz",
        }
    }
}

/// Consecutive wins after which an arena player's games count double.
pub const ARENA_STREAK: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in [Format::RoundRobin, Format::Swiss, Format::Arena] {
            assert_eq!(Format::from_name(f.name()), Some(f));
            assert_eq!(
                serde_json::to_value(f).ok(),
                Some(serde_json::json!(f.name()))
            );
        }
        assert_eq!(Format::from_name("knockout"), None);
    }

    #[test]
    fn arena_points_double_on_a_streak_only() {
        let a = Format::Arena;
        assert_eq!(a.game_points(1.0, 0), 2.0);
        assert_eq!(a.game_points(1.0, 1), 2.0);
        assert_eq!(a.game_points(1.0, 2), 4.0);
        assert_eq!(a.game_points(0.5, 3), 2.0);
        assert_eq!(a.game_points(0.0, 5), 0.0);
        assert_eq!(Format::Swiss.game_points(1.0, 9), 1.0);
    }
}
