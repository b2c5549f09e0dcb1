//! Mitsudomoe bots: `search` (the default), `greedy` and `random`.
//!
//! `search` takes its thinking time from its name: `"search"` thinks
//! [`DEFAULT_SEARCH_MS`] a move, `"search:250"` 250 ms; at most
//! [`MAX_SEARCH_MS`].

use std::time::{Duration, Instant};

use super::eval::evaluate;
use super::search::{search, HouseRules, Limits, DRAW, MAX_DEPTH, WIN};
use crate::game::Seat;
use crate::mitsudomoe::color::Color;
use crate::mitsudomoe::game::Mitsudomoe;
use crate::mitsudomoe::movegen::{count_turns, each_turn, nth_turn};
use crate::mitsudomoe::position::Position;
use crate::mitsudomoe::turn::Move;
use crate::mitsudomoe::view::View;
use crate::rng::GameRng;
use crate::strategy::{Bots, Strategy};

/// The built-in strategies, the default first.
pub const NAMES: &[&str] = &["search", "greedy", "random"];

/// Thinking time of `"search"` per move: a second keeps a game against
/// the bot brisk while letting it see two turns ahead in most positions
/// on the project's 2-core machine.
pub const DEFAULT_SEARCH_MS: u64 = 1_000;

/// The longest any search may think per move, whatever its name asks:
/// bots think on the server's blocking threads, and this bounds how long
/// one move can hold one.
pub const MAX_SEARCH_MS: u64 = 10_000;

/// The built-in strategy called `name`, if any.
pub fn by_name(name: &str) -> Option<Box<dyn crate::strategy::Strategy<Mitsudomoe>>> {
    match name {
        "random" => Some(Box::new(RandomTurn)),
        "greedy" => Some(Box::new(Greedy)),
        "search" => Some(Box::new(Search::new(DEFAULT_SEARCH_MS))),
        _ => {
            let ms: u64 = name.strip_prefix("search:")?.parse().ok()?;
            (1..=MAX_SEARCH_MS)
                .contains(&ms)
                .then(|| Box::new(Search::new(ms)) as Box<dyn Strategy<Mitsudomoe>>)
        }
    }
}

/// The position, if the view says `seat` is to move.
fn my_turn(seat: Seat, view: &View) -> Option<Position> {
    if view.next != Some(seat) || view.end.is_some() {
        return None;
    }
    view.read_position()
        .filter(|p| Color::of_seat(seat) == Some(p.to_move()))
}

/// A uniformly random legal turn.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomTurn;

impl Strategy<Mitsudomoe> for RandomTurn {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        let pos = my_turn(seat, view)?;
        let n = count_turns(&pos);
        if n == 0 {
            return None;
        }
        nth_turn(&pos, rng.below(n as u64) as usize)
    }
}

/// The turn whose result scores best for the mover: a win at once if
/// there is one, never a turn that puts it out (unless all do), a draw
/// by a house rule as an even position, and otherwise the best
/// [`evaluate`] after the turn; ties are broken at random.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

/// Greedy's choice in `pos` under `house` (ties broken with `rng`).
pub fn greedy(pos: &Position, house: &HouseRules, rng: &mut GameRng) -> Option<Move> {
    let me = pos.to_move();
    let mut best = i32::MIN;
    let mut ties: u64 = 0;
    let mut choice = None;
    let last_turn = house.turns_left.is_some_and(|left| left <= 1);
    let _ = each_turn::<()>(pos, |m, child| {
        let score = match child.end_after_turn() {
            Some(end) if end.winner == Some(me) => WIN,
            Some(_) => -WIN,
            None if last_turn || house.repeated.contains(child) => DRAW,
            None => evaluate(child, me),
        };
        if score > best {
            best = score;
            ties = 1;
            choice = Some(*m);
        } else if score == best {
            // Keep each of the tied turns with equal chance.
            ties += 1;
            if rng.below(ties) == 0 {
                choice = Some(*m);
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    choice
}

impl Strategy<Mitsudomoe> for Greedy {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        greedy(&my_turn(seat, view)?, &HouseRules::of_view(view), rng)
    }
}

/// Alpha-beta search ([`search`]) for a fixed time per move.
#[derive(Clone, Copy, Debug)]
pub struct Search {
    budget: Duration,
}

impl Search {
    /// Thinks `ms` milliseconds a move (at most [`MAX_SEARCH_MS`]).
    pub fn new(ms: u64) -> Search {
        Search {
            budget: Duration::from_millis(ms.min(MAX_SEARCH_MS)),
        }
    }
}

/// The search's choice in `pos` under `house`, thinking for `budget`.
pub fn think(pos: &Position, house: HouseRules, budget: Duration) -> super::search::Found {
    let deadline = Instant::now() + budget;
    search(
        pos,
        Limits {
            stop: &|| Instant::now() >= deadline,
            max_nodes: None,
            max_depth: MAX_DEPTH,
            house,
        },
    )
}

impl Strategy<Mitsudomoe> for Search {
    fn choose(&mut self, seat: Seat, view: &View, _rng: &mut GameRng) -> Option<Move> {
        let pos = my_turn(seat, view)?;
        think(&pos, HouseRules::of_view(view), self.budget).best
    }
}

impl Bots for Mitsudomoe {
    const STRATEGIES: &'static [&'static str] = NAMES;

    fn strategy(name: &str) -> Option<Box<dyn Strategy<Self>>> {
        by_name(name)
    }
}
