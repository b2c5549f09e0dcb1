//! Nimrod bots.

use rand::Rng;

use super::lose::best_move;
use crate::game::Seat;
use crate::nimrod::game::{Nimrod, View};
use crate::nimrod::play::Move;
use crate::rng::GameRng;
use crate::strategy::{Bots, Strategy};

/// The view's piles if `seat` is to move.
fn my_turn(seat: Seat, view: &View) -> Option<crate::nimrod::Piles> {
    (view.next == Some(seat) && !view.piles.is_empty()).then_some(view.piles)
}

/// A uniformly random legal move.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomMove;

impl Strategy<Nimrod> for RandomMove {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        let piles = my_turn(seat, view)?;
        piles.nth_move(rng.gen_range(0..piles.move_count()))
    }
}

/// The seed's "simple" player: it wins at once when it can (one pile empty,
/// or both equal), and otherwise takes one rod from the greater pile.
#[derive(Clone, Copy, Debug, Default)]
pub struct Simple;

impl Strategy<Nimrod> for Simple {
    fn choose(&mut self, seat: Seat, view: &View, _rng: &mut GameRng) -> Option<Move> {
        let piles = my_turn(seat, view)?;
        Some(if piles.a() == 0 {
            Move::new(0, piles.b())
        } else if piles.a() == piles.b() {
            Move::new(piles.a(), piles.b())
        } else {
            Move::new(0, 1)
        })
    }
}

/// Perfect play: move to a lose position whenever one is reachable;
/// otherwise (already in one) take a single rod from the greater pile, the
/// smallest move, which leaves the opponent the most room to go wrong.
#[derive(Clone, Copy, Debug, Default)]
pub struct Optimal;

impl Strategy<Nimrod> for Optimal {
    fn choose(&mut self, seat: Seat, view: &View, _rng: &mut GameRng) -> Option<Move> {
        let piles = my_turn(seat, view)?;
        Some(best_move(piles).unwrap_or(Move::new(0, 1)))
    }
}

impl Bots for Nimrod {
    const STRATEGIES: &'static [&'static str] = &["optimal", "simple", "random"];

    fn strategy(name: &str) -> Option<Box<dyn Strategy<Self>>> {
        match name {
            "optimal" => Some(Box::new(Optimal)),
            "simple" => Some(Box::new(Simple)),
            "random" => Some(Box::new(RandomMove)),
            _ => None,
        }
    }
}
