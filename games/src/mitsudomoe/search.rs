//! Alpha-beta search with iterative deepening, the `search` bot's and
//! the `best-move` tool's engine.
//!
//! Negamax over whole turns: every legal turn is searched (no pruning by
//! rule of thumb), children ordered by the static evaluation
//! ([`eval`](super::eval)) at every node that searches on below them,
//! and at the root by the previous iteration's scores. The search stops
//! when the caller's `stop` says so (a deadline) or a node budget runs
//! out; the best move of the deepest iteration that searched at least the
//! previous best move stands. The engine itself never reads a clock:
//! callers decide when to stop.

use std::ops::ControlFlow::Continue;

use super::eval::evaluate;
use super::movegen::{each_turn, has_turn};
use super::position::Position;
use super::turn::Move;

/// A won position's score; a loss is its negation. Wins sooner score
/// higher (by one per turn), so the search goes for the quickest win and
/// the slowest loss.
pub const WIN: i32 = 1_000_000;

/// The deepest iteration tried: far more turns than a few seconds can
/// search with hundreds of turns a position; a cap so that a position
/// with very few turns (all forced) does not iterate forever.
pub const MAX_DEPTH: u32 = 32;

/// Nodes searched between two calls of `stop`: often enough to stop
/// within a millisecond or so, rarely enough that asking costs nothing.
pub const STOP_EVERY: u64 = 1024;

/// What a search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The best turn found (`None` when there is no legal turn).
    pub best: Option<Move>,
    /// Its score for the player to move, as seen at `depth`.
    pub score: i32,
    /// The deepest iteration completed (or begun with the best move searched).
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
}

/// Limits of one search.
pub struct Limits<'a> {
    /// Asked every [`STOP_EVERY`] nodes; `true` stops the search.
    pub stop: &'a dyn Fn() -> bool,
    /// Most positions to visit, if bounded.
    pub max_nodes: Option<u64>,
    /// Deepest iteration to run.
    pub max_depth: u32,
}

impl std::fmt::Debug for Limits<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits")
            .field("max_nodes", &self.max_nodes)
            .field("max_depth", &self.max_depth)
            .finish()
    }
}

/// Marker: the search was told to stop.
struct Stopped;

struct Searcher<'a> {
    limits: Limits<'a>,
    nodes: u64,
    /// Child lists, one per ply, kept between nodes to avoid allocating.
    lists: Vec<Vec<(Move, Position, i32)>>,
}

impl Searcher<'_> {
    fn tick(&mut self) -> Result<(), Stopped> {
        self.nodes += 1;
        if self.limits.max_nodes.is_some_and(|m| self.nodes > m) {
            return Err(Stopped);
        }
        if self.nodes.is_multiple_of(STOP_EVERY) && (self.limits.stop)() {
            return Err(Stopped);
        }
        Ok(())
    }

    /// The children of `pos`, each with its static score for the mover,
    /// best first when `sort`.
    fn children(&mut self, ply: usize, pos: &Position, sort: bool) -> Vec<(Move, Position, i32)> {
        let mut list = self
            .lists
            .get_mut(ply)
            .map(std::mem::take)
            .unwrap_or_default();
        list.clear();
        let me = pos.to_move();
        let _ = each_turn::<()>(pos, |m, child| {
            list.push((*m, *child, static_score(child, me, ply as i32 + 1)));
            Continue(())
        });
        if sort {
            list.sort_by_key(|c| std::cmp::Reverse(c.2));
        }
        list
    }

    fn give_back(&mut self, ply: usize, list: Vec<(Move, Position, i32)>) {
        if let Some(slot) = self.lists.get_mut(ply) {
            *slot = list;
        }
    }

    /// Negamax value of `pos` for its player to move, `depth` turns deep.
    fn search(
        &mut self,
        pos: &Position,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, Stopped> {
        self.tick()?;
        if let Some(end) = pos.end_of_turn() {
            return Ok(terminal(end.winner == pos.to_move(), ply as i32));
        }
        if depth == 0 {
            if stuck(pos) {
                return Ok(-WIN + ply as i32);
            }
            return Ok(evaluate(pos, pos.to_move()));
        }
        let list = self.children(ply, pos, depth > 1);
        if list.is_empty() {
            self.give_back(ply, list);
            // No legal turn: the player to move is out.
            return Ok(-WIN + ply as i32);
        }
        let mut best = -WIN - 1;
        let mut result = Ok(());
        for (_, child, score) in &list {
            let value = if depth == 1 {
                self.tick().map(|()| *score)
            } else {
                self.search(child, depth - 1, ply + 1, -beta, -alpha)
                    .map(|v| -v)
            };
            match value {
                Ok(v) => {
                    best = best.max(v);
                    alpha = alpha.max(v);
                    if alpha >= beta {
                        break;
                    }
                }
                Err(s) => {
                    result = Err(s);
                    break;
                }
            }
        }
        self.give_back(ply, list);
        result.map(|()| best)
    }
}

/// A terminal position's score for the player to move.
fn terminal(won: bool, ply: i32) -> i32 {
    if won {
        WIN - ply
    } else {
        -WIN + ply
    }
}

/// Whether the player to move is out of turns, looked for only where it
/// happens in practice and cheaply: with no ring left in supply (with one,
/// a ring step always exists, and a ball step nearly always).
fn stuck(pos: &Position) -> bool {
    pos.board().supply(pos.to_move()) == 0 && !has_turn(pos)
}

/// The static score of `child` (reached at `ply`) for `me`, who just
/// moved: the end-of-turn result if the game ends there, a win if the
/// opponent is [`stuck`], else the evaluation.
fn static_score(child: &Position, me: super::color::Color, ply: i32) -> i32 {
    match child.end_of_turn() {
        Some(end) => terminal(end.winner == me, ply),
        None if stuck(child) => terminal(true, ply + 1),
        None => evaluate(child, me),
    }
}

/// Searches `pos` for the player to move within `limits`. `pos` itself
/// is taken as a position to play on (its end-of-turn checks are not
/// applied: see [`Position::end_of_turn`]).
pub fn search(pos: &Position, limits: Limits<'_>) -> Found {
    let max_depth = limits.max_depth.clamp(1, MAX_DEPTH);
    let mut s = Searcher {
        limits,
        nodes: 0,
        lists: (0..=max_depth).map(|_| Vec::new()).collect(),
    };
    let mut root = s.children(0, pos, true);
    let mut found = Found {
        best: root.first().map(|r| r.0),
        score: root.first().map_or(-WIN, |r| r.2),
        depth: 0,
        nodes: 0,
    };
    // Nothing to choose between: no need to look ahead.
    if root.len() <= 1 {
        found.nodes = s.nodes;
        return found;
    }
    for depth in 1..=max_depth {
        let mut alpha = -WIN - 1;
        let mut best: Option<(Move, i32)> = None;
        let mut stopped = false;
        for entry in root.iter_mut() {
            let (mv, child, _) = *entry;
            let value = if depth == 1 {
                s.tick().map(|()| entry.2)
            } else {
                s.search(&child, depth - 1, 1, -WIN - 1, -alpha).map(|v| -v)
            };
            match value {
                Ok(v) => {
                    // Below alpha the value is only a bound: order those last.
                    entry.2 = if v > alpha { v } else { alpha - 1 };
                    if v > alpha {
                        alpha = v;
                        best = Some((mv, v));
                    }
                }
                Err(Stopped) => {
                    stopped = true;
                    break;
                }
            }
        }
        if let Some((mv, v)) = best {
            found.best = Some(mv);
            found.score = v;
            found.depth = depth;
        }
        root.sort_by_key(|c| std::cmp::Reverse(c.2));
        // A decided game needs no deeper look.
        if stopped || found.score.abs() >= WIN - MAX_DEPTH as i32 - 1 {
            break;
        }
    }
    found.nodes = s.nodes;
    found
}
