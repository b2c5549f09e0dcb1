//! Blocks: a number and a colour. Every block in a game is unique.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The four colours. `Ord` is alphabetical by name (black < blue < red <
/// yellow), the order Prolog's `sort/2` gives the seed's colour atoms, so
/// that sorting blocks here sorts them exactly as the seed's tests expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Black.
    Black,
    /// Blue.
    Blue,
    /// Red.
    Red,
    /// Yellow.
    Yellow,
}

impl Color {
    /// Every colour, in `Ord` order.
    pub const ALL: [Color; 4] = [Color::Black, Color::Blue, Color::Red, Color::Yellow];

    /// The colour's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::Blue => "blue",
            Color::Red => "red",
            Color::Yellow => "yellow",
        }
    }

    /// 0..4 in `Ord` order, for per-colour arrays and bitmasks.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The numbers of the blocks in a hosted game: 1 to 13, as in the real game.
/// (The seed's predicates accept any integer; so do the analysis tools.)
pub const HOSTED_NUMBERS: std::ops::RangeInclusive<i64> = 1..=13;

/// How many blocks a hosted game is played with: 13 numbers in 4 colours.
pub const HOSTED_SET_SIZE: usize = 52;

/// A block. On the wire: `{"number": 5, "color": "red"}`.
///
/// `Ord` compares the number first, then the colour, as Prolog's `sort/2`
/// orders `block(N, Colour)` terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Block {
    /// Any integer: the seed fixes no range.
    pub number: i64,
    /// The colour.
    pub color: Color,
}

impl Block {
    /// The block `number` of `color`.
    pub const fn new(number: i64, color: Color) -> Self {
        Block { number, color }
    }

    /// The block of the same colour numbered one higher, if that number exists.
    pub fn next(self) -> Option<Block> {
        Some(Block::new(self.number.checked_add(1)?, self.color))
    }

    /// The block of the same colour numbered one lower, if that number exists.
    pub fn prev(self) -> Option<Block> {
        Some(Block::new(self.number.checked_sub(1)?, self.color))
    }

    /// The 52 blocks of a hosted game, sorted.
    pub fn hosted_set() -> Vec<Block> {
        HOSTED_NUMBERS
            .flat_map(|n| Color::ALL.map(|c| Block::new(n, c)))
            .collect()
    }
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color, self.number)
    }
}

/// Formats blocks as `[red 1, red 2]` for messages.
pub(crate) fn list(blocks: &[Block]) -> String {
    let parts: Vec<String> = blocks.iter().map(Block::to_string).collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_sort_like_prolog_terms() {
        let mut v = [
            Block::new(5, Color::Yellow),
            Block::new(5, Color::Red),
            Block::new(4, Color::Yellow),
            Block::new(5, Color::Black),
            Block::new(5, Color::Blue),
        ];
        v.sort();
        let names: Vec<String> = v.iter().map(Block::to_string).collect();
        assert_eq!(
            names,
            ["yellow 4", "black 5", "blue 5", "red 5", "yellow 5"]
        );
    }

    #[test]
    fn json_encoding_follows_the_design() {
        let b = Block::new(5, Color::Red);
        assert_eq!(
            serde_json::to_string(&b).ok().as_deref(),
            Some(r#"{"number":5,"color":"red"}"#)
        );
        let err = serde_json::from_str::<Block>(r#"{"number":5,"color":"green"}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("green") && err.contains("yellow"), "{err}");
        assert!(serde_json::from_str::<Block>(r#"{"number":-7,"color":"blue"}"#).is_ok());
    }

    #[test]
    fn neighbours_stop_at_the_integer_range() {
        assert_eq!(Block::new(i64::MAX, Color::Red).next(), None);
        assert_eq!(Block::new(i64::MIN, Color::Red).prev(), None);
        assert_eq!(
            Block::new(3, Color::Red).next(),
            Some(Block::new(4, Color::Red))
        );
        assert_eq!(Block::hosted_set().len(), HOSTED_SET_SIZE);
    }
}
