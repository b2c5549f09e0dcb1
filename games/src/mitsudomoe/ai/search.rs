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
//!
//! Parlor's house rules ([`HouseRules`]) score as draws ([`DRAW`]): a
//! turn reaching a position that has occurred twice, a position that
//! repeats one earlier on the line searched (as engines do: whoever
//! repeats once can repeat again, and the game's own count is only
//! partly known from the view), and any position at or beyond the turn
//! limit. So a side ahead steers clear of repetitions and a side behind
//! looks for them. The rules' own endings come first, as in the game.

use std::collections::HashSet;
use std::ops::ControlFlow::Continue;

use super::eval::evaluate;
use crate::mitsudomoe::movegen::{each_turn, has_turn};
use crate::mitsudomoe::position::Position;
use crate::mitsudomoe::repetition::progress;
use crate::mitsudomoe::turn::Move;
use crate::mitsudomoe::view::View;

/// A won position's score; a loss is its negation. Wins sooner score
/// higher (by one per turn), so the search goes for the quickest win and
/// the slowest loss.
pub const WIN: i32 = 1_000_000;

/// A drawn position's score: what an even position evaluates to.
pub const DRAW: i32 = 0;

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

/// Where a match stands under Parlor's house rules, as a view shows it.
/// The default knows of no repetition and no limit (a bare position, as
/// the `best-move` tool is given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HouseRules {
    /// Positions that have occurred twice: a turn reaching one draws.
    pub repeated: HashSet<Position>,
    /// Turns left before the turn limit draws the match, if known.
    pub turns_left: Option<u32>,
}

impl HouseRules {
    /// The house rules' state in `view` (positions that do not read are
    /// left out: the view came from the server, which writes them).
    pub fn of_view(view: &View) -> HouseRules {
        HouseRules {
            repeated: view
                .repeated
                .iter()
                .filter_map(|p| p.parse().ok())
                .collect(),
            turns_left: Some(u32::from(view.turns_left())),
        }
    }
}

/// Limits of one search.
pub struct Limits<'a> {
    /// Asked every [`STOP_EVERY`] nodes; `true` stops the search.
    pub stop: &'a dyn Fn() -> bool,
    /// Most positions to visit, if bounded.
    pub max_nodes: Option<u64>,
    /// Deepest iteration to run.
    pub max_depth: u32,
    /// The match's state under the house rules.
    pub house: HouseRules,
}

impl std::fmt::Debug for Limits<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits")
            .field("max_nodes", &self.max_nodes)
            .field("max_depth", &self.max_depth)
            .field("house", &self.house)
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
    /// The line being searched: the position at each ply, the root first.
    path: Vec<Position>,
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

    /// Whether a house rule draws `pos`, reached at `ply` (at least 1)
    /// below the line in `path` (its ancestors are `path[..ply]`).
    fn drawn(&self, pos: &Position, ply: usize) -> bool {
        let parent = ply
            .checked_sub(1)
            .and_then(|i| self.path.get(i))
            .map(progress);
        self.drawn_below(pos, ply, parent)
    }

    /// [`Searcher::drawn`] with the parent's progress already known
    /// (`None` at the root, which nothing draws).
    fn drawn_below(&self, pos: &Position, ply: usize, parent: Option<(u8, usize)>) -> bool {
        if self
            .limits
            .house
            .turns_left
            .is_some_and(|left| ply as u64 >= u64::from(left))
        {
            return true;
        }
        // Only a position with the same supplies and balls home as its
        // parent can be one seen before (progress is never undone).
        let now = progress(pos);
        if parent != Some(now) {
            return false;
        }
        let repeated = &self.limits.house.repeated;
        if !repeated.is_empty() && repeated.contains(pos) {
            return true;
        }
        // The same player to move: every second ancestor, back to the
        // last change of progress.
        (0..ply.saturating_sub(1))
            .rev()
            .step_by(2)
            .filter_map(|i| self.path.get(i))
            .take_while(|p| progress(p) == now)
            .any(|p| p == pos)
    }

    /// The static score of `child` (reached at `ply`, its parent's
    /// progress `parent`) for `me`, who just moved: the end-of-turn
    /// result if the game ends there, a win if the opponent is [`stuck`],
    /// a draw if a house rule ends it there, else the evaluation.
    fn static_score(
        &self,
        child: &Position,
        me: crate::mitsudomoe::color::Color,
        ply: usize,
        parent: (u8, usize),
    ) -> i32 {
        match child.end_of_turn() {
            Some(end) => terminal(end.winner == Some(me), ply as i32),
            None if stuck(child) => terminal(true, ply as i32 + 1),
            None if self.drawn_below(child, ply, Some(parent)) => DRAW,
            None => evaluate(child, me),
        }
    }

    /// The children of `pos` (at `ply`, the last position of the
    /// path), each with its static score for the mover, best first when
    /// `sort`.
    fn children(&mut self, ply: usize, pos: &Position, sort: bool) -> Vec<(Move, Position, i32)> {
        let mut list = self
            .lists
            .get_mut(ply)
            .map(std::mem::take)
            .unwrap_or_default();
        list.clear();
        let me = pos.to_move();
        let _ = each_turn::<()>(pos, |m, child| {
            list.push((*m, *child, 0));
            Continue(())
        });
        let parent = progress(pos);
        for entry in list.iter_mut() {
            entry.2 = self.static_score(&entry.1, me, ply + 1, parent);
        }
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
            return Ok(terminal(end.winner == Some(pos.to_move()), ply as i32));
        }
        if self.drawn(pos, ply) {
            // A player with no turn is out before any house rule applies.
            return Ok(if stuck(pos) { -WIN + ply as i32 } else { DRAW });
        }
        self.path.truncate(ply);
        self.path.push(*pos);
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

/// The value of every turn from `pos` for its player to move, in the
/// order of the legal list, each searched `depth` turns deep with a full
/// window (no bound from its siblings, unlike [`search`]), so that equal
/// values are real ties. `None` when more than `max_nodes` positions
/// would be visited. Deterministic: no clock is read.
pub fn root_values(
    pos: &Position,
    depth: u32,
    house: HouseRules,
    max_nodes: u64,
) -> Option<Vec<(Move, i32)>> {
    let depth = depth.clamp(1, MAX_DEPTH);
    let never = || false;
    let mut s = Searcher {
        limits: Limits {
            stop: &never,
            max_nodes: Some(max_nodes),
            max_depth: depth,
            house,
        },
        nodes: 0,
        lists: (0..=depth).map(|_| Vec::new()).collect(),
        path: vec![*pos],
    };
    let root = s.children(0, pos, false);
    let mut out = Vec::with_capacity(root.len());
    for (mv, child, score) in root {
        let value = if depth == 1 {
            s.tick().ok()?;
            score
        } else {
            -s.search(&child, depth - 1, 1, -WIN - 1, WIN + 1).ok()?
        };
        out.push((mv, value));
    }
    Some(out)
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
        path: vec![*pos],
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
