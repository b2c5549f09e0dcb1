//! The search's representation of a two-player position: every set of
//! blocks is a 64-bit word, so that positions are small, cheap to copy and
//! cheap to hash.
//!
//! Blocks get bit indices in sorted order (by number, then colour), so the
//! lowest bit of an nrow is its first block and the bits of a crow, read
//! upwards, are the crow sorted as the seed sorts it.
//!
//! The table is kept as three sets: blocks in crows, first blocks of nrows
//! and last blocks of nrows. That is a canonical form of the table as a set
//! of rows: a number has at most one crow (two would need six colours), so
//! the crow blocks of one number are one row, and an nrow runs from a first
//! block through its successors up to the next last block. Two move orders
//! that build the same rows give the same [`State`], which is what lets
//! `predict` share work between them.

use super::action::Action;
use super::block::Block;
use super::position::{Player, Position};
use super::row::{Row, RowKind};

/// Marks "no such block" in the successor and predecessor tables.
const NONE: u8 = u8::MAX;

/// A position as the search sees it, from the point of view of the player
/// to move (the mover). The mover's identity is not part of it: the future
/// from a position does not depend on who is called P1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct State {
    /// The mover's supply.
    pub mover: u64,
    /// The other player's supply.
    pub other: u64,
    /// Blocks on the table in crows.
    pub crow: u64,
    /// First blocks of the nrows on the table.
    pub start: u64,
    /// Last blocks of the nrows on the table.
    pub end: u64,
    /// How many blocks have been drawn from the bag.
    pub drawn: u8,
}

/// One action, in bit form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A new row of these three blocks.
    Row(u64, RowKind),
    /// This block into the crow of its number.
    Crow(u8),
    /// This block before the nrow starting at its successor.
    Head(u8),
    /// This block after the nrow ending at its predecessor.
    Tail(u8),
    /// The bag's next block.
    Draw,
}

/// How a game ended, for the player who was to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// The mover's supply is empty (and the other's is not).
    MoverWins,
    /// The other player's supply is empty.
    MoverLoses,
    /// Both are empty, or the mover must draw from an empty bag.
    Drawn,
}

/// The blocks of one position's universe and their neighbours.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    blocks: Vec<Block>,
    next: Vec<u8>,
    prev: Vec<u8>,
    same_number: Vec<u64>,
    bag: Vec<u8>,
}

fn bit(i: u8) -> u64 {
    1u64 << i
}

/// Indices of the set bits, lowest first.
pub(crate) fn bits(mut set: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let i = set.trailing_zeros() as u8;
        set &= set - 1;
        Some(i)
    })
}

impl Engine {
    /// The engine for `pos`'s blocks and the position in bit form. The
    /// position's checks guarantee at most 64 unique blocks.
    pub fn new(pos: &Position) -> (Engine, State) {
        let blocks = pos.blocks();
        let index = |b: &Block| -> u8 {
            // Every block of the position is in `blocks`.
            blocks.binary_search(b).map(|i| i as u8).unwrap_or(NONE)
        };
        let find = |b: Option<Block>| b.map_or(NONE, |b| index(&b));
        let next = blocks.iter().map(|b| find(b.next())).collect();
        let prev = blocks.iter().map(|b| find(b.prev())).collect();
        let same_number = blocks
            .iter()
            .map(|b| {
                blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.number == b.number)
                    .fold(0, |m, (i, _)| m | bit(i as u8))
            })
            .collect();
        let set = |v: &[Block]| v.iter().fold(0, |m, b| m | bit(index(b)));
        let mut state = State {
            mover: set(pos.supply(pos.to_move())),
            other: set(pos.supply(pos.to_move().other())),
            crow: 0,
            start: 0,
            end: 0,
            drawn: 0,
        };
        for row in pos.table() {
            match row {
                Row::Crow(b) => state.crow |= set(b),
                Row::Nrow(b) => {
                    state.start |= b.first().map_or(0, |x| bit(index(x)));
                    state.end |= b.last().map_or(0, |x| bit(index(x)));
                }
            }
        }
        let bag = pos.bag().iter().map(index).collect();
        let engine = Engine {
            blocks,
            next,
            prev,
            same_number,
            bag,
        };
        (engine, state)
    }

    /// The block with bit index `i`.
    pub fn block(&self, i: u8) -> Block {
        self.blocks[usize::from(i)]
    }

    /// How a game with an empty supply ends: both empty is a draw, else
    /// whoever has emptied theirs has won. (Call only when one is empty.)
    pub fn end(&self, s: &State) -> End {
        match (s.mover == 0, s.other == 0) {
            (true, false) => End::MoverWins,
            (false, true) => End::MoverLoses,
            _ => End::Drawn,
        }
    }

    /// How the game stands before the mover's turn: `Some` when it is over,
    /// otherwise `out` receives every legal step (cleared first), in a fixed
    /// order. Distinct steps are distinct actions, so nothing repeats.
    pub fn steps(&self, s: &State, out: &mut Vec<Step>) -> Option<End> {
        out.clear();
        if s.mover == 0 || s.other == 0 {
            return Some(self.end(s));
        }
        let rack = s.mover;
        // New crows: all three-block subsets of each number's blocks.
        let mut rest = rack;
        while rest != 0 {
            let i = rest.trailing_zeros() as u8;
            let group = rack & self.same_number[usize::from(i)];
            rest &= !group;
            match group.count_ones() {
                3 => out.push(Step::Row(group, RowKind::Crow)),
                4 => {
                    for j in bits(group) {
                        out.push(Step::Row(group & !bit(j), RowKind::Crow));
                    }
                }
                _ => {}
            }
        }
        // New nrows: a block and its next two.
        for i in bits(rack) {
            let j = self.next[usize::from(i)];
            if j == NONE || rack & bit(j) == 0 {
                continue;
            }
            let k = self.next[usize::from(j)];
            if k != NONE && rack & bit(k) != 0 {
                out.push(Step::Row(bit(i) | bit(j) | bit(k), RowKind::Nrow));
            }
        }
        // Extensions.
        for i in bits(rack) {
            let n = usize::from(i);
            if self.same_number[n] & s.crow != 0 {
                out.push(Step::Crow(i));
            }
            let j = self.next[n];
            if j != NONE && s.start & bit(j) != 0 {
                out.push(Step::Head(i));
            }
            let k = self.prev[n];
            if k != NONE && s.end & bit(k) != 0 {
                out.push(Step::Tail(i));
            }
        }
        if out.is_empty() {
            if usize::from(s.drawn) < self.bag.len() {
                out.push(Step::Draw);
            } else {
                return Some(End::Drawn);
            }
        }
        None
    }

    /// The position after `step`, seen from the next mover.
    pub fn apply(&self, s: &State, step: Step) -> State {
        let mut t = *s;
        match step {
            Step::Row(set, RowKind::Crow) => {
                t.mover &= !set;
                t.crow |= set;
            }
            Step::Row(set, RowKind::Nrow) => {
                t.mover &= !set;
                t.start |= set & set.wrapping_neg();
                t.end |= 1u64 << (63 - set.leading_zeros());
            }
            Step::Crow(i) => {
                t.mover &= !bit(i);
                t.crow |= bit(i);
            }
            Step::Head(i) => {
                t.mover &= !bit(i);
                t.start = (t.start & !bit(self.next[usize::from(i)])) | bit(i);
            }
            Step::Tail(i) => {
                t.mover &= !bit(i);
                t.end = (t.end & !bit(self.prev[usize::from(i)])) | bit(i);
            }
            Step::Draw => {
                t.mover |= bit(self.bag[usize::from(t.drawn)]);
                t.drawn += 1;
            }
        }
        State {
            mover: t.other,
            other: t.mover,
            ..t
        }
    }

    fn blocks_of(&self, set: u64) -> Vec<Block> {
        bits(set).map(|i| self.block(i)).collect()
    }

    /// The seed's action for `step` played at `s`.
    pub fn action(&self, s: &State, step: Step) -> Action {
        match step {
            Step::Row(set, RowKind::Crow) => Action::PlayRow(Row::Crow(self.blocks_of(set))),
            Step::Row(set, RowKind::Nrow) => Action::PlayRow(Row::Nrow(self.blocks_of(set))),
            Step::Crow(i) => Action::PlayBlock {
                block: self.block(i),
                row: Row::Crow(
                    self.blocks_of((s.crow & self.same_number[usize::from(i)]) | bit(i)),
                ),
            },
            Step::Head(i) => {
                let mut row = vec![self.block(i)];
                let mut j = self.next[usize::from(i)];
                // The old row runs from i's successor to the first last block.
                while j != NONE {
                    row.push(self.block(j));
                    if s.end & bit(j) != 0 {
                        break;
                    }
                    j = self.next[usize::from(j)];
                }
                Action::PlayBlock {
                    block: self.block(i),
                    row: Row::Nrow(row),
                }
            }
            Step::Tail(i) => {
                let mut row = vec![self.block(i)];
                let mut j = self.prev[usize::from(i)];
                while j != NONE {
                    row.push(self.block(j));
                    if s.start & bit(j) != 0 {
                        break;
                    }
                    j = self.prev[usize::from(j)];
                }
                row.reverse();
                Action::PlayBlock {
                    block: self.block(i),
                    row: Row::Nrow(row),
                }
            }
            Step::Draw => Action::Draw(self.block(self.bag[usize::from(s.drawn)])),
        }
    }
}

/// The final words for each player when the game ends with `end`, `mover`
/// having been to move: `(p1's, p2's)`.
pub(crate) fn final_words(end: End, mover: Player) -> (Action, Action) {
    let (m, o) = match end {
        End::MoverWins => (Action::Win, Action::Lose),
        End::MoverLoses => (Action::Lose, Action::Win),
        End::Drawn => (Action::DrawGame, Action::DrawGame),
    };
    match mover {
        Player::P1 => (m, o),
        Player::P2 => (o, m),
    }
}

#[cfg(test)]
mod tests {
    use super::super::action::Move;
    use super::super::block::Color::*;
    use super::super::rules::plays;
    use super::*;

    #[test]
    fn bitset_moves_agree_with_the_rule_book_along_random_games() {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..60 {
            let mut all: Vec<Block> = (1..=8)
                .flat_map(|n| [Red, Blue, Black, Yellow].map(|c| Block::new(n, c)))
                .collect();
            all.shuffle(&mut rng);
            let p1 = all[0..8].to_vec();
            let p2 = all[8..16].to_vec();
            let bag = all[16..22].to_vec();
            let pos = Position::deal(p1.clone(), p2.clone(), bag).unwrap_or_else(|e| panic!("{e}"));
            let (engine, mut s) = Engine::new(&pos);
            let mut racks = [p1, p2];
            let mut table: Vec<Row> = Vec::new();
            let mut mover = 0;
            let mut steps = Vec::new();
            while engine.steps(&s, &mut steps).is_none() {
                let mut from_bits: Vec<Action> =
                    steps.iter().map(|&st| engine.action(&s, st)).collect();
                let mut from_rules: Vec<Action> = plays(&racks[mover], &table)
                    .iter()
                    .filter_map(|m| m.to_action(None))
                    .collect();
                if from_rules.is_empty() {
                    from_rules = vec![engine.action(&s, Step::Draw)];
                }
                from_bits.sort();
                from_rules.sort();
                assert_eq!(from_bits, from_rules);
                let k = steps.len() / 2;
                let action = engine.action(&s, steps[k]);
                let mv = Move::from_action(&action).unwrap_or(Move::Draw);
                let drawn = match action {
                    Action::Draw(b) => Some(b),
                    _ => None,
                };
                let change = super::super::rules::check(&racks[mover], &table, &mv)
                    .unwrap_or_else(|e| panic!("{e}"));
                change.apply(&mv, &mut racks[mover], &mut table, drawn);
                s = engine.apply(&s, steps[k]);
                mover = 1 - mover;
            }
        }
    }
}
