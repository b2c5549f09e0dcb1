//! A position: the board and whose turn it is.

use std::fmt;

use super::board::Board;
use super::color::Color;

/// The board and the colour to move: everything the rules need to go on
/// (written and read in the notation of [`notation`](super::notation)).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    to_move: Color,
}

impl Position {
    /// The two-player start, Black to move.
    pub fn initial() -> Position {
        Position {
            board: Board::initial(),
            to_move: Color::Black,
        }
    }

    /// `board` with `to_move` to move. Boards are only built by the rules
    /// and the notation reader, which keep them consistent.
    pub(crate) fn new(board: Board, to_move: Color) -> Position {
        Position { board, to_move }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The colour to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::initial()
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
