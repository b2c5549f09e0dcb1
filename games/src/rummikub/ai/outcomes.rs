//! Every complete game from a position: the seed's `play_game` solutions.

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

use crate::rummikub::action::Action;
use crate::rummikub::engine::{final_words, Engine, State, Step};
use crate::rummikub::position::{Player, Position};

/// One complete game: each player's actions in order, the last one being
/// `win`, `lose` or `draw`. On the wire `{"p1": [...], "p2": [...]}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Solution {
    /// Player 1's actions.
    pub p1: Vec<Action>,
    /// Player 2's actions.
    pub p2: Vec<Action>,
}

impl Solution {
    fn of(&mut self, p: Player) -> &mut Vec<Action> {
        match p {
            Player::P1 => &mut self.p1,
            Player::P2 => &mut self.p2,
        }
    }
}

/// Calls `each` with every complete game from `pos`, depth first, in a fixed
/// order, and stops early when it breaks. Memory stays proportional to the
/// length of one game however many games there are: each is built in place
/// and handed over by reference.
pub fn outcomes<F>(pos: &Position, mut each: F) -> ControlFlow<()>
where
    F: FnMut(&Solution) -> ControlFlow<()>,
{
    let (engine, state) = Engine::new(pos);
    let mut walk = Walk {
        engine: &engine,
        path: Solution {
            p1: Vec::new(),
            p2: Vec::new(),
        },
        scratch: Vec::new(),
        each: &mut each,
    };
    walk.visit(state, pos.to_move(), 0)
}

/// Collects every complete game from `pos`. Only for positions known to
/// have few; prefer [`outcomes`] otherwise.
pub fn all_outcomes(pos: &Position) -> Vec<Solution> {
    let mut v = Vec::new();
    let _ = outcomes(pos, |s| {
        v.push(s.clone());
        ControlFlow::Continue(())
    });
    v
}

struct Walk<'a, F> {
    engine: &'a Engine,
    path: Solution,
    /// One step list per depth, reused so that the walk does not allocate
    /// once it has reached its deepest point.
    scratch: Vec<Vec<Step>>,
    each: &'a mut F,
}

impl<F: FnMut(&Solution) -> ControlFlow<()>> Walk<'_, F> {
    fn visit(&mut self, s: State, mover: Player, depth: usize) -> ControlFlow<()> {
        if self.scratch.len() <= depth {
            self.scratch.push(Vec::new());
        }
        let mut steps = std::mem::take(&mut self.scratch[depth]);
        let result = match self.engine.steps(&s, &mut steps) {
            Some(end) => {
                let (a1, a2) = final_words(end, mover);
                self.path.p1.push(a1);
                self.path.p2.push(a2);
                let r = (self.each)(&self.path);
                self.path.p1.pop();
                self.path.p2.pop();
                r
            }
            None => steps.iter().try_for_each(|&step| {
                let action = self.engine.action(&s, step);
                self.path.of(mover).push(action);
                let r = self.visit(self.engine.apply(&s, step), mover.other(), depth + 1);
                self.path.of(mover).pop();
                r
            }),
        };
        self.scratch[depth] = steps;
        result
    }
}
