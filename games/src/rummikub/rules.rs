//! Legal actions from a rack and a table, and why a proposed move is refused.
//!
//! This is the list-based rule book that the hosted game, the bots and the
//! replay tool use. The search in [`super::engine`] has its own bitset
//! version of the same rules, checked against this one in tests.

use std::collections::BTreeSet;

use serde::Serialize;

use super::action::Move;
use super::block::Block;
use super::empty_bag::EmptyBag;
use super::row::Row;
use super::table::{valid_table, Problem};
use crate::game::Seat;

/// How many blocks a new row takes from the rack: the seed lays rows of
/// exactly three, one action per turn.
pub const NEW_ROW: usize = 3;

/// Every play (`playrow` and `playblock`, never `draw`) open to a player
/// holding `rack` at `table`, sorted and without repetitions: the same
/// three blocks picked in another order are one play. Rows laid are in the
/// seed's form: a crow sorted, an nrow ascending.
pub fn plays(rack: &[Block], table: &[Row]) -> Vec<Move> {
    let held: BTreeSet<Block> = rack.iter().copied().collect();
    let mut out = Vec::new();
    // New crows: three blocks of one number. Blocks are unique, so blocks of
    // one number in a rack differ in colour; a number has at most four.
    let sorted: Vec<Block> = held.iter().copied().collect();
    for group in sorted.chunk_by(|a, b| a.number == b.number) {
        for i in 0..group.len() {
            for j in i + 1..group.len() {
                for k in j + 1..group.len() {
                    out.push(Move::PlayRow(Row::Crow(vec![group[i], group[j], group[k]])));
                }
            }
        }
    }
    // New nrows: a block and its next two of the same colour.
    for &a in &sorted {
        let Some(b) = a.next().filter(|b| held.contains(b)) else {
            continue;
        };
        if let Some(c) = b.next().filter(|c| held.contains(c)) {
            out.push(Move::PlayRow(Row::Nrow(vec![a, b, c])));
        }
    }
    // Extensions of rows on the table. Only blocks that could fit (the
    // crow's number; the nrow's colour, next to an end) are tried in full.
    for row in table {
        let (Some(first), Some(last)) = (row.blocks().first(), row.blocks().last()) else {
            continue;
        };
        let fits = |b: &Block| match row {
            Row::Crow(_) => b.number == first.number,
            Row::Nrow(_) => {
                b.color == first.color
                    && (b.next().is_some_and(|n| n.number == first.number)
                        || last.next().is_some_and(|n| n.number == b.number))
            }
        };
        for &b in sorted.iter().filter(|b| fits(b)) {
            for ext in row.extensions(b) {
                if valid_table(std::slice::from_ref(&ext)).is_empty() {
                    out.push(Move::PlayBlock { block: b, row: ext });
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every legal move: the plays, or `draw` when there is none.
pub fn legal_moves(rack: &[Block], table: &[Row]) -> Vec<Move> {
    let p = plays(rack, table);
    if p.is_empty() {
        vec![Move::Draw]
    } else {
        p
    }
}

/// Every legal move in a hosted room with `bag` blocks left and the
/// `empty_bag` rule `rule`: the plays; else `pass` when the bag is empty
/// and the room passes; else `draw`. (With [`EmptyBag::End`] a stuck
/// player before an empty bag has ended the game, so no one is asked.)
pub fn hosted_moves(rack: &[Block], table: &[Row], bag: usize, rule: EmptyBag) -> Vec<Move> {
    let p = plays(rack, table);
    match (p.is_empty(), bag, rule) {
        (false, _, _) => p,
        (true, 0, EmptyBag::Pass) => vec![Move::Pass],
        (true, _, _) => vec![Move::Draw],
    }
}

/// What an accepted move does to the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Lay this new row.
    Add(Row),
    /// Replace the row at `index` with `row`, one block longer.
    Replace {
        /// Which row of the table.
        index: usize,
        /// The row it becomes.
        row: Row,
    },
    /// Draw a block.
    Draw,
    /// Nothing: the player passes (rooms with `empty_bag: "pass"`).
    Pass,
}

impl Change {
    /// Applies the change to `rack` and `table` (`drawn` is the block a draw
    /// takes; `None` leaves the rack as it is).
    pub fn apply(
        &self,
        mv: &Move,
        rack: &mut Vec<Block>,
        table: &mut Vec<Row>,
        drawn: Option<Block>,
    ) {
        let laid: &[Block] = match mv {
            Move::PlayRow(r) => r.blocks(),
            Move::PlayBlock { block, .. } => std::slice::from_ref(block),
            Move::Draw | Move::Pass => &[],
        };
        rack.retain(|b| !laid.contains(b));
        match self {
            Change::Add(row) => table.push(row.clone()),
            Change::Replace { index, row } => {
                if let Some(slot) = table.get_mut(*index) {
                    *slot = row.clone();
                }
            }
            Change::Draw => {
                if let Some(b) = drawn {
                    rack.push(b);
                    rack.sort();
                }
            }
            Change::Pass => {}
        }
    }
}

/// Why a move is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Illegal {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Another seat is to move.
    #[error("it is not {seat}'s turn")]
    NotYourTurn {
        /// The seat that tried to move.
        seat: Seat,
    },
    /// The move lays a block the player does not hold.
    #[error("{block} is not in your rack")]
    NotInRack {
        /// The block.
        block: Block,
    },
    /// A new row must take exactly [`NEW_ROW`] blocks.
    #[error("a new row is exactly {NEW_ROW} blocks from your rack, not {len}")]
    RowLength {
        /// How many blocks the row had.
        len: usize,
    },
    /// The row the move makes breaks the table's rules.
    #[error("that row breaks the rules: {}", messages(.problems))]
    BrokenRow {
        /// Every rule broken (row 0 being the row the move makes).
        problems: Vec<Problem>,
    },
    /// A `playblock` whose row does not hold the block laid.
    #[error("the row of a playblock must hold the block laid ({block})")]
    BlockNotInRow {
        /// The block laid.
        block: Block,
    },
    /// A `playblock` whose row is not a row of the table plus the block,
    /// at an end of an nrow or anywhere in a crow.
    #[error("{row} is not a row of the table with {block} added (at either end of an nrow, or into a crow)")]
    NotAnExtension {
        /// The block laid.
        block: Block,
        /// The row proposed.
        row: Row,
    },
    /// A draw while a play exists: the seed allows drawing only when stuck.
    #[error("you may draw only when you cannot play, and you can: {example}")]
    MustPlay {
        /// One play that is open.
        example: Move,
    },
    /// A pass in a room without the option `empty_bag: "pass"`.
    #[error("there is no passing in this room: when a player must draw from an empty bag the game ends drawn (the room option empty_bag \"pass\" allows passing)")]
    NoPassing,
    /// A pass while a move is open: one may pass only when the bag is
    /// empty and nothing can be laid.
    #[error("you may pass only when the bag is empty and you cannot play, and you can: {example}")]
    CannotPass {
        /// One move that is open.
        example: Move,
    },
    /// A draw from the empty bag, in a room where the stuck player passes.
    #[error("the bag is empty: you cannot draw, so pass")]
    BagEmpty,
}

fn messages(problems: &[Problem]) -> String {
    let parts: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    parts.join("; ")
}

/// Checks `mv` for a player holding `rack` at `table` (turn order aside)
/// and says what it does.
pub fn check(rack: &[Block], table: &[Row], mv: &Move) -> Result<Change, Illegal> {
    match mv {
        Move::PlayRow(row) => {
            if row.len() != NEW_ROW {
                return Err(Illegal::RowLength { len: row.len() });
            }
            if let Some(&block) = row.blocks().iter().find(|b| !rack.contains(b)) {
                return Err(Illegal::NotInRack { block });
            }
            let problems = valid_table(std::slice::from_ref(row));
            if !problems.is_empty() {
                return Err(Illegal::BrokenRow { problems });
            }
            Ok(Change::Add(row.normalised()))
        }
        Move::PlayBlock { block, row } => {
            let block = *block;
            if !rack.contains(&block) {
                return Err(Illegal::NotInRack { block });
            }
            if !row.contains(block) {
                return Err(Illegal::BlockNotInRow { block });
            }
            let index = table
                .iter()
                .position(|old| old.kind() == row.kind() && extends(old, block, row))
                .ok_or_else(|| Illegal::NotAnExtension {
                    block,
                    row: row.clone(),
                })?;
            let problems = valid_table(std::slice::from_ref(row));
            if !problems.is_empty() {
                return Err(Illegal::BrokenRow { problems });
            }
            Ok(Change::Replace {
                index,
                row: row.normalised(),
            })
        }
        Move::Draw => match plays(rack, table).into_iter().next() {
            Some(example) => Err(Illegal::MustPlay { example }),
            None => Ok(Change::Draw),
        },
        // The seed's rule book has no pass; a room that allows one checks
        // it before asking here (see `Rummikub`).
        Move::Pass => Err(Illegal::NoPassing),
    }
}

/// Whether `new` is `old` with `block` added: anywhere for a crow (order
/// does not matter), at either end for an nrow.
fn extends(old: &Row, block: Block, new: &Row) -> bool {
    let (o, n) = (old.blocks(), new.blocks());
    if n.len() != o.len() + 1 {
        return false;
    }
    match old {
        Row::Crow(_) => {
            let mut rest = n.to_vec();
            if let Some(i) = rest.iter().position(|&b| b == block) {
                rest.remove(i);
            }
            let mut o = o.to_vec();
            rest.sort();
            o.sort();
            rest == o
        }
        Row::Nrow(_) => {
            (n.first() == Some(&block) && &n[1..] == o)
                || (n.last() == Some(&block) && &n[..o.len()] == o)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::Color::*;
    use super::super::table::Rule;
    use super::*;

    fn b(n: i64, c: super::super::Color) -> Block {
        Block::new(n, c)
    }

    #[test]
    fn the_seeds_table_of_actions() {
        // Table 1 of the seed, one line at a time.
        let crow = plays(&[b(4, Red), b(4, Blue), b(4, Black)], &[]);
        assert_eq!(
            crow,
            vec![Move::PlayRow(Row::Crow(vec![
                b(4, Black),
                b(4, Blue),
                b(4, Red)
            ]))]
        );
        let nrow = plays(&[b(4, Red), b(5, Red), b(6, Red)], &[]);
        assert_eq!(
            nrow,
            vec![Move::PlayRow(Row::Nrow(vec![
                b(4, Red),
                b(5, Red),
                b(6, Red)
            ]))]
        );
        let run = Row::Nrow(vec![b(4, Red), b(5, Red), b(6, Red)]);
        assert_eq!(
            plays(&[b(7, Red), b(3, Red)], std::slice::from_ref(&run)),
            vec![
                Move::PlayBlock {
                    block: b(3, Red),
                    row: Row::Nrow(vec![b(3, Red), b(4, Red), b(5, Red), b(6, Red)])
                },
                Move::PlayBlock {
                    block: b(7, Red),
                    row: Row::Nrow(vec![b(4, Red), b(5, Red), b(6, Red), b(7, Red)])
                },
            ]
        );
        let fours = Row::Crow(vec![b(4, Black), b(4, Blue), b(4, Yellow)]);
        assert_eq!(
            plays(&[b(4, Red)], &[fours]),
            vec![Move::PlayBlock {
                block: b(4, Red),
                row: Row::Crow(vec![b(4, Black), b(4, Blue), b(4, Red), b(4, Yellow)])
            }]
        );
    }

    #[test]
    fn four_of_a_number_make_four_crows_and_draw_only_when_stuck() {
        let rack = [b(9, Red), b(9, Blue), b(9, Black), b(9, Yellow)];
        assert_eq!(plays(&rack, &[]).len(), 4);
        assert_eq!(legal_moves(&[b(1, Red)], &[]), vec![Move::Draw]);
        assert!(matches!(
            check(&rack, &[], &Move::Draw),
            Err(Illegal::MustPlay { .. })
        ));
    }

    #[test]
    fn refusals_name_their_reason() {
        let rack = [b(1, Red), b(2, Red), b(3, Red), b(5, Blue)];
        let table = [Row::Nrow(vec![b(6, Blue), b(7, Blue), b(8, Blue)])];
        let row = |v: Vec<Block>| Row::Nrow(v);
        assert_eq!(
            check(
                &rack,
                &table,
                &Move::PlayRow(row(vec![b(1, Red), b(2, Red)]))
            ),
            Err(Illegal::RowLength { len: 2 })
        );
        assert_eq!(
            check(
                &rack,
                &table,
                &Move::PlayRow(row(vec![b(2, Red), b(3, Red), b(4, Red)]))
            ),
            Err(Illegal::NotInRack { block: b(4, Red) })
        );
        let broken = check(
            &rack,
            &table,
            &Move::PlayRow(row(vec![b(1, Red), b(3, Red), b(2, Red)])),
        );
        assert!(
            matches!(&broken, Err(Illegal::BrokenRow { problems }) if problems.iter().any(|p| p.rule == Rule::WrongOrder)),
            "{broken:?}"
        );
        let msg = broken.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("ascends"), "{msg}");
        assert!(matches!(
            check(
                &rack,
                &table,
                &Move::PlayBlock {
                    block: b(5, Blue),
                    row: row(vec![b(6, Blue), b(7, Blue), b(8, Blue), b(5, Blue)])
                }
            ),
            Err(Illegal::BrokenRow { .. })
        ));
        assert!(matches!(
            check(
                &rack,
                &table,
                &Move::PlayBlock {
                    block: b(5, Blue),
                    row: row(vec![b(5, Blue), b(6, Blue), b(7, Blue)])
                }
            ),
            Err(Illegal::NotAnExtension { .. })
        ));
        assert_eq!(
            check(
                &rack,
                &table,
                &Move::PlayBlock {
                    block: b(5, Blue),
                    row: row(vec![b(6, Blue), b(7, Blue), b(8, Blue)])
                }
            ),
            Err(Illegal::BlockNotInRow { block: b(5, Blue) })
        );
        assert_eq!(
            check(
                &rack,
                &table,
                &Move::PlayBlock {
                    block: b(5, Blue),
                    row: row(vec![b(5, Blue), b(6, Blue), b(7, Blue), b(8, Blue)])
                }
            ),
            Ok(Change::Replace {
                index: 0,
                row: row(vec![b(5, Blue), b(6, Blue), b(7, Blue), b(8, Blue)])
            })
        );
    }
}
