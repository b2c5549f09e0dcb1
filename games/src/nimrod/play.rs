//! The move abstraction.

use serde::{Deserialize, Serialize};

/// A move: take `take[0]` rods from the lesser pile and `take[1]` from the
/// greater one. On the wire: `{"take": [x, y]}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    /// Rods taken from pile A (lesser) and pile B (greater).
    pub take: [u64; 2],
}

impl Move {
    /// Take `x` from pile A and `y` from pile B.
    pub fn new(x: u64, y: u64) -> Self {
        Move { take: [x, y] }
    }

    /// Whether the move has a legal shape, whatever the piles: some rods
    /// from exactly one pile, or the same positive number from both.
    /// (Negative counts cannot be represented at all.)
    pub fn is_valid(self) -> bool {
        let [x, y] = self.take;
        (x == 0 && y > 0) || (y == 0 && x > 0) || (x == y && x > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_move_shapes_follow_the_seed() {
        assert!(Move::new(0, 2).is_valid());
        assert!(Move::new(3, 0).is_valid());
        assert!(Move::new(2, 2).is_valid());
        assert!(Move::new(600, 600).is_valid());
        assert!(!Move::new(0, 0).is_valid());
        assert!(!Move::new(3, 4).is_valid());
        // (0, -1) cannot even be decoded.
        assert!(serde_json::from_str::<Move>(r#"{"take":[0,-1]}"#).is_err());
    }
}
