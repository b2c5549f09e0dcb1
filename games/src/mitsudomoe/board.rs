//! The board: a stack of rings on each square, at most one ball on top,
//! and each colour's supply of rings not yet placed.

use std::fmt;

use super::color::Color;
use super::set::SquareSet;
use super::square::{Square, SQUARES};

/// Rings each player owns (rules sheet: 3 balls and 8 rings each).
pub const RINGS_PER_PLAYER: u8 = 8;

/// Balls each player owns.
pub const BALLS_PER_PLAYER: usize = 3;

/// The tallest possible stack: every ring of both players. The colours
/// of a stack are the bits of a `u16`, which is exactly this wide.
pub const MAX_STACK: u8 = 2 * RINGS_PER_PLAYER;

/// A board position without the turn: what is on each square, and the
/// supplies.
///
/// Kept as bit sets so that move generation copies ~100 bytes and does
/// bit arithmetic: for each square its stack's colours (bit `i` set =
/// the `i`-th ring from the bottom is white) and height; for each colour
/// the squares holding its balls and the squares its rings top. A ball
/// always sits on a ring of its own colour: rings only go where no ball
/// is, and balls only onto their own colour, so the rules keep that true
/// and every constructor here checks it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    rings: [u16; SQUARES],
    heights: [u8; SQUARES],
    balls: [SquareSet; 2],
    tops: [SquareSet; 2],
    supply: [u8; 2],
}

impl Board {
    /// No ring or ball on the board, every ring in supply.
    pub const fn empty() -> Board {
        Board {
            rings: [0; SQUARES],
            heights: [0; SQUARES],
            balls: [SquareSet::EMPTY; 2],
            tops: [SquareSet::EMPTY; 2],
            supply: [RINGS_PER_PLAYER; 2],
        }
    }

    /// The two-player start: each home square holds a ring of its
    /// owner's colour with a ball on it; 5 rings each in supply.
    pub fn initial() -> Board {
        let mut b = Board::empty();
        for c in Color::ALL {
            for sq in c.home() {
                b.push_ring(sq, c);
                b.put_ball(sq, c);
            }
        }
        b
    }

    /// The colour of the top ring on `sq`, if any.
    pub fn top(&self, sq: Square) -> Option<Color> {
        if self.tops[0].contains(sq) {
            Some(Color::Black)
        } else if self.tops[1].contains(sq) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The ball on `sq`, if any.
    pub fn ball(&self, sq: Square) -> Option<Color> {
        if self.balls[0].contains(sq) {
            Some(Color::Black)
        } else if self.balls[1].contains(sq) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// How many rings are stacked on `sq`.
    pub fn height(&self, sq: Square) -> u8 {
        self.heights[sq.index()]
    }

    /// The rings on `sq`, bottom first.
    pub fn stack(&self, sq: Square) -> impl Iterator<Item = Color> {
        let rings = self.rings[sq.index()];
        (0..self.height(sq)).map(move |i| {
            if rings & (1 << i) != 0 {
                Color::White
            } else {
                Color::Black
            }
        })
    }

    /// The squares holding a ball of colour `c`.
    pub fn balls(&self, c: Color) -> SquareSet {
        self.balls[c.index()]
    }

    /// The squares holding any ball.
    pub fn occupied(&self) -> SquareSet {
        self.balls[0] | self.balls[1]
    }

    /// The squares whose top ring is of colour `c` (with or without a ball).
    pub fn tops(&self, c: Color) -> SquareSet {
        self.tops[c.index()]
    }

    /// The rings of colour `c` not yet placed.
    pub fn supply(&self, c: Color) -> u8 {
        self.supply[c.index()]
    }

    /// Puts a ring of colour `c` on top of `sq`. The caller has checked
    /// that a ring of `c` is available: one is taken from the supply
    /// (placing) or was just lifted off the board (moving).
    pub(crate) fn push_ring(&mut self, sq: Square, c: Color) {
        let i = sq.index();
        let h = self.heights[i];
        if h >= MAX_STACK {
            // Unreachable: only 2 * RINGS_PER_PLAYER rings exist.
            return;
        }
        if c == Color::White {
            self.rings[i] |= 1 << h;
        } else {
            self.rings[i] &= !(1 << h);
        }
        self.heights[i] = h + 1;
        self.tops[c.index()].insert(sq);
        self.tops[c.other().index()].remove(sq);
        self.supply[c.index()] = self.supply[c.index()].saturating_sub(1);
    }

    /// Lifts the top ring off `sq` (into the hand, counted as supply
    /// until it is pushed again); `None` if there is no ring.
    pub(crate) fn pop_ring(&mut self, sq: Square) -> Option<Color> {
        let c = self.top(sq)?;
        let i = sq.index();
        let h = self.heights[i] - 1;
        self.heights[i] = h;
        self.rings[i] &= !(1 << h);
        self.tops[c.index()].remove(sq);
        if h > 0 {
            let below = if self.rings[i] & (1 << (h - 1)) != 0 {
                Color::White
            } else {
                Color::Black
            };
            self.tops[below.index()].insert(sq);
        }
        self.supply[c.index()] += 1;
        Some(c)
    }

    /// Places a ring of `c` from its supply on `sq`.
    pub(crate) fn place_ring(&mut self, sq: Square, c: Color) {
        self.push_ring(sq, c);
    }

    /// Moves the top ring of `from` onto `to`.
    pub(crate) fn move_ring(&mut self, from: Square, to: Square) {
        if let Some(c) = self.pop_ring(from) {
            self.push_ring(to, c);
        }
    }

    /// Puts a ball of `c` on `sq`.
    pub(crate) fn put_ball(&mut self, sq: Square, c: Color) {
        self.balls[c.index()].insert(sq);
    }

    /// Takes the ball of `c` off `sq`.
    pub(crate) fn take_ball(&mut self, sq: Square, c: Color) {
        self.balls[c.index()].remove(sq);
    }

    /// Moves a ball of `c` from `from` to `to`.
    pub(crate) fn move_ball(&mut self, from: Square, to: Square, c: Color) {
        self.take_ball(from, c);
        self.put_ball(to, c);
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::notation::board_text(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_start_has_each_home_square_ringed_with_a_ball() {
        let b = Board::initial();
        for c in Color::ALL {
            assert_eq!(b.balls(c), c.home());
            assert_eq!(b.tops(c), c.home());
            assert_eq!(b.supply(c), 5);
        }
        assert_eq!(b.height(sq("C3")), 0);
        assert_eq!(b.stack(sq("A4")).collect::<Vec<_>>(), [Color::Black]);
    }

    #[test]
    fn rings_stack_and_unstack_keeping_tops_and_supplies() {
        let mut b = Board::empty();
        let c3 = sq("C3");
        b.place_ring(c3, Color::Black);
        b.place_ring(c3, Color::White);
        b.place_ring(c3, Color::White);
        assert_eq!(b.height(c3), 3);
        assert_eq!(
            b.stack(c3).collect::<Vec<_>>(),
            [Color::Black, Color::White, Color::White]
        );
        assert_eq!(b.top(c3), Some(Color::White));
        assert_eq!(b.supply(Color::White), 6);
        b.move_ring(c3, sq("A1"));
        assert_eq!(b.top(c3), Some(Color::White));
        b.move_ring(c3, sq("A1"));
        assert_eq!(b.top(c3), Some(Color::Black));
        assert_eq!(b.top(sq("A1")), Some(Color::White));
        assert_eq!(b.height(sq("A1")), 2);
        assert_eq!(b.supply(Color::White), 6);
        b.move_ring(c3, sq("A1"));
        assert_eq!(b.top(c3), None);
        assert_eq!(b.top(sq("A1")), Some(Color::Black));
        assert!(!b.tops(Color::White).contains(sq("A1")));
        assert_eq!(b.pop_ring(c3), None);
    }
}
