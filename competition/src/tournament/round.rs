//! A round's pairings, whatever the format made them, and the games they
//! are played as (one, or a duplicate set).

use serde::{Deserialize, Serialize};

use super::record::{GameRecord, SEATS};

/// A round's pairings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Its boards: the two players by seat (of the set's first game).
    pub boards: Vec<[String; SEATS]>,
    /// Who has no opponent this round.
    pub bye: Option<String>,
}

/// Deals per duplicate board in Parlor's events: one deal, played from
/// both seats at once.
pub const DUPLICATE_DEALS: u32 = 1;

/// How each board of a round is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Play {
    /// One game, on a deal of its own.
    Single,
    /// Duplicate: `deals` deals, each played once from both seat
    /// arrangements, so that both players get the same cards.
    Duplicate {
        /// Deals per board.
        deals: u32,
    },
}

/// One game a round's board is played as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedGame {
    /// The board's place in the round, from 0.
    pub board: u32,
    /// Which of the board's deals (see [`super::EventSeed::deal`]).
    pub deal: u32,
    /// The players by seat.
    pub seats: [String; SEATS],
}

impl Round {
    /// The games this round is played as: board by board, and within a
    /// duplicate board deal by deal, the board's arrangement first and
    /// then the players swapped.
    pub fn games(&self, play: Play) -> Vec<PlannedGame> {
        let mut out = Vec::new();
        for (board, seats) in (0u32..).zip(&self.boards) {
            match play {
                Play::Single => out.push(PlannedGame {
                    board,
                    deal: 0,
                    seats: seats.clone(),
                }),
                Play::Duplicate { deals } => {
                    for deal in 0..deals {
                        let [a, b] = seats.clone();
                        out.push(PlannedGame {
                            board,
                            deal,
                            seats: [a.clone(), b.clone()],
                        });
                        out.push(PlannedGame {
                            board,
                            deal,
                            seats: [b, a],
                        });
                    }
                }
            }
        }
        out
    }

    /// The round's games as records not yet played.
    pub fn pending(&self, play: Play) -> Vec<GameRecord> {
        self.games(play)
            .into_iter()
            .map(|g| GameRecord::pending(g.seats))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round() -> Round {
        Round {
            boards: vec![["a".into(), "b".into()], ["c".into(), "d".into()]],
            bye: Some("e".into()),
        }
    }

    #[test]
    fn a_single_board_is_one_game_as_paired() {
        let games = round().games(Play::Single);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].seats, ["c".to_string(), "d".to_string()]);
        assert!(games.iter().all(|g| g.deal == 0));
    }

    #[test]
    fn a_duplicate_board_plays_each_deal_from_both_sides() {
        let games = round().games(Play::Duplicate { deals: 2 });
        assert_eq!(games.len(), 8);
        for board in 0..2 {
            for deal in 0..2 {
                let set: Vec<_> = games
                    .iter()
                    .filter(|g| g.board == board && g.deal == deal)
                    .collect();
                assert_eq!(set.len(), 2);
                assert_eq!(set[0].seats[0], set[1].seats[1]);
                assert_eq!(set[0].seats[1], set[1].seats[0]);
            }
        }
    }
}
