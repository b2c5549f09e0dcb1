//! Nimrod as a hosted game.

use serde::{Deserialize, Serialize};

use super::piles::{Pile, Piles, MAX_PILE};
use super::play::Move;
use crate::game::{Game, Outcome, Seat, SeatSet, SetupError, Viewer};
use crate::rng::GameRng;

/// Room options: how the piles start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Config {
    /// These exact piles: `{"piles": [5, 9]}`.
    Piles([u64; 2]),
    /// Each pile drawn uniformly from `min..=max`:
    /// `{"random": {"min": 1, "max": 15}}`. The draws, exactly: two
    /// [`GameRng::range_inclusive`]`(min, max)`, the first for pile A, the
    /// second for pile B; the piles are then ordered lesser first.
    Random {
        /// Fewest rods in a pile.
        min: u64,
        /// Most rods in a pile.
        max: u64,
    },
}

impl Default for Config {
    /// Random piles of 1 to 15 rods, which the seed says makes nice short games.
    fn default() -> Self {
        Config::Random { min: 1, max: 15 }
    }
}

/// Why a Nimrod move is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Illegal {
    /// Not a legal shape: nothing taken, or different numbers from both piles.
    #[error("take {take:?} is not a move: take rods from one pile, or the same number from both")]
    Shape {
        /// The move's counts.
        take: [u64; 2],
    },
    /// A pile does not hold that many rods.
    #[error("pile {pile:?} holds only {has} rods, so {take} cannot be taken from it")]
    TooMany {
        /// The pile that is too small.
        pile: Pile,
        /// Rods asked for.
        take: u64,
        /// Rods in the pile.
        has: u64,
    },
    /// It is the other seat's turn.
    #[error("it is not {seat}'s turn")]
    NotYourTurn {
        /// The seat that tried to move.
        seat: Seat,
    },
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

/// The last move played, for display.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastMove {
    /// Who played it.
    pub seat: Seat,
    /// What was taken.
    pub take: [u64; 2],
}

/// What a viewer sees. Nimrod has no hidden information, so every viewer
/// sees the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// The piles now, lesser first.
    pub piles: Piles,
    /// Whose turn it is, `None` once the game is over.
    pub next: Option<Seat>,
    /// The move that led here.
    pub last: Option<LastMove>,
}

/// A Nimrod match between two seats; seat 0 moves first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nimrod {
    piles: Piles,
    next: Seat,
    last: Option<LastMove>,
    outcome: Option<Outcome>,
}

impl Nimrod {
    /// A match from `piles` with seat 0 to move.
    pub fn from_piles(piles: Piles) -> Self {
        Nimrod {
            piles,
            next: Seat(0),
            last: None,
            outcome: None,
        }
    }

    /// The piles now.
    pub fn piles(&self) -> Piles {
        self.piles
    }

    fn check(&self, seat: Seat, mv: Move) -> Result<Piles, Illegal> {
        if self.outcome.is_some() {
            return Err(Illegal::GameOver);
        }
        if seat != self.next {
            return Err(Illegal::NotYourTurn { seat });
        }
        if !mv.is_valid() {
            return Err(Illegal::Shape { take: mv.take });
        }
        for (pile, take, has) in [
            (Pile::A, mv.take[0], self.piles.a()),
            (Pile::B, mv.take[1], self.piles.b()),
        ] {
            if take > has {
                return Err(Illegal::TooMany { pile, take, has });
            }
        }
        self.piles.after(mv).ok_or(Illegal::Shape { take: mv.take })
    }
}

fn other(seat: Seat) -> Seat {
    Seat(1 - seat.0.min(1))
}

impl Game for Nimrod {
    type Config = Config;
    type Move = Move;
    type View = View;
    type Illegal = Illegal;

    const NAME: &'static str = "nimrod";
    const SEATS: (u8, u8) = (2, 2);
    /// Ends by construction: every move takes at least one rod and no
    /// move adds any, so a match takes at most as many moves as the piles
    /// start with rods (both piles of `max` at most when drawn).
    fn max_steps(cfg: &Config, _seats: u8) -> u64 {
        match *cfg {
            Config::Piles([a, b]) => a.saturating_add(b),
            Config::Random { max, .. } => max.saturating_mul(2),
        }
    }

    fn setup(cfg: &Config, seats: u8, rng: &mut GameRng) -> Result<Self, SetupError> {
        if seats != 2 {
            return Err(SetupError::Seats {
                game: Self::NAME,
                min: 2,
                max: 2,
                got: seats,
            });
        }
        let piles = match *cfg {
            Config::Piles([x, y]) => {
                Piles::new(x, y).map_err(|e| SetupError::Config(e.to_string()))?
            }
            Config::Random { min, max } => {
                if min > max || max == 0 || max > MAX_PILE {
                    return Err(SetupError::Config(format!(
                        "random piles need 0 <= min <= max, 1 <= max <= {MAX_PILE}; got min {min}, max {max}"
                    )));
                }
                Piles::normalised(rng.range_inclusive(min, max), rng.range_inclusive(min, max))
            }
        };
        if piles.is_empty() {
            return Err(SetupError::Config(
                "the piles must hold at least one rod between them".into(),
            ));
        }
        Ok(Nimrod::from_piles(piles))
    }

    fn seats(&self) -> u8 {
        2
    }

    fn to_act(&self) -> SeatSet {
        match self.outcome {
            Some(_) => SeatSet::EMPTY,
            None => SeatSet::single(self.next),
        }
    }

    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        if self.outcome.is_some() || seat != self.next {
            return Vec::new();
        }
        self.piles.moves().collect()
    }

    fn legal_moves_upto(&self, seat: Seat, limit: usize) -> Option<Vec<Move>> {
        if self.piles.move_count() > limit as u128 {
            return None;
        }
        Some(self.legal_moves(seat))
    }

    fn play(&mut self, seat: Seat, mv: &Move, _rng: &mut GameRng) -> Result<(), Illegal> {
        let piles = self.check(seat, *mv)?;
        self.piles = piles;
        self.last = Some(LastMove {
            seat,
            take: mv.take,
        });
        if piles.is_empty() {
            self.outcome = Some(Outcome::Win {
                winners: SeatSet::single(seat),
            });
        } else {
            self.next = other(seat);
        }
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn view(&self, _viewer: Viewer) -> View {
        View {
            piles: self.piles,
            next: self.outcome.is_none().then_some(self.next),
            last: self.last,
        }
    }

    fn forfeit(&mut self, seat: Seat) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome::Win {
                winners: SeatSet::single(other(seat)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(x: u64, y: u64) -> Nimrod {
        Nimrod::from_piles(Piles::new(x, y).unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn the_seeds_sample_game() {
        let mut g = game(5, 9);
        let mut rng = GameRng::from_seed(0);
        for (seat, take) in [(0, [0, 2]), (1, [2, 2]), (0, [3, 0]), (1, [0, 5])] {
            assert_eq!(g.outcome(), None);
            g.play(Seat(seat), &Move { take }, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winners: SeatSet::single(Seat(1))
            })
        );
        assert!(g.to_act().is_empty());
    }

    #[test]
    fn refused_moves_name_their_reason_and_change_nothing() {
        let mut g = game(3, 5);
        let before = g.clone();
        let mut rng = GameRng::from_seed(0);
        let cases = [
            (Seat(0), Move::new(0, 0), Illegal::Shape { take: [0, 0] }),
            (Seat(0), Move::new(3, 4), Illegal::Shape { take: [3, 4] }),
            (
                Seat(0),
                Move::new(4, 0),
                Illegal::TooMany {
                    pile: Pile::A,
                    take: 4,
                    has: 3,
                },
            ),
            (
                Seat(1),
                Move::new(1, 0),
                Illegal::NotYourTurn { seat: Seat(1) },
            ),
        ];
        for (seat, mv, why) in cases {
            assert_eq!(g.play(seat, &mv, &mut rng), Err(why));
            assert_eq!(g, before);
        }
    }

    #[test]
    fn forfeit_gives_the_game_to_the_other_seat() {
        let mut g = game(3, 5);
        g.forfeit(Seat(0));
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winners: SeatSet::single(Seat(1))
            })
        );
    }

    #[test]
    fn setup_validates_options() {
        let mut rng = GameRng::from_seed(1);
        assert!(Nimrod::setup(&Config::Piles([0, 0]), 2, &mut rng).is_err());
        assert!(Nimrod::setup(&Config::Piles([1, 2]), 3, &mut rng).is_err());
        assert!(Nimrod::setup(&Config::Random { min: 5, max: 2 }, 2, &mut rng).is_err());
        let g = Nimrod::setup(&Config::default(), 2, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        assert!((1..=15).contains(&g.piles().a()) && (1..=15).contains(&g.piles().b()));
    }
}
