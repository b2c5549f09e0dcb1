//! What an event's pairings and standings are computed from: its
//! entrants and the games played so far, as the event page publishes them.

use serde::{Deserialize, Serialize};

/// Seats in a tournament game: events pair players head to head.
pub const SEATS: usize = 2;

/// The rating a player without one in the game's pool is seeded by: the
/// initial Glicko-2 rating.
pub const UNRATED_SEEDING: f64 = 1500.0;

/// A player entered in an event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entrant {
    /// The account's name.
    pub name: String,
    /// The player's rating in the game's pool when the event started (the
    /// initial 1500 for a player without one): seeding orders by it.
    pub rating: f64,
}

/// One game of an event, finished (or forfeited) or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The players by seat.
    pub seats: [String; SEATS],
    /// The seats that won (empty for a draw); `None` while it is played.
    pub winners: Option<Vec<u8>>,
}

impl GameRecord {
    /// A game not finished yet.
    pub fn pending(seats: [String; SEATS]) -> Self {
        GameRecord {
            seats,
            winners: None,
        }
    }

    /// The score of `seat`: 1 for a win, ½ for a draw, 0 for a loss;
    /// `None` while the game is played.
    pub fn score(&self, seat: usize) -> Option<f64> {
        let winners = self.winners.as_ref()?;
        Some(if winners.is_empty() {
            0.5
        } else if winners.iter().any(|&w| usize::from(w) == seat) {
            1.0
        } else {
            0.0
        })
    }

    /// `name`'s seat in this game.
    pub fn seat_of(&self, name: &str) -> Option<usize> {
        self.seats.iter().position(|s| s == name)
    }

    /// The other player, seen from `seat`.
    pub fn opponent(&self, seat: usize) -> &str {
        &self.seats[1 - seat.min(1)]
    }
}

/// One round of a round-robin or Swiss event (or one wave of an arena's
/// pairings): the games it made and the player who sat out, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// Its games (a duplicate set's games one after another).
    pub games: Vec<GameRecord>,
    /// Who had no opponent this round.
    pub bye: Option<String>,
    /// An arena wave's players who were free but found no opponent
    /// (their last opponent was the only one free): with the games'
    /// players, the wave's whole free list, which its pairing depends on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpaired: Vec<String>,
}
