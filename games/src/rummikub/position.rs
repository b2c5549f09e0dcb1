//! A two-player position as the seed's predicates take it: both supplies,
//! the table and the bag, with one player to move.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::block::{list, Block};
use super::row::Row;
use super::table::{valid_table, Problem};

/// Most distinct blocks a position may hold (supplies, table and bag
/// together): the search keeps each set of blocks in one 64-bit word, which
/// holds the 52 blocks of a real game with room to spare. Deals big enough
/// to come near it are far beyond exhaustive search anyway.
pub const MAX_BLOCKS: usize = 64;

/// One of the seed's two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// The seed's left player, `P1`, who moves first.
    P1,
    /// The seed's right player, `P2`.
    P2,
}

impl Player {
    /// The other player.
    pub fn other(self) -> Player {
        match self {
            Player::P1 => Player::P2,
            Player::P2 => Player::P1,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::P1 => "p1",
            Player::P2 => "p2",
        })
    }
}

/// Why blocks do not make a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A block is in two places (or twice in one); every block is unique.
    #[error("{block} appears twice: in {first} and in {second}; every block is unique")]
    Duplicate {
        /// The block.
        block: Block,
        /// Where it was first seen.
        first: &'static str,
        /// Where it was seen again.
        second: &'static str,
    },
    /// The table breaks the rules.
    #[error("the table is not valid: {}", problems.iter().map(Problem::to_string).collect::<Vec<_>>().join("; "))]
    Table {
        /// Every broken rule.
        problems: Vec<Problem>,
    },
    /// More blocks than the search can represent.
    #[error("the position holds {count} blocks; at most {MAX_BLOCKS} are supported")]
    TooManyBlocks {
        /// How many blocks it holds.
        count: usize,
    },
}

/// A valid two-player position: supplies, table, bag (drawn from the
/// front) and the player to move. Every block is unique and the table
/// follows the rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    p1: Vec<Block>,
    p2: Vec<Block>,
    table: Vec<Row>,
    bag: Vec<Block>,
    to_move: Player,
}

impl Position {
    /// The position with `p1` to move, checked: no block twice anywhere, a
    /// valid table, at most [`MAX_BLOCKS`] blocks.
    pub fn new(
        p1: Vec<Block>,
        p2: Vec<Block>,
        table: Vec<Row>,
        bag: Vec<Block>,
    ) -> Result<Position, PositionError> {
        let mut seen: BTreeMap<Block, &'static str> = BTreeMap::new();
        let places: [(&'static str, &[Block]); 2] = [("p1's supply", &p1), ("p2's supply", &p2)];
        let table_blocks: Vec<Block> = table.iter().flat_map(|r| r.blocks().to_vec()).collect();
        for (place, blocks) in places.into_iter().chain([
            ("the table", table_blocks.as_slice()),
            ("the bag", bag.as_slice()),
        ]) {
            for &block in blocks {
                if let Some(first) = seen.insert(block, place) {
                    return Err(PositionError::Duplicate {
                        block,
                        first,
                        second: place,
                    });
                }
            }
        }
        let problems = valid_table(&table);
        if !problems.is_empty() {
            return Err(PositionError::Table { problems });
        }
        if seen.len() > MAX_BLOCKS {
            return Err(PositionError::TooManyBlocks { count: seen.len() });
        }
        Ok(Position {
            p1,
            p2,
            table,
            bag,
            to_move: Player::P1,
        })
    }

    /// A deal as `count_wins` takes it: an empty table, P1 to move.
    pub fn deal(
        p1: Vec<Block>,
        p2: Vec<Block>,
        bag: Vec<Block>,
    ) -> Result<Position, PositionError> {
        Position::new(p1, p2, Vec::new(), bag)
    }

    /// The same position with `player` to move.
    pub fn with_to_move(mut self, player: Player) -> Position {
        self.to_move = player;
        self
    }

    /// Whose turn it is.
    pub fn to_move(&self) -> Player {
        self.to_move
    }

    /// A player's supply.
    pub fn supply(&self, player: Player) -> &[Block] {
        match player {
            Player::P1 => &self.p1,
            Player::P2 => &self.p2,
        }
    }

    /// The table.
    pub fn table(&self) -> &[Row] {
        &self.table
    }

    /// The bag, first block first.
    pub fn bag(&self) -> &[Block] {
        &self.bag
    }

    /// Every block in the position, sorted.
    pub fn blocks(&self) -> Vec<Block> {
        let mut v: Vec<Block> = self
            .p1
            .iter()
            .chain(&self.p2)
            .chain(self.table.iter().flat_map(|r| r.blocks()))
            .chain(&self.bag)
            .copied()
            .collect();
        v.sort();
        v
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: Vec<String> = self.table.iter().map(Row::to_string).collect();
        write!(
            f,
            "p1 {}, p2 {}, table [{}], bag {}, {} to move",
            list(&self.p1),
            list(&self.p2),
            rows.join(", "),
            list(&self.bag),
            self.to_move
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::Color::*;
    use super::*;

    #[test]
    fn a_block_in_two_places_is_refused_by_name() {
        let r5 = Block::new(5, Red);
        let err = Position::deal(vec![r5], vec![], vec![r5]).err();
        assert_eq!(
            err,
            Some(PositionError::Duplicate {
                block: r5,
                first: "p1's supply",
                second: "the bag"
            })
        );
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("red 5") && msg.contains("the bag"), "{msg}");
    }

    #[test]
    fn an_invalid_table_or_too_many_blocks_is_refused() {
        let short = Row::Crow(vec![Block::new(1, Red)]);
        assert!(matches!(
            Position::new(vec![], vec![], vec![short], vec![]),
            Err(PositionError::Table { .. })
        ));
        let many: Vec<Block> = (0..=MAX_BLOCKS as i64)
            .map(|n| Block::new(n, Blue))
            .collect();
        assert_eq!(
            Position::deal(many, vec![], vec![]).err(),
            Some(PositionError::TooManyBlocks {
                count: MAX_BLOCKS + 1
            })
        );
    }
}
