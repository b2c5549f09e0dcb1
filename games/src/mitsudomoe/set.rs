//! Sets of squares as 25-bit masks: the board's balls, ring tops and
//! targets, so that move generation is bit arithmetic, not allocation.

use std::fmt;
use std::ops::{BitAnd, BitOr, Not};

use super::square::{Square, SQUARES};

/// A set of squares; iterates in square order (A1 first).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SquareSet(u32);

/// Every square of the board.
const ALL_BITS: u32 = (1 << SQUARES) - 1;

impl SquareSet {
    /// No square.
    pub const EMPTY: SquareSet = SquareSet(0);
    /// Every square.
    pub const ALL: SquareSet = SquareSet(ALL_BITS);

    /// Just `sq`.
    pub const fn single(sq: Square) -> SquareSet {
        SquareSet(1 << sq.index())
    }

    /// The set of these squares.
    pub const fn of(squares: &[Square]) -> SquareSet {
        let mut bits = 0;
        let mut i = 0;
        while i < squares.len() {
            bits |= 1 << squares[i].index();
            i += 1;
        }
        SquareSet(bits)
    }

    /// Whether `sq` is in the set.
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// Adds `sq`.
    pub fn insert(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }

    /// Removes `sq`.
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }

    /// `self` without `sq`.
    pub const fn without(self, sq: Square) -> SquareSet {
        SquareSet(self.0 & !(1 << sq.index()))
    }

    /// `self` and `sq`.
    pub const fn with(self, sq: Square) -> SquareSet {
        SquareSet(self.0 | (1 << sq.index()))
    }

    /// How many squares.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every square of `other` is in `self`.
    pub const fn is_superset(self, other: SquareSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// The first square (in square order), if any.
    pub fn first(self) -> Option<Square> {
        Square::from_index(self.0.trailing_zeros() as usize)
    }
}

impl BitOr for SquareSet {
    type Output = SquareSet;
    fn bitor(self, rhs: SquareSet) -> SquareSet {
        SquareSet(self.0 | rhs.0)
    }
}

impl BitAnd for SquareSet {
    type Output = SquareSet;
    fn bitand(self, rhs: SquareSet) -> SquareSet {
        SquareSet(self.0 & rhs.0)
    }
}

impl Not for SquareSet {
    type Output = SquareSet;
    /// The squares of the board not in the set.
    fn not(self) -> SquareSet {
        SquareSet(!self.0 & ALL_BITS)
    }
}

/// The squares of a set, in order.
#[derive(Clone, Copy, Debug)]
pub struct Squares(u32);

impl Iterator for Squares {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Square::from_index(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl IntoIterator for SquareSet {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        let mut s = SquareSet::EMPTY;
        for sq in iter {
            s.insert(sq);
        }
        s
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn sets_iterate_in_square_order_and_complement_within_the_board() {
        let s: SquareSet = [sq("E5"), sq("A1"), sq("C3")].into_iter().collect();
        let listed: Vec<String> = s.into_iter().map(|q| q.to_string()).collect();
        assert_eq!(listed, ["A1", "C3", "E5"]);
        assert_eq!(s.len(), 3);
        assert_eq!((!s).len(), SQUARES - 3);
        assert!(!(!s).contains(sq("C3")));
        assert_eq!(!SquareSet::ALL, SquareSet::EMPTY);
        assert_eq!(s.without(sq("A1")).first(), Some(sq("C3")));
        assert_eq!(SquareSet::EMPTY.first(), None);
        assert!(s.is_superset(SquareSet::single(sq("E5"))));
    }
}
