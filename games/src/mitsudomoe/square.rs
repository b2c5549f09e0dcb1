//! The 25 squares, `A1` to `E5`: rows A-E from top to bottom, columns 1-5
//! from left to right.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Squares along a side of the board.
pub const SIDE: u8 = 5;

/// Squares on the board.
pub const SQUARES: usize = (SIDE as usize) * (SIDE as usize);

/// One square of the board. On the wire and in notation: `"A1"` ..
/// `"E5"` (read in either case, written in capitals).
///
/// Squares are numbered row by row, `A1` = 0, `A5` = 4, `B1` = 5, ...,
/// `E5` = 24; that number orders them everywhere (legal-move lists,
/// relocation lists).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// A1, the first square in square order.
    pub const A1: Square = Square(0);

    /// The square in `row` (0 = A) and `col` (0 = column 1), if on the board.
    pub const fn at(row: i8, col: i8) -> Option<Square> {
        if row < 0 || col < 0 || row >= SIDE as i8 || col >= SIDE as i8 {
            None
        } else {
            Some(Square(row as u8 * SIDE + col as u8))
        }
    }

    /// The square numbered `i` (0 = A1, 24 = E5), if there is one.
    pub const fn from_index(i: usize) -> Option<Square> {
        if i < SQUARES {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// Its number, 0 (A1) to 24 (E5).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Its row, 0 (A) to 4 (E).
    pub const fn row(self) -> i8 {
        (self.0 / SIDE) as i8
    }

    /// Its column, 0 (column 1) to 4 (column 5).
    pub const fn col(self) -> i8 {
        (self.0 % SIDE) as i8
    }

    /// Every square, A1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    /// Kings' distance: the fewest one-square steps (in any of the 8
    /// directions) from `self` to `other`.
    pub fn distance(self, other: Square) -> u8 {
        let dr = (self.row() - other.row()).unsigned_abs();
        let dc = (self.col() - other.col()).unsigned_abs();
        dr.max(dc)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = char::from(b'A' + self.row() as u8);
        write!(f, "{row}{}", self.col() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Characters of unreadable input quoted back in an error: enough to
/// recognise what was typed, few enough that a huge input still makes a
/// short message.
pub const ECHOED_CHARS: usize = 16;

/// Text that is not a square.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a square (A1 to E5: a row letter A-E, then a column 1-5)")]
pub struct BadSquare(pub String);

impl FromStr for Square {
    type Err = BadSquare;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadSquare(s.chars().take(ECHOED_CHARS).collect());
        let &[r, c] = s.as_bytes() else {
            return Err(bad());
        };
        let row = r.to_ascii_uppercase().wrapping_sub(b'A');
        let col = c.wrapping_sub(b'1');
        // Out-of-range bytes wrap to large numbers, which `at` refuses.
        Square::at(row.min(SIDE) as i8, col.min(SIDE) as i8).ok_or_else(bad)
    }
}

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_board_order() {
        let names: Vec<String> = Square::all().map(|s| s.to_string()).collect();
        assert_eq!(names[0], "A1");
        assert_eq!(names[4], "A5");
        assert_eq!(names[5], "B1");
        assert_eq!(names[24], "E5");
        for (i, n) in names.iter().enumerate() {
            assert_eq!(n.parse::<Square>().map(Square::index), Ok(i));
            assert_eq!(n.to_lowercase().parse::<Square>().map(Square::index), Ok(i));
        }
    }

    #[test]
    fn off_board_names_are_refused() {
        for bad in ["", "A", "A0", "A6", "F1", "a10", "11", "AA", "é1", "A1 "] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?}");
        }
        assert!(serde_json::from_str::<Square>("\"Z9\"").is_err());
        assert_eq!(
            serde_json::from_str::<Square>("\"c3\"")
                .map(|s| s.to_string())
                .ok(),
            Some("C3".to_owned())
        );
    }

    #[test]
    fn distance_counts_king_steps() {
        let sq = |s: &str| s.parse::<Square>().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sq("A1").distance(sq("E5")), 4);
        assert_eq!(sq("C3").distance(sq("D4")), 1);
        assert_eq!(sq("A5").distance(sq("E2")), 4);
        assert_eq!(sq("B2").distance(sq("B2")), 0);
    }
}
