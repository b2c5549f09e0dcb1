//! A hosted game in bit form, for playouts: every rack is a 52-bit word,
//! so that a bot can play thousands of games to the end per decision.
//!
//! A block of the hosted set gets the index `4 * (number - 1) + colour`,
//! so the same colour's next number is four bits up and one number's four
//! colours are one nibble. The table is kept as the search's engine keeps
//! it ([`super::super::engine`]): the blocks in crows, the first blocks of
//! the nrows and their last blocks; nothing else about the table decides
//! what can be laid.
//!
//! The rules are those of [`Rummikub`](crate::rummikub::Rummikub) for 2 to
//! 4 seats under either `empty_bag` rule; the tests play hosted games and
//! this board side by side and compare every legal move and every ending.

use crate::rummikub::action::Move;
use crate::rummikub::block::{Block, HOSTED_NUMBERS, HOSTED_SET_SIZE};
use crate::rummikub::empty_bag::EmptyBag;
pub(crate) use crate::rummikub::engine::bits;
use crate::rummikub::row::Row;

/// Seats a board holds: the most a hosted game has.
pub(crate) const MAX_SEATS: usize = 4;

/// Every block of the hosted set.
const ALL: u64 = (1 << HOSTED_SET_SIZE) - 1;

/// The lowest bit of each nibble: one per number.
const NUMBERS: u64 = 0x0001_1111_1111_1111;

/// Bits up to the same colour's next number.
const UP: u32 = 4;

/// The bit of block index `i`.
pub(crate) fn bit(i: u8) -> u64 {
    1u64.checked_shl(u32::from(i)).unwrap_or(0)
}

/// The index of a block of the hosted set; `None` for any other block.
pub(crate) fn index(b: Block) -> Option<u8> {
    if !HOSTED_NUMBERS.contains(&b.number) {
        return None;
    }
    u8::try_from((b.number - 1) * 4 + b.color.index() as i64).ok()
}

/// The block of index `i` (an index below 52).
#[cfg(test)]
pub(crate) fn block(i: u8) -> Block {
    let color = crate::rummikub::block::Color::ALL[usize::from(i % 4)];
    Block::new(i64::from(i / 4) + 1, color)
}

/// The set of `blocks`; `None` if one is not of the hosted set.
pub(crate) fn set_of(blocks: &[Block]) -> Option<u64> {
    blocks.iter().try_fold(0, |m, &b| Some(m | bit(index(b)?)))
}

/// Every number of which `set` holds at least one block, as whole nibbles.
fn nibbles(set: u64) -> u64 {
    let mut x = set;
    x |= x >> 1;
    x |= x >> 2;
    (x & NUMBERS) * 0xF
}

/// Whether `set` holds a new row of its own: three of a number or three
/// consecutive of a colour.
pub(crate) fn holds_row(set: u64) -> bool {
    if set & (set >> UP) & (set >> (2 * UP)) != 0 {
        return true;
    }
    (0..13).any(|k| ((set >> (4 * k)) & 0xF).count_ones() >= 3)
}

/// One action on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A new crow of these three blocks.
    Crow(u64),
    /// A new nrow of this block and the same colour's next two.
    Nrow(u8),
    /// This block into the crow of its number.
    Join(u8),
    /// This block before the nrow that starts at its successor.
    Head(u8),
    /// This block after the nrow that ends at its predecessor.
    Tail(u8),
    /// The bag's next block.
    Draw,
    /// Nothing (the bag is empty, nothing can be laid, the room passes).
    Pass,
}

impl Step {
    /// How many blocks the step lays.
    pub(crate) fn laid(self) -> u32 {
        match self {
            Step::Crow(_) | Step::Nrow(_) => 3,
            Step::Join(_) | Step::Head(_) | Step::Tail(_) => 1,
            Step::Draw | Step::Pass => 0,
        }
    }

    /// The blocks the step takes off the rack.
    pub(crate) fn blocks(self) -> u64 {
        match self {
            Step::Crow(set) => set,
            Step::Nrow(i) => bit(i).wrapping_mul(0x111),
            Step::Join(i) | Step::Head(i) | Step::Tail(i) => bit(i),
            Step::Draw | Step::Pass => 0,
        }
    }

    /// The step of a hosted move; `None` for blocks outside the hosted set.
    pub(crate) fn of_move(mv: &Move) -> Option<Step> {
        Some(match mv {
            Move::PlayRow(Row::Crow(blocks)) => Step::Crow(set_of(blocks)?),
            Move::PlayRow(Row::Nrow(blocks)) => Step::Nrow(index(*blocks.first()?)?),
            Move::PlayBlock {
                block,
                row: Row::Crow(_),
            } => Step::Join(index(*block)?),
            Move::PlayBlock {
                block,
                row: Row::Nrow(blocks),
            } if blocks.first() == Some(block) => Step::Head(index(*block)?),
            Move::PlayBlock { block, .. } => Step::Tail(index(*block)?),
            Move::Draw => Step::Draw,
            Move::Pass => Step::Pass,
        })
    }
}

/// How a game on the board ended: the winning seats (a bit each), none
/// for a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ending {
    /// Bit `s` set: seat `s` won.
    pub winners: u8,
}

impl Ending {
    /// What the game was worth to `seat`: 1 for a win, 1/2 for a draw, 0
    /// for a loss.
    pub(crate) fn value(self, seat: usize) -> f64 {
        if self.winners == 0 {
            0.5
        } else if self.winners & (1 << seat) != 0 {
            1.0
        } else {
            0.0
        }
    }
}

/// A whole game in bit form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Board {
    /// Each seat's rack.
    pub racks: [u64; MAX_SEATS],
    /// How many seats play.
    pub seats: u8,
    /// Blocks in crows.
    pub crow: u64,
    /// First blocks of nrows.
    pub start: u64,
    /// Last blocks of nrows.
    pub end: u64,
    /// The bag; the next block drawn is at `bag_len - 1`.
    pub bag: [u8; HOSTED_SET_SIZE],
    /// How many blocks the bag holds.
    pub bag_len: u8,
    /// The seat to move.
    pub next: u8,
    /// Seats that have passed in a row.
    pub passes: u8,
    /// The room's rule for the empty bag.
    pub rule: EmptyBag,
}

impl Board {
    /// A board with empty racks and bag, `seats` seats, seat `next` to
    /// move, and `table`; `None` if a row holds a block outside the hosted
    /// set or is empty.
    pub(crate) fn with_table(table: &[Row], seats: u8, next: u8, rule: EmptyBag) -> Option<Board> {
        let mut b = Board {
            racks: [0; MAX_SEATS],
            seats,
            crow: 0,
            start: 0,
            end: 0,
            bag: [0; HOSTED_SET_SIZE],
            bag_len: 0,
            next,
            passes: 0,
            rule,
        };
        for row in table {
            match row {
                Row::Crow(blocks) => b.crow |= set_of(blocks)?,
                Row::Nrow(blocks) => {
                    b.start |= bit(index(*blocks.first()?)?);
                    b.end |= bit(index(*blocks.last()?)?);
                }
            }
        }
        Some(b)
    }

    /// The blocks that would extend a row of the table.
    pub(crate) fn fits(&self) -> u64 {
        (nibbles(self.crow) & !self.crow) | (self.start >> UP) | ((self.end << UP) & ALL)
    }

    /// Every play (not a draw, not a pass) open to a seat holding `rack`,
    /// into `out` (cleared first).
    pub(crate) fn plays(&self, rack: u64, out: &mut Vec<Step>) {
        out.clear();
        let mut groups = nibbles(rack) & NUMBERS;
        while groups != 0 {
            let k = groups.trailing_zeros();
            groups &= groups - 1;
            let group = rack & (0xF << k);
            match group.count_ones() {
                3 => out.push(Step::Crow(group)),
                4 => out.extend(bits(group).map(|j| Step::Crow(group & !bit(j)))),
                _ => {}
            }
        }
        out.extend(bits(rack & (rack >> UP) & (rack >> (2 * UP))).map(Step::Nrow));
        out.extend(bits(rack & nibbles(self.crow)).map(Step::Join));
        out.extend(bits(rack & (self.start >> UP)).map(Step::Head));
        out.extend(bits(rack & (self.end << UP)).map(Step::Tail));
    }

    /// The legal steps of the seat to move into `out`, in a game that is
    /// not over ([`Board::ending`] is `None`).
    pub(crate) fn steps(&self, out: &mut Vec<Step>) {
        self.plays(self.racks[usize::from(self.next)], out);
        if out.is_empty() {
            out.push(if self.bag_len > 0 {
                Step::Draw
            } else {
                Step::Pass
            });
        }
    }

    /// `Some` once the game is over, checked as the hosted game checks it
    /// before each turn.
    pub(crate) fn ending(&self) -> Option<Ending> {
        let racks = &self.racks[..usize::from(self.seats)];
        if let Some(i) = racks.iter().position(|&r| r == 0) {
            return Some(Ending { winners: 1 << i });
        }
        match self.rule {
            EmptyBag::End => {
                let rack = self.racks[usize::from(self.next)];
                let stuck = self.bag_len == 0 && rack & self.fits() == 0 && !holds_row(rack);
                stuck.then_some(Ending { winners: 0 })
            }
            EmptyBag::Pass => (self.passes >= self.seats).then(|| self.by_totals()),
        }
    }

    /// The ending by rack totals: the lowest wins, a draw if all share it.
    pub(crate) fn by_totals(&self) -> Ending {
        let seats = usize::from(self.seats);
        let totals: Vec<u32> = self.racks[..seats].iter().map(|&r| total(r)).collect();
        let low = totals.iter().copied().min().unwrap_or(0);
        let winners = totals
            .iter()
            .enumerate()
            .filter(|(_, &t)| t == low)
            .fold(0u8, |m, (i, _)| m | (1 << i));
        if winners.count_ones() as usize == seats {
            Ending { winners: 0 }
        } else {
            Ending { winners }
        }
    }

    /// Plays `step` for the seat to move (a legal step: nothing is checked).
    pub(crate) fn apply(&mut self, step: Step) {
        let me = usize::from(self.next);
        self.racks[me] &= !step.blocks();
        match step {
            Step::Crow(set) => self.crow |= set,
            Step::Nrow(i) => {
                self.start |= bit(i);
                self.end |= bit(i) << (2 * UP);
            }
            Step::Join(i) => self.crow |= bit(i),
            Step::Head(i) => self.start = (self.start & !(bit(i) << UP)) | bit(i),
            Step::Tail(i) => self.end = (self.end & !(bit(i) >> UP)) | bit(i),
            Step::Draw => {
                if let Some(n) = self.bag_len.checked_sub(1) {
                    self.racks[me] |= bit(self.bag[usize::from(n)]);
                    self.bag_len = n;
                }
            }
            Step::Pass => {}
        }
        self.passes = match step {
            Step::Pass => self.passes.saturating_add(1),
            _ => 0,
        };
        self.next = (self.next + 1) % self.seats.max(1);
    }
}

/// The sum of the numbers of `set`'s blocks.
pub(crate) fn total(set: u64) -> u32 {
    bits(set).map(|i| u32::from(i / 4) + 1).sum()
}

#[cfg(test)]
mod tests {
    use rand::seq::SliceRandom;

    use super::*;
    use crate::game::{Game, Outcome, Seat, Viewer};
    use crate::rng::GameRng;
    use crate::rummikub::block::Color;
    use crate::rummikub::game::{Config, Rummikub};

    /// The whole of hosted game `g` as a board.
    fn board_of(g: &Rummikub) -> Board {
        let view = g.view(Viewer::Spectator);
        let next = view.next.map_or(0, |s| s.0);
        let mut b = Board::with_table(g.table(), g.seats(), next, g.empty_bag())
            .unwrap_or_else(|| panic!("a hosted table"));
        for s in 0..g.seats() {
            b.racks[usize::from(s)] = set_of(g.rack(Seat(s))).unwrap_or_else(|| panic!("rack"));
        }
        // The board draws from the end of its bag, the game from the front.
        for (slot, blk) in b.bag.iter_mut().zip(g.bag().iter().rev()) {
            *slot = index(*blk).unwrap_or_else(|| panic!("{blk}"));
        }
        b.bag_len = g.bag().len() as u8;
        b.passes = view.passes;
        b
    }

    fn sorted(steps: &[Step]) -> Vec<String> {
        let mut v: Vec<String> = steps.iter().map(|s| format!("{s:?}")).collect();
        v.sort();
        v
    }

    #[test]
    fn the_board_plays_exactly_the_hosted_rules() {
        let mut steps = Vec::new();
        for n in 0..300u64 {
            let seats = 2 + (n % 3) as u8;
            let cfg = Config {
                rack_size: 1 + (n % 12) as u32,
                empty_bag: if n % 2 == 0 {
                    EmptyBag::Pass
                } else {
                    EmptyBag::End
                },
            };
            let mut rng = GameRng::from_seed(n);
            let mut g = Rummikub::setup(&cfg, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
            let mut b = board_of(&g);
            while let Some(seat) = g.to_act().iter().next() {
                assert_eq!(b.ending(), None, "game {n}");
                assert_eq!(usize::from(b.next), seat.index());
                let moves = g.legal_moves(seat);
                let want: Vec<Step> = moves
                    .iter()
                    .map(|m| Step::of_move(m).unwrap_or_else(|| panic!("{m}")))
                    .collect();
                b.steps(&mut steps);
                assert_eq!(sorted(&steps), sorted(&want), "game {n}: {moves:?}");
                let mv = moves
                    .choose(&mut rng)
                    .cloned()
                    .unwrap_or_else(|| panic!("moves"));
                g.play(seat, &mv, &mut rng)
                    .unwrap_or_else(|e| panic!("{e}"));
                b.apply(Step::of_move(&mv).unwrap_or_else(|| panic!("{mv}")));
                // Past its length the bag's slots keep what was drawn.
                let mut seen = b;
                seen.bag[usize::from(b.bag_len)..].fill(0);
                let want = board_of(&g);
                if g.outcome().is_some() {
                    // A finished game's view names nobody to move.
                    seen.next = want.next;
                }
                assert_eq!(seen, want, "game {n} after {mv}");
            }
            let want = match g.outcome() {
                Some(Outcome::Win { winners }) => winners.iter().fold(0u8, |m, s| m | (1 << s.0)),
                _ => 0,
            };
            assert_eq!(b.ending(), Some(Ending { winners: want }), "game {n}");
        }
    }

    #[test]
    fn blocks_and_indices_agree_and_totals_add_numbers() {
        for (i, blk) in Block::hosted_set().into_iter().enumerate() {
            assert_eq!(index(blk), Some(i as u8));
            assert_eq!(block(i as u8), blk);
        }
        assert_eq!(index(Block::new(14, Color::Red)), None);
        assert_eq!(index(Block::new(0, Color::Red)), None);
        assert_eq!(total(ALL), 4 * (1..=13).sum::<u32>());
        let red = |n| index(Block::new(n, Color::Red)).map_or(0, bit);
        let five = |c| index(Block::new(5, c)).map_or(0, bit);
        assert!(holds_row(red(3) | red(4) | red(5)));
        assert!(!holds_row(red(3) | red(4) | red(6)));
        assert!(holds_row(
            five(Color::Black) | five(Color::Blue) | five(Color::Yellow)
        ));
        assert!(!holds_row(five(Color::Black) | five(Color::Blue) | red(4)));
    }
}
