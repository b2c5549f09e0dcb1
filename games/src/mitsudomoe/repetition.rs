//! Parlor's repetition rule, a house rule (the published rules have
//! none, and two careful players could shuffle rings for ever): when a
//! position (board, supplies and the player to move) occurs for the
//! third time, the match ends drawn.
//!
//! The count is exact: positions themselves are the keys. It stays small
//! because only positions since the last irreversible turn are kept: a
//! ring placed from supply (supplies never grow again) or a ball reaching
//! a goal (it never leaves) makes every earlier position unreachable.

use std::collections::HashMap;

use super::color::Color;
use super::position::Position;

/// The occurrence of one position that ends the match drawn.
pub const REPETITION_DRAW: u8 = 3;

/// What no turn can undo: the rings left in supply and the balls on
/// goals. A position with other progress than an earlier one cannot be
/// that position again.
pub(crate) fn progress(pos: &Position) -> (u8, usize) {
    let board = pos.board();
    Color::ALL.into_iter().fold((0, 0), |(rings, home), c| {
        (
            rings + board.supply(c),
            home + (board.balls(c) & c.goals()).len(),
        )
    })
}

/// How often each position since the last irreversible turn occurred.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repetitions {
    /// At most one entry per turn since the last irreversible one, so at
    /// most the room's turn limit (see [`turn_limit`](super::turn_limit)).
    seen: HashMap<Position, u8>,
    /// The progress all of `seen` shares.
    progress: (u8, usize),
}

impl Repetitions {
    /// A fresh history that has seen `start` once: the start of a match,
    /// or a position a room was given.
    pub fn starting_at(start: &Position) -> Repetitions {
        Repetitions {
            seen: HashMap::from([(*start, 1)]),
            progress: progress(start),
        }
    }

    /// Counts one more occurrence of `pos`, reached by a turn, and
    /// returns how many there have been.
    pub fn record(&mut self, pos: &Position) -> u8 {
        let now = progress(pos);
        if now != self.progress {
            self.seen.clear();
            self.progress = now;
        }
        let n = self.seen.entry(*pos).or_insert(0);
        *n = n.saturating_add(1);
        *n
    }

    /// How often `pos` has occurred.
    pub fn count(&self, pos: &Position) -> u8 {
        self.seen.get(pos).copied().unwrap_or(0)
    }

    /// The positions a turn must not reach again unless it wants a draw:
    /// those seen `REPETITION_DRAW - 1` times, in notation, sorted.
    pub fn one_short(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .seen
            .iter()
            .filter(|(_, n)| **n + 1 >= REPETITION_DRAW)
            .map(|(p, _)| p.to_string())
            .collect();
        out.sort_unstable();
        out
    }
}
