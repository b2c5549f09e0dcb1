//! Perft: how many move sequences of a given length there are from a
//! position, and how many distinct positions they reach. The standard
//! check of a move generator (see `games/tests/games/mitsudomoe_perft.rs`),
//! and a benchmark of it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::ControlFlow::{Break, Continue};

use serde::Serialize;

use crate::mitsudomoe::movegen::{count_turns, each_turn};
use crate::mitsudomoe::position::Position;

/// The result of [`perft`]. `{"depth": 2, "moves": 81, "positions": 81}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Perft {
    /// Turns played.
    pub depth: u32,
    /// Sequences of exactly `depth` legal turns (a game that ends earlier
    /// contributes none).
    pub moves: u128,
    /// Distinct positions (board and player to move) at their ends.
    pub positions: u64,
}

/// Why a perft was not finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("perft to depth {depth} needs more than {limit} distinct positions at one depth")]
pub struct TooManyPositions {
    /// The depth asked for.
    pub depth: u32,
    /// The limit passed.
    pub limit: usize,
}

/// A quick hasher for positions: folds each 64-bit word in with a
/// multiply and a rotation. The standard SipHash resists keys chosen to
/// collide, which positions made by the rules from a bounded search need
/// not, and it was two thirds of perft's time.
#[derive(Clone, Copy, Debug, Default)]
struct Fold(u64);

/// An odd constant with well-mixed bits (2^64 / the golden ratio).
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

impl Fold {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(MIX);
    }
}

impl Hasher for Fold {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // A last mix so that the low bits (the table index) depend on all.
        (self.0 ^ (self.0 >> 29)).wrapping_mul(MIX)
    }
}

/// Positions and the number of ways to reach each.
type Level = HashMap<Position, u128, BuildHasherDefault<Fold>>;

/// Bytes one entry of a depth's table takes (the table adds a control
/// byte): what a memory budget for [`perft`] counts in.
pub const LEVEL_ENTRY_BYTES: usize = std::mem::size_of::<(Position, u128)>();

/// Counts from `start`, `depth` turns deep, keeping at most `limit`
/// distinct positions at any one depth. Breadth first, each distinct
/// position expanded once with the number of sequences reaching it, so
/// transpositions cost nothing twice. A position reached by a turn after
/// which the mover has won or is out is not expanded (`start` always is:
/// no turn led to it).
pub fn perft(start: &Position, depth: u32, limit: usize) -> Result<Perft, TooManyPositions> {
    perft_within(start, depth, |_| limit)
}

/// [`perft`] keeping at most `limit(n)` distinct positions at a depth
/// whose previous depth has `n`: a memory budget holds both depths'
/// tables at once, so the more the last depth took, the less the next
/// may.
pub fn perft_within(
    start: &Position,
    depth: u32,
    limit: impl Fn(usize) -> usize,
) -> Result<Perft, TooManyPositions> {
    let mut level = Level::default();
    level.insert(*start, 1);
    if depth == 0 {
        return Ok(Perft {
            depth,
            moves: 1,
            positions: 1,
        });
    }
    for d in 1..=depth {
        let last = d == depth;
        let limit = limit(level.len());
        let too_many = TooManyPositions { depth, limit };
        let mut next = Level::default();
        let mut moves: u128 = 0;
        for (pos, ways) in &level {
            if d > 1 && pos.end_of_turn().is_some() {
                continue;
            }
            // Checked before each new position goes in, so that the table
            // never grows past the size `limit` positions need (a memory
            // budget counts on it).
            let flow = each_turn::<()>(pos, |_, child| {
                if next.len() >= limit && !next.contains_key(child) {
                    return Break(());
                }
                *next.entry(*child).or_insert(0) += ways;
                moves += ways;
                Continue(())
            });
            if flow.is_break() || next.len() > limit {
                return Err(too_many);
            }
        }
        if last {
            return Ok(Perft {
                depth,
                moves,
                positions: next.len() as u64,
            });
        }
        level = next;
    }
    Ok(Perft {
        depth,
        moves: 0,
        positions: 0,
    })
}

/// Sequences only (no distinct positions), depth first with the last
/// turn counted in bulk: the generator's raw speed, for benchmarks.
pub fn perft_moves(start: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_turns(start) as u64,
        _ => {
            let mut n = 0;
            let _ = each_turn::<()>(start, |_, child| {
                n += moves_after_turn(child, depth - 1);
                Continue(())
            });
            n
        }
    }
}

fn moves_after_turn(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.end_of_turn().is_some() {
        return 0;
    }
    if depth == 1 {
        return count_turns(pos) as u64;
    }
    let mut n = 0;
    let _ = each_turn::<()>(pos, |_, child| {
        n += moves_after_turn(child, depth - 1);
        Continue(())
    });
    n
}
