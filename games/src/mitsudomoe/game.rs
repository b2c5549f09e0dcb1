//! Mitsudomoe as a hosted game.

use serde::{Deserialize, Serialize};

use super::color::Color;
use super::illegal::Illegal;
use super::movegen::{count_turns, legal_turns};
use super::outcome::{End, EndReason};
use super::position::Position;
use super::repetition::{Repetitions, REPETITION_DRAW};
use super::rules;
use super::turn::Move;
use super::turn_limit::MaxTurns;
use super::view::{LastTurn, View};
use crate::game::{Game, Outcome, Seat, SeatSet, SetupError, Viewer};
use crate::rng::GameRng;

/// Room options. `{}` (or `null`): the standard start. `{"position":
/// P}`: start from position `P` in notation instead (for puzzles,
/// lessons and tests); it must be a position where the game is not
/// already over, and its repetition history starts there.
/// `{"max_turns": n}`: Parlor's turn limit, [`DEFAULT_MAX_TURNS`] when
/// a new room names none.
///
/// A new room always stores its limit ([`Game::for_new_room`]): stored
/// options without one are those of a match created before Parlor's house
/// rules, which replays (and, unfinished, plays on) without them, so that
/// no stored match changes its ending.
///
/// [`DEFAULT_MAX_TURNS`]: super::turn_limit::DEFAULT_MAX_TURNS
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The starting position in notation; `None`: the standard start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// Turns after which the match ends drawn; `None` only in the stored
    /// options of a match from before the house rules.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub max_turns: Option<MaxTurns>,
}

/// A `max_turns` that is given must be a limit: `null` is refused like any
/// other bad value (only a missing one means "from before the rules").
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<MaxTurns>, D::Error> {
    MaxTurns::deserialize(d).map(Some)
}

impl Default for Config {
    /// The standard start under Parlor's house rules.
    fn default() -> Self {
        Config {
            position: None,
            max_turns: Some(MaxTurns::default()),
        }
    }
}

/// A two-player Mitsudomoe match: seat 0 plays Black and moves first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mitsudomoe {
    pos: Position,
    last: Option<LastTurn>,
    end: Option<End>,
    /// Turns played since the start (or the given position).
    turns: u16,
    /// `None`: a match from before the house rules, played without them.
    max_turns: Option<MaxTurns>,
    /// Part of the game, not of the room, so that a replay of the log
    /// alone ends where the match did.
    seen: Repetitions,
}

impl Mitsudomoe {
    /// A match from `pos`, with its player to move to play, which must
    /// have a legal turn; and no colour may have all its balls home
    /// already (else `None`). The end-of-turn checks are not applied to
    /// `pos`: no turn led to it (at the start both homes are full). Its
    /// repetition history starts with `pos`; the turn limit is the
    /// default one.
    pub fn from_position(pos: Position) -> Option<Mitsudomoe> {
        Mitsudomoe::from_position_with(pos, Some(MaxTurns::default()))
    }

    /// [`Mitsudomoe::from_position`] with a turn limit (`None`: without
    /// Parlor's house rules, as matches stored before them were played).
    pub fn from_position_with(pos: Position, max_turns: Option<MaxTurns>) -> Option<Mitsudomoe> {
        if pos.decided().is_some() || pos.end_without_turn().is_some() {
            return None;
        }
        Some(Mitsudomoe {
            pos,
            last: None,
            end: None,
            turns: 0,
            max_turns,
            seen: Repetitions::starting_at(&pos),
        })
    }

    /// Turns played so far.
    pub fn turns(&self) -> u16 {
        self.turns
    }

    /// The turn limit (`None` for a match from before the house rules).
    pub fn max_turns(&self) -> Option<MaxTurns> {
        self.max_turns
    }

    /// How often `pos` has occurred in this match (since the last turn
    /// no later position can undo; see [`Repetitions`]).
    pub fn occurrences(&self, pos: &Position) -> u8 {
        self.seen.count(pos)
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
    /// Parlor's turn limit: every match ends within `max_turns` turns
    /// (a forfeit is the last step, never one beyond). A match stored
    /// before the house rules has no bound.
    fn max_steps(cfg: &Config, _seats: u8) -> u64 {
        cfg.max_turns.map_or(u64::MAX, |m| u64::from(m.get()))
    }

    /// A new room names its turn limit, the default one if its creator
    /// gave none (see [`Config`]).
    fn for_new_room(cfg: Config) -> Config {
        Config {
            max_turns: Some(cfg.max_turns.unwrap_or_default()),
            ..cfg
        }
    }

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
        Mitsudomoe::from_position_with(pos, cfg.max_turns).ok_or_else(|| {
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
        self.turns = self.turns.saturating_add(1);
        let occurred = self.seen.record(&self.pos);
        // The rules' own ending first: a turn that wins, or puts a side
        // out, counts as such even when it also repeats or ends the limit.
        self.end = self.pos.end_after_turn().or_else(|| {
            // A match from before the house rules plays on without them.
            let limit = self.max_turns?;
            if occurred >= REPETITION_DRAW {
                Some(End::draw(EndReason::Repetition))
            } else if self.turns >= limit.get() {
                Some(End::draw(EndReason::TurnLimit))
            } else {
                None
            }
        });
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end.map(|e| match e.winner {
            Some(c) => Outcome::Win {
                winners: SeatSet::single(c.seat()),
            },
            None => Outcome::Draw,
        })
    }

    fn view(&self, _viewer: Viewer) -> View {
        View::of(&self.pos, self.last.clone(), self.end).with_house_rules(
            self.turns,
            self.max_turns.map(MaxTurns::get),
            if self.max_turns.is_some() {
                self.seen.one_short()
            } else {
                Vec::new()
            },
        )
    }

    fn forfeit(&mut self, seat: Seat) {
        if self.end.is_none() {
            if let Some(c) = Color::of_seat(seat) {
                self.end = Some(End::win(c.other(), EndReason::Forfeit));
            }
        }
    }
}
