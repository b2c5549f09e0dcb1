//! The piles abstraction: two counts, kept as (lesser, greater).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::play::Move;

/// The largest pile Parlor accepts. Lose positions are tested in integer
/// arithmetic on `5 * k^2` with `k` up to this size, which must fit in a
/// `u128`; 10^18 leaves that with room to spare.
pub const MAX_PILE: u64 = 1_000_000_000_000_000_000;

/// Which of the two piles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pile {
    /// The lesser pile (the seed's `pile-a`).
    A,
    /// The greater pile (the seed's `pile-b`).
    B,
}

/// Why two counts are not valid piles.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PilesError {
    /// A pile is larger than [`MAX_PILE`].
    #[error("a pile may hold at most {MAX_PILE} rods, not {0}")]
    TooLarge(u64),
}

/// Two piles of rods, normalised so that `a() <= b()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piles {
    a: u64,
    b: u64,
}

impl Piles {
    /// The piles holding `x` and `y` rods, in either order.
    pub fn new(x: u64, y: u64) -> Result<Self, PilesError> {
        if let Some(&big) = [x, y].iter().find(|&&n| n > MAX_PILE) {
            return Err(PilesError::TooLarge(big));
        }
        Ok(Piles {
            a: x.min(y),
            b: x.max(y),
        })
    }

    /// The lesser pile.
    pub fn a(self) -> u64 {
        self.a
    }

    /// The greater pile.
    pub fn b(self) -> u64 {
        self.b
    }

    /// Whether both piles are empty.
    pub fn is_empty(self) -> bool {
        self.b == 0
    }

    /// The piles after taking `mv`, or `None` when a pile has too few rods
    /// (the shape of the move is checked by [`Move::is_valid`]).
    pub fn after(self, mv: Move) -> Option<Piles> {
        let [x, y] = mv.take;
        Some(Piles::normalised(
            self.a.checked_sub(x)?,
            self.b.checked_sub(y)?,
        ))
    }

    /// Builds piles from counts already known to be within [`MAX_PILE`].
    pub(super) fn normalised(x: u64, y: u64) -> Piles {
        Piles {
            a: x.min(y),
            b: x.max(y),
        }
    }

    /// How many legal moves there are from here: `a` from pile A, `b` from
    /// pile B and `a` from both.
    pub fn move_count(self) -> u128 {
        2 * u128::from(self.a) + u128::from(self.b)
    }

    /// The `i`-th legal move in the order of [`Piles::moves`], for
    /// `i < move_count()`.
    pub fn nth_move(self, i: u128) -> Option<Move> {
        let (a, b) = (u128::from(self.a), u128::from(self.b));
        let (from, k) = if i < a {
            (Some(Pile::A), i)
        } else if i < a + b {
            (Some(Pile::B), i - a)
        } else if i < 2 * a + b {
            (None, i - a - b)
        } else {
            return None;
        };
        let n = u64::try_from(k + 1).ok()?;
        Some(match from {
            Some(Pile::A) => Move::new(n, 0),
            Some(Pile::B) => Move::new(0, n),
            None => Move::new(n, n),
        })
    }

    /// Every legal move: from pile A, then from pile B, then from both,
    /// each by increasing count.
    pub fn moves(self) -> impl Iterator<Item = Move> {
        let (a, b) = (self.a, self.b);
        (1..=a)
            .map(|n| Move { take: [n, 0] })
            .chain((1..=b).map(|n| Move { take: [0, n] }))
            .chain((1..=a).map(|n| Move { take: [n, n] }))
    }
}

impl Serialize for Piles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.a, self.b].serialize(s)
    }
}

impl<'de> Deserialize<'de> for Piles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let [x, y] = <[u64; 2]>::deserialize(d)?;
        Piles::new(x, y).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_piles_keeps_lesser_first() {
        let p = Piles::new(9, 5).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((p.a(), p.b()), (5, 9));
    }

    #[test]
    fn piles_beyond_the_limit_are_refused() {
        assert_eq!(
            Piles::new(MAX_PILE + 1, 0),
            Err(PilesError::TooLarge(MAX_PILE + 1))
        );
        assert!(serde_json::from_str::<Piles>("[-1, 3]").is_err());
    }

    #[test]
    fn nth_move_enumerates_exactly_the_legal_moves() {
        for (x, y) in [(0, 0), (0, 4), (3, 5), (6, 6)] {
            let p = Piles::new(x, y).unwrap_or_else(|e| panic!("{e}"));
            let listed: Vec<Move> = p.moves().collect();
            let indexed: Vec<Move> = (0..p.move_count()).filter_map(|i| p.nth_move(i)).collect();
            assert_eq!(listed, indexed);
            assert_eq!(listed.len() as u128, p.move_count());
            assert_eq!(p.nth_move(p.move_count()), None);
            assert!(listed.iter().all(|m| m.is_valid() && p.after(*m).is_some()));
        }
    }
}
