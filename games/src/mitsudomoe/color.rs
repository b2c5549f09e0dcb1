//! The two sides, Black and White, and which seat plays which.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::set::SquareSet;
use super::square::Square;
use crate::game::Seat;

/// A player's colour: of its rings and balls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Seat 0: starts on A4, A5, B5 and moves first.
    Black,
    /// Seat 1: starts on D1, E1, E2.
    White,
}

const fn square(row: i8, col: i8) -> Square {
    match Square::at(row, col) {
        Some(s) => s,
        None => Square::A1,
    }
}

/// Black's home: the top-right corner and its two orthogonal neighbours.
const BLACK_HOME: SquareSet = SquareSet::of(&[square(0, 3), square(0, 4), square(1, 4)]);
/// White's home: the bottom-left corner and its two orthogonal neighbours.
const WHITE_HOME: SquareSet = SquareSet::of(&[square(3, 0), square(4, 0), square(4, 1)]);

impl Color {
    /// Both colours, in seat order.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// 0 for Black, 1 for White: index of per-colour arrays.
    pub const fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }

    /// The other colour.
    pub const fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The seat playing this colour.
    pub const fn seat(self) -> Seat {
        Seat(self.index() as u8)
    }

    /// The colour seat `seat` plays, if the seat is at the table.
    pub fn of_seat(seat: Seat) -> Option<Color> {
        Color::ALL.get(seat.index()).copied()
    }

    /// The three squares this colour starts on (a corner and its two
    /// orthogonal neighbours).
    pub const fn home(self) -> SquareSet {
        match self {
            Color::Black => BLACK_HOME,
            Color::White => WHITE_HOME,
        }
    }

    /// The three squares this colour's balls must reach: the home of the
    /// diagonally opposite corner, i.e. the opponent's home.
    pub const fn goals(self) -> SquareSet {
        self.other().home()
    }

    /// The letter of its rings in notation (`b`, `w`); its balls are the
    /// same letter in capitals.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: SquareSet) -> Vec<String> {
        s.into_iter().map(|q| q.to_string()).collect()
    }

    #[test]
    fn homes_and_goals_follow_the_rules_sheet() {
        assert_eq!(names(Color::Black.home()), ["A4", "A5", "B5"]);
        assert_eq!(names(Color::White.home()), ["D1", "E1", "E2"]);
        assert_eq!(Color::Black.goals(), Color::White.home());
        assert_eq!(Color::White.goals(), Color::Black.home());
    }

    #[test]
    fn seats_map_to_colours() {
        assert_eq!(Color::of_seat(Seat(0)), Some(Color::Black));
        assert_eq!(Color::of_seat(Seat(1)), Some(Color::White));
        assert_eq!(Color::of_seat(Seat(2)), None);
        assert_eq!(Color::White.seat(), Seat(1));
        assert_eq!(
            serde_json::to_string(&Color::Black).ok().as_deref(),
            Some("\"black\"")
        );
    }
}
