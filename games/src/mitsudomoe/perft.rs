//! Perft: how many move sequences of a given length there are from a
//! position, and how many distinct positions they reach. The standard
//! check of a move generator (see `games/tests/mitsudomoe_perft.rs`),
//! and a benchmark of it.

use std::collections::HashMap;
use std::ops::ControlFlow::Continue;

use serde::Serialize;

use super::movegen::{count_turns, each_turn};
use super::position::Position;

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

/// Counts from `start`, `depth` turns deep, keeping at most `limit`
/// distinct positions at any one depth. Breadth first, each distinct
/// position expanded once with the number of sequences reaching it, so
/// transpositions cost nothing twice. A position reached by a turn after
/// which the mover has won or is out is not expanded (`start` always is:
/// no turn led to it).
pub fn perft(start: &Position, depth: u32, limit: usize) -> Result<Perft, TooManyPositions> {
    let too_many = TooManyPositions { depth, limit };
    let mut level: HashMap<Position, u128> = HashMap::from([(*start, 1)]);
    if depth == 0 {
        return Ok(Perft {
            depth,
            moves: 1,
            positions: 1,
        });
    }
    for d in 1..=depth {
        let last = d == depth;
        let mut next: HashMap<Position, u128> = HashMap::new();
        let mut moves: u128 = 0;
        for (pos, ways) in &level {
            if d > 1 && pos.end_of_turn().is_some() {
                continue;
            }
            let _ = each_turn::<()>(pos, |_, child| {
                *next.entry(*child).or_insert(0) += ways;
                moves += ways;
                Continue(())
            });
            if next.len() > limit {
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
