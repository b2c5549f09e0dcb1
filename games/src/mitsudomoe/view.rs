//! What every viewer sees: the whole position, since Mitsudomoe hides
//! nothing, in a form for programs and in notation.

use serde::{Deserialize, Serialize};

use super::board::Board;
use super::color::Color;
use super::outcome::End;
use super::position::Position;
use super::square::{Square, SIDE};
use super::turn::Move;
use super::turn_limit::DEFAULT_MAX_TURNS;
use crate::game::Seat;

/// One square: its rings from the bottom up, and its ball.
/// `{"rings": ["white", "black"], "ball": "black"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    /// The rings, bottom first; the last is the top.
    pub rings: Vec<Color>,
    /// The ball on top, if any (always on a ring of its colour).
    pub ball: Option<Color>,
}

/// One side of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// Its seat.
    pub seat: Seat,
    /// Its colour.
    pub color: Color,
    /// Rings it has not placed yet.
    pub supply: u8,
    /// Where its balls start.
    pub home: [Square; 3],
    /// Where its balls must go (the other side's home).
    pub goals: [Square; 3],
}

/// The last turn played, for display.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LastTurn {
    /// Who played it.
    pub seat: Seat,
    /// The turn, as the legal list shows it.
    #[serde(rename = "move")]
    pub turn: Move,
    /// The same in notation.
    pub notation: String,
}

/// A Mitsudomoe view. Every viewer, players and spectators, gets the
/// same one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    /// The position in notation (see [`notation`](super::notation)).
    pub position: String,
    /// The board: 5 rows, row A first, each of 5 cells from column 1 to 5.
    pub board: Vec<Vec<Cell>>,
    /// Black (seat 0) then White (seat 1).
    pub players: [Player; 2],
    /// The seat to move, `None` once the game is over.
    pub next: Option<Seat>,
    /// The turn that led here.
    pub last: Option<LastTurn>,
    /// How the game ended, once it has.
    pub end: Option<End>,
    /// Turns played so far (from the start, or the position the room
    /// was given).
    #[serde(default)]
    pub turns: u16,
    /// Parlor's turn limit: the match ends drawn after this many turns;
    /// `null` for a match from before Parlor's house rules, which has
    /// neither the limit nor the repetition draw.
    pub max_turns: Option<u16>,
    /// Parlor's repetition rule: positions (in notation, sorted) that
    /// have occurred twice, so that a turn reaching one of them again
    /// ends the match drawn.
    #[serde(default)]
    pub repeated: Vec<String>,
}

fn squares(set: super::set::SquareSet) -> [Square; 3] {
    let mut out = [Square::A1; 3];
    for (slot, sq) in out.iter_mut().zip(set) {
        *slot = sq;
    }
    out
}

fn cell(board: &Board, sq: Square) -> Cell {
    Cell {
        rings: board.stack(sq).collect(),
        ball: board.ball(sq),
    }
}

impl View {
    /// The view of `pos` (with what led to it and how it ended), at the
    /// start of a match under the default turn limit.
    pub fn of(pos: &Position, last: Option<LastTurn>, end: Option<End>) -> View {
        let board = pos.board();
        let player = |c: Color| Player {
            seat: c.seat(),
            color: c,
            supply: board.supply(c),
            home: squares(c.home()),
            goals: squares(c.goals()),
        };
        View {
            position: pos.to_string(),
            board: (0..SIDE as i8)
                .map(|r| {
                    (0..SIDE as i8)
                        .filter_map(|c| Square::at(r, c))
                        .map(|sq| cell(board, sq))
                        .collect()
                })
                .collect(),
            players: [player(Color::Black), player(Color::White)],
            next: end.is_none().then(|| pos.to_move().seat()),
            last,
            end,
            turns: 0,
            max_turns: Some(DEFAULT_MAX_TURNS),
            repeated: Vec::new(),
        }
    }

    /// The view with the state of Parlor's house rules: `turns` played
    /// of `max_turns`, and the positions `repeated` twice.
    pub fn with_house_rules(
        self,
        turns: u16,
        max_turns: Option<u16>,
        repeated: Vec<String>,
    ) -> View {
        View {
            turns,
            max_turns,
            repeated,
            ..self
        }
    }

    /// Turns left before the turn limit draws the match (without a
    /// limit, as many as a count can hold).
    pub fn turns_left(&self) -> u16 {
        self.max_turns
            .map_or(u16::MAX, |m| m.saturating_sub(self.turns))
    }

    /// The position the view shows, read back from its notation.
    pub fn read_position(&self) -> Option<Position> {
        self.position.parse().ok()
    }
}
