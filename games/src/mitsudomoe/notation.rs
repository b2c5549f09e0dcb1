//! Text forms: a position in one line (like chess's FEN) and a turn in
//! a few tokens, used by tests, tools and the terminal client.
//!
//! **Position**: the five rows A to E, top first, separated by `/`; each
//! row is five cells (columns 1 to 5) separated by `,`; a cell is `.`
//! when empty, else its rings from the bottom up (`b` black, `w` white)
//! and then its ball, if any, in capitals (`B`, `W`). After a space, the
//! colour to move (`b` or `w`). The supplies are not written: each player
//! owns 8 rings, and the ones not on the board are in supply. The start:
//!
//! ```text
//! .,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b
//! ```
//!
//! **Turn**: the ring step, the ball step, then one token per relocation,
//! separated by spaces: `+C3` places a ring from supply on C3, `B3-C3`
//! moves the ring on top of B3 to C3; `A4-B4` moves the ball (a step or
//! a vault, told apart by the distance); `xB4-E5` relocates the jumped
//! ball on B4 to E5. Squares are read in either case. For example
//! `+B4 A5-C3 xB4-E2`, or `A3-B3 A4-B3`.

use std::fmt;
use std::str::FromStr;

use super::board::{Board, BALLS_PER_PLAYER, RINGS_PER_PLAYER};
use super::color::Color;
use super::position::Position;
use super::relocation::{Relocation, Relocations, MAX_JUMPED};
use super::square::{BadSquare, Square, ECHOED_CHARS, SIDE};
use super::turn::{BallStep, Move, RingStep};

/// Why a position or a turn could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not a board and a colour separated by one space.
    #[error("a position is the board, a space, and the colour to move (b or w)")]
    Shape,
    /// The colour to move is not `b` or `w`.
    #[error("the colour to move must be b or w, not {0:?}")]
    ToMove(String),
    /// Not five rows.
    #[error("the board has {0} rows separated by '/'; it needs 5 (A to E)")]
    Rows(usize),
    /// A row without five cells.
    #[error("row {row} has {cells} cells separated by ','; it needs 5")]
    Cells {
        /// The row's letter.
        row: char,
        /// How many cells it has.
        cells: usize,
    },
    /// A cell that is not `.` or rings then an optional ball.
    #[error("cell {square} is {text:?}: write '.', or rings b/w from the bottom up then an optional ball B/W")]
    Cell {
        /// The cell's square.
        square: Square,
        /// What it says.
        text: String,
    },
    /// A ball that does not sit on a ring of its own colour.
    #[error("the ball on {0} does not sit on a ring of its colour")]
    BallOffItsRing(Square),
    /// More rings of one colour than a player owns.
    #[error("{0} has more than {RINGS_PER_PLAYER} rings on the board, all a player owns")]
    TooManyRings(Color),
    /// Not three balls of one colour.
    #[error("{color} has {count} balls on the board; it needs {BALLS_PER_PLAYER}")]
    Balls {
        /// The colour.
        color: Color,
        /// Balls of that colour on the board.
        count: usize,
    },
    /// A turn without its ring step and ball step.
    #[error(
        "a turn is a ring step (+C3 or B3-C3), a ball step (A4-B4), then any relocations (xB4-E5)"
    )]
    TurnShape,
    /// A token that is not a step.
    #[error("{0:?} is not a step: write two squares joined by '-', like A4-B4")]
    Step(String),
    /// A relocation token without its `x`.
    #[error("{0:?} is not a relocation: write x, the jumped ball's square, '-', its new square, like xB4-E5")]
    Relocation(String),
    /// More relocations than balls a vault can jump.
    #[error("at most {MAX_JUMPED} balls can be jumped, so at most {MAX_JUMPED} relocations")]
    TooManyRelocations,
    /// A square's name.
    #[error(transparent)]
    Square(#[from] BadSquare),
}

/// Longest cell text read: every ring of both players and a ball.
const MAX_CELL: usize = 2 * RINGS_PER_PLAYER as usize + 1;

fn read_cell(sq: Square, text: &str, board: &mut Board) -> Result<(), NotationError> {
    let bad = || NotationError::Cell {
        square: sq,
        text: text.chars().take(MAX_CELL + 1).collect(),
    };
    if text == "." {
        return Ok(());
    }
    if text.is_empty() || text.len() > MAX_CELL {
        return Err(bad());
    }
    let (rings, ball) = match text.as_bytes()[text.len() - 1] {
        b'B' => (&text[..text.len() - 1], Some(Color::Black)),
        b'W' => (&text[..text.len() - 1], Some(Color::White)),
        _ => (text, None),
    };
    for r in rings.bytes() {
        let c = match r {
            b'b' => Color::Black,
            b'w' => Color::White,
            _ => return Err(bad()),
        };
        if board.supply(c) == 0 {
            return Err(NotationError::TooManyRings(c));
        }
        board.place_ring(sq, c);
    }
    if let Some(c) = ball {
        if board.top(sq) != Some(c) {
            return Err(NotationError::BallOffItsRing(sq));
        }
        board.put_ball(sq, c);
    }
    Ok(())
}

/// Reads a board in the notation (without the colour to move).
pub fn read_board(text: &str) -> Result<Board, NotationError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != usize::from(SIDE) {
        return Err(NotationError::Rows(rows.len()));
    }
    let mut board = Board::empty();
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row.split(',').collect();
        if cells.len() != usize::from(SIDE) {
            return Err(NotationError::Cells {
                row: char::from(b'A' + r as u8),
                cells: cells.len(),
            });
        }
        for (c, cell) in cells.iter().enumerate() {
            if let Some(sq) = Square::at(r as i8, c as i8) {
                read_cell(sq, cell, &mut board)?;
            }
        }
    }
    for c in Color::ALL {
        let count = board.balls(c).len();
        if count != BALLS_PER_PLAYER {
            return Err(NotationError::Balls { color: c, count });
        }
    }
    Ok(board)
}

/// The board in the notation (without the colour to move).
pub fn board_text(board: &Board) -> String {
    let mut s = String::new();
    for sq in Square::all() {
        if sq.col() == 0 && sq.row() > 0 {
            s.push('/');
        } else if sq.col() > 0 {
            s.push(',');
        }
        if board.height(sq) == 0 {
            s.push('.');
        }
        s.extend(board.stack(sq).map(Color::letter));
        if let Some(b) = board.ball(sq) {
            s.push(b.letter().to_ascii_uppercase());
        }
    }
    s
}

impl FromStr for Position {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.split_whitespace();
        let (Some(board), Some(side), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(NotationError::Shape);
        };
        let to_move = match side {
            "b" => Color::Black,
            "w" => Color::White,
            other => {
                return Err(NotationError::ToMove(
                    other.chars().take(ECHOED_CHARS).collect(),
                ))
            }
        };
        Ok(Position::new(read_board(board)?, to_move))
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            board_text(self.board()),
            self.to_move().letter()
        )
    }
}

fn read_step(token: &str) -> Result<(Square, Square), NotationError> {
    let (a, b) = token
        .split_once('-')
        .ok_or_else(|| NotationError::Step(token.chars().take(ECHOED_CHARS).collect()))?;
    Ok((a.parse()?, b.parse()?))
}

impl FromStr for Move {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut tokens = s.split_whitespace();
        let (Some(ring), Some(ball)) = (tokens.next(), tokens.next()) else {
            return Err(NotationError::TurnShape);
        };
        let ring = match ring.strip_prefix('+') {
            Some(to) => RingStep {
                from: None,
                to: to.parse()?,
            },
            None => {
                let (from, to) = read_step(ring)?;
                RingStep {
                    from: Some(from),
                    to,
                }
            }
        };
        let (from, to) = read_step(ball)?;
        let mut list = Vec::new();
        for t in tokens {
            let step = t
                .strip_prefix('x')
                .or_else(|| t.strip_prefix('X'))
                .ok_or_else(|| NotationError::Relocation(t.chars().take(ECHOED_CHARS).collect()))?;
            let (from, to) = read_step(step)?;
            list.push(Relocation { from, to });
            if list.len() > MAX_JUMPED {
                return Err(NotationError::TooManyRelocations);
            }
        }
        Ok(Move {
            ring,
            ball: BallStep { from, to },
            relocate: Relocations::new(&list).ok_or(NotationError::TooManyRelocations)?,
        })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ring.from {
            None => write!(f, "+{}", self.ring.to)?,
            Some(from) => write!(f, "{from}-{}", self.ring.to)?,
        }
        write!(f, " {}-{}", self.ball.from, self.ball.to)?;
        for r in self.relocate.as_slice() {
            write!(f, " x{}-{}", r.from, r.to)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start, as the module documentation gives it.
    const START: &str = ".,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b";

    #[test]
    fn the_start_reads_and_writes_as_documented() {
        assert_eq!(Position::initial().to_string(), START);
        assert_eq!(START.parse::<Position>(), Ok(Position::initial()));
    }

    #[test]
    fn stacks_read_bottom_up() {
        let text = "bwb,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. w";
        let p: Position = text.parse().unwrap_or_else(|e| panic!("{e}"));
        let a1 = Square::A1;
        assert_eq!(p.board().height(a1), 3);
        assert_eq!(
            p.board().stack(a1).collect::<Vec<_>>(),
            [Color::Black, Color::White, Color::Black]
        );
        assert_eq!(p.board().ball(a1), None);
        assert_eq!(p.to_move(), Color::White);
        assert_eq!(p.to_string(), text);
        assert_eq!(p.board().supply(Color::Black), 3);
        assert_eq!(p.board().supply(Color::White), 4);
    }

    #[test]
    fn bad_positions_say_why() {
        let cases = [
            ("", NotationError::Shape),
            (
                ".,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. x",
                NotationError::ToMove("x".into()),
            ),
            (".,.,.,bB,bB/.,.,.,.,bB b", NotationError::Rows(2)),
            (
                ".,.,.,bB,bB/.,.,.,.,bB/.,.,.,./wW,.,.,.,./wW,wW,.,.,. b",
                NotationError::Cells { row: 'C', cells: 4 },
            ),
            (
                ".,.,.,bW,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b",
                NotationError::BallOffItsRing(Square::at(0, 3).unwrap_or(Square::A1)),
            ),
            (
                ".,.,.,bB,bB/.,.,.,.,b/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b",
                NotationError::Balls {
                    color: Color::Black,
                    count: 2,
                },
            ),
            (
                "bbbbbbbbb,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b",
                NotationError::TooManyRings(Color::Black),
            ),
        ];
        for (text, why) in cases {
            assert_eq!(text.parse::<Position>(), Err(why), "{text}");
        }
        assert!(matches!(
            ".,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,q,.,./wW,wW,.,.,. b".parse::<Position>(),
            Err(NotationError::Cell { .. })
        ));
    }

    #[test]
    fn turns_read_and_write() {
        for text in [
            "+C3 A4-C3",
            "B3-C3 A5-A3",
            "+B4 B5-B3 xB4-D3",
            "A1-A2 C1-A3 xB2-E5 xB1-B2",
        ] {
            let m: Move = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(m.to_string(), text);
        }
        let m: Move = "  +c3   a4-c3 ".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.to_string(), "+C3 A4-C3");
        assert_eq!(m.ring.from, None);
        assert_eq!("+C3".parse::<Move>(), Err(NotationError::TurnShape));
        assert!(matches!(
            "+C3 A4C3".parse::<Move>(),
            Err(NotationError::Step(_))
        ));
        assert!(matches!(
            "+C3 A4-C3 B4-E5".parse::<Move>(),
            Err(NotationError::Relocation(_))
        ));
        assert!(matches!(
            "+C9 A4-C3".parse::<Move>(),
            Err(NotationError::Square(_))
        ));
        assert_eq!(
            "+C3 A4-C3 xA1-A2 xA1-A2 xA1-A2 xA1-A2".parse::<Move>(),
            Err(NotationError::TooManyRelocations)
        );
    }
}
