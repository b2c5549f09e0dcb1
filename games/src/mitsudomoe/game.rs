//! Mitsudomoe as a hosted game.

use serde::{Deserialize, Serialize};

use super::color::Color;
use super::illegal::Illegal;
use super::movegen::{count_turns, legal_turns};
use super::outcome::{End, EndReason};
use super::position::Position;
use super::rules;
use super::strategy;
use super::turn::Move;
use super::view::{LastTurn, View};
use crate::game::{Game, Outcome, Seat, SeatSet, SetupError, Viewer};
use crate::rng::GameRng;
use crate::strategy::Strategy;

/// Room options. `{}` (or `null`): the standard start. `{"position":
/// P}`: start from position `P` in notation instead (for puzzles,
/// lessons and tests); it must be a position where the game is not
/// already over.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The starting position in notation; `None`: the standard start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

/// A two-player Mitsudomoe match: seat 0 plays Black and moves first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mitsudomoe {
    pos: Position,
    last: Option<LastTurn>,
    end: Option<End>,
}

impl Mitsudomoe {
    /// A match from `pos`, with its player to move to play, which must
    /// have a legal turn; and no colour may have all its balls home
    /// already (else `None`). The end-of-turn checks are not applied to
    /// `pos`: no turn led to it (at the start both homes are full).
    pub fn from_position(pos: Position) -> Option<Mitsudomoe> {
        if pos.decided().is_some() || pos.end_without_turn().is_some() {
            return None;
        }
        Some(Mitsudomoe {
            pos,
            last: None,
            end: None,
        })
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// How the game ended, once it has.
    pub fn end(&self) -> Option<End> {
        self.end
    }

    fn mover(&self, seat: Seat) -> Result<Color, Illegal> {
        if self.end.is_some() {
            return Err(Illegal::GameOver);
        }
        if seat != self.pos.to_move().seat() {
            return Err(Illegal::NotYourTurn { seat });
        }
        Ok(self.pos.to_move())
    }
}

impl Game for Mitsudomoe {
    type Config = Config;
    type Move = Move;
    type View = View;
    type Illegal = Illegal;

    const NAME: &'static str = "mitsudomoe";
    const SEATS: (u8, u8) = (2, 2);
    const STRATEGIES: &'static [&'static str] = strategy::NAMES;

    fn setup(cfg: &Config, seats: u8, _rng: &mut GameRng) -> Result<Self, SetupError> {
        if seats != 2 {
            return Err(SetupError::Seats {
                game: Self::NAME,
                min: 2,
                max: 2,
                got: seats,
            });
        }
        let pos = match &cfg.position {
            None => Position::initial(),
            Some(text) => text
                .parse()
                .map_err(|e| SetupError::Config(format!("position: {e}")))?,
        };
        Mitsudomoe::from_position(pos).ok_or_else(|| {
            SetupError::Config(
                "position: the game is already over there (a side has all its balls home, or the side to move has no legal turn)".into(),
            )
        })
    }

    fn seats(&self) -> u8 {
        2
    }

    fn to_act(&self) -> SeatSet {
        match self.end {
            Some(_) => SeatSet::EMPTY,
            None => SeatSet::single(self.pos.to_move().seat()),
        }
    }

    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        match self.mover(seat) {
            Ok(_) => legal_turns(&self.pos),
            Err(_) => Vec::new(),
        }
    }

    fn legal_moves_upto(&self, seat: Seat, limit: usize) -> Option<Vec<Move>> {
        if self.mover(seat).is_ok() && count_turns(&self.pos) > limit {
            return None;
        }
        Some(self.legal_moves(seat))
    }

    fn canonical(&self, seat: Seat, mv: &Move) -> Move {
        match self.mover(seat) {
            Ok(_) => rules::canonical(&self.pos, mv),
            Err(_) => *mv,
        }
    }

    fn play(&mut self, seat: Seat, mv: &Move, _rng: &mut GameRng) -> Result<(), Illegal> {
        self.mover(seat)?;
        let played = rules::play(&self.pos, mv)?;
        self.last = Some(LastTurn {
            seat,
            turn: played.turn,
            notation: played.turn.to_string(),
        });
        self.pos = played.position;
        self.end = self.pos.end_after_turn();
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end.map(|e| Outcome::Win {
            winners: SeatSet::single(e.winner.seat()),
        })
    }

    fn view(&self, _viewer: Viewer) -> View {
        View::of(&self.pos, self.last.clone(), self.end)
    }

    fn forfeit(&mut self, seat: Seat) {
        if self.end.is_none() {
            if let Some(c) = Color::of_seat(seat) {
                self.end = Some(End {
                    winner: c.other(),
                    reason: EndReason::Forfeit,
                });
            }
        }
    }

    fn strategy(name: &str) -> Option<Box<dyn Strategy<Self>>> {
        strategy::by_name(name)
    }
}
