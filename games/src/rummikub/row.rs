//! Rows: a run of one number in different colours (`crow`) or of one colour
//! in consecutive numbers (`nrow`).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::block::{list, Block};

/// The shortest row the table accepts.
pub const MIN_ROW: usize = 3;

/// A row on the table. On the wire `{"crow": [blocks]}` or `{"nrow": [blocks]}`.
///
/// A value of this type need not follow the rules (tables arrive from
/// people); [`super::valid_table`] says which rules it breaks.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Row {
    /// Same number, all colours different (the seed's "colour row"). Its
    /// order does not matter to validity; rows built by actions are sorted.
    Crow(Vec<Block>),
    /// Same colour, consecutive numbers, ascending (the seed's "number row").
    Nrow(Vec<Block>),
}

/// The two kinds of row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowKind {
    /// A [`Row::Crow`].
    Crow,
    /// A [`Row::Nrow`].
    Nrow,
}

impl fmt::Display for RowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RowKind::Crow => "crow",
            RowKind::Nrow => "nrow",
        })
    }
}

impl Row {
    /// A crow of `blocks`, sorted as the seed's `sort/2` sorts it.
    pub fn crow(mut blocks: Vec<Block>) -> Row {
        blocks.sort();
        Row::Crow(blocks)
    }

    /// Which kind of row this is.
    pub fn kind(&self) -> RowKind {
        match self {
            Row::Crow(_) => RowKind::Crow,
            Row::Nrow(_) => RowKind::Nrow,
        }
    }

    /// The blocks, in the order given.
    pub fn blocks(&self) -> &[Block] {
        match self {
            Row::Crow(b) | Row::Nrow(b) => b,
        }
    }

    /// How many blocks the row holds.
    pub fn len(&self) -> usize {
        self.blocks().len()
    }

    /// Whether the row holds no block.
    pub fn is_empty(&self) -> bool {
        self.blocks().is_empty()
    }

    /// Whether `block` is in the row.
    pub fn contains(&self, block: Block) -> bool {
        self.blocks().contains(&block)
    }

    /// The row in canonical form: a crow sorted, an nrow as it is (its order
    /// is part of its validity). Two rows holding the same blocks as the same
    /// kind are equal once normalised, when valid.
    pub fn normalised(&self) -> Row {
        match self {
            Row::Crow(b) => Row::crow(b.clone()),
            Row::Nrow(b) => Row::Nrow(b.clone()),
        }
    }

    /// The rows that adding `block` to this one may give under the seed's
    /// rules, without checking that the result is valid: into a crow
    /// (re-sorted), or at either end of an nrow.
    pub fn extensions(&self, block: Block) -> Vec<Row> {
        match self {
            Row::Crow(b) => {
                let mut v = b.clone();
                v.push(block);
                vec![Row::crow(v)]
            }
            Row::Nrow(b) => {
                let mut front = Vec::with_capacity(b.len() + 1);
                front.push(block);
                front.extend_from_slice(b);
                let mut back = b.clone();
                back.push(block);
                vec![Row::Nrow(front), Row::Nrow(back)]
            }
        }
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind(), list(self.blocks()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::Color::*;
    use super::*;

    #[test]
    fn rows_encode_as_the_design_says() {
        let r = Row::Nrow(vec![Block::new(1, Red), Block::new(2, Red)]);
        assert_eq!(
            serde_json::to_string(&r).ok().as_deref(),
            Some(r#"{"nrow":[{"number":1,"color":"red"},{"number":2,"color":"red"}]}"#)
        );
        assert!(serde_json::from_str::<Row>(r#"{"xrow":[]}"#).is_err());
        assert_eq!(r.to_string(), "nrow [red 1, red 2]");
    }

    #[test]
    fn a_crow_is_sorted_and_an_nrow_grows_at_both_ends() {
        let c = Row::crow(vec![Block::new(5, Red), Block::new(5, Black)]);
        assert_eq!(
            c.extensions(Block::new(5, Blue)),
            vec![Row::Crow(vec![
                Block::new(5, Black),
                Block::new(5, Blue),
                Block::new(5, Red)
            ])]
        );
        let n = Row::Nrow(vec![Block::new(2, Red), Block::new(3, Red)]);
        let ext = n.extensions(Block::new(4, Red));
        assert_eq!(ext.len(), 2);
        assert_eq!(ext[1].blocks().last(), Some(&Block::new(4, Red)));
    }
}
