//! Rummikub bots. Each sees only its seat's [`View`]: its own rack, the
//! table, the sizes of the other racks and of the bag. None can read
//! another rack or the bag's order, because the view does not hold them.

use rand::seq::SliceRandom;

use super::predict::predict_actions;
use crate::game::Seat;
use crate::rng::GameRng;
use crate::rummikub::action::{Action, Move};
use crate::rummikub::block::Block;
use crate::rummikub::game::{Rummikub, View};
use crate::rummikub::position::{Player, Position};
use crate::rummikub::rules::hosted_moves;
use crate::strategy::{Bots, Strategy};

/// The seat's legal moves, if the view says it is to move.
pub(crate) fn my_moves(seat: Seat, view: &View) -> Option<Vec<Move>> {
    if view.next != Some(seat) {
        return None;
    }
    let rack = view.rack.as_ref()?;
    Some(hosted_moves(rack, &view.table, view.bag, view.empty_bag))
}

/// A uniformly random legal move.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomMove;

impl Strategy<Rummikub> for RandomMove {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        let moves = my_moves(seat, view)?;
        moves.choose(rng).cloned()
    }
}

/// Plays as much as it can as soon as it can: a new row (three blocks off
/// the rack) before an extension (one block), and among those the highest
/// numbers first, since in the real game the blocks left on a rack at the
/// end count against their holder by their numbers. Ties go to the first
/// in the legal-move order, so the choice is deterministic.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

/// The greedy preference, smaller first.
fn greedy_key(mv: &Move) -> (u8, i64) {
    match mv {
        Move::PlayRow(row) => (0, -row.blocks().iter().map(|b| b.number).max().unwrap_or(0)),
        Move::PlayBlock { block, .. } => (1, -block.number),
        Move::Draw | Move::Pass => (2, 0),
    }
}

fn greedy(moves: &[Move]) -> Option<Move> {
    moves.iter().min_by_key(|m| greedy_key(m)).cloned()
}

impl Strategy<Rummikub> for Greedy {
    fn choose(&mut self, seat: Seat, view: &View, _rng: &mut GameRng) -> Option<Move> {
        greedy(&my_moves(seat, view)?)
    }
}

/// Samples the predictor takes per decision: enough to average out one
/// unlucky deal, few enough to answer within a turn's time.
pub const PREDICTOR_SAMPLES: usize = 8;

/// Positions one sample's search may expand before the predictor gives up
/// and plays greedily: a release build expands some millions of positions a
/// second, so a decision stays well under a second; early in a game (a full
/// bag) searches are far larger, and greedy play is all there is time for.
pub const PREDICTOR_BUDGET: usize = 40_000;

/// Looks ahead with [`super::predict`]: it deals the blocks it cannot see
/// (the 52 less its rack and the table) into a rack for the opponent and a
/// bag, both of the sizes the view shows, and for each sample counts the
/// complete games after each of its legal moves. It plays the move with
/// the best mean fraction of games won. When a sample's search would
/// exceed its budget, or with more than two seats (the counts are for two
/// players), it plays like [`Greedy`].
#[derive(Clone, Copy, Debug)]
pub struct Predictor {
    /// Samples per decision.
    pub samples: usize,
    /// Positions one sample's search may expand.
    pub budget: usize,
}

impl Default for Predictor {
    fn default() -> Self {
        Predictor {
            samples: PREDICTOR_SAMPLES,
            budget: PREDICTOR_BUDGET,
        }
    }
}

impl Predictor {
    /// The mean predicted win fraction of each move, or `None` when it
    /// cannot tell (the caller then plays greedily).
    pub(crate) fn scores(
        &self,
        seat: Seat,
        view: &View,
        moves: &[Move],
        rng: &mut GameRng,
    ) -> Option<Vec<f64>> {
        if view.rack_sizes.len() != 2 {
            return None;
        }
        let rack = view.rack.clone()?;
        let other = view.rack_sizes.get(1 - seat.index().min(1)).copied()?;
        let on_table: Vec<Block> = view
            .table
            .iter()
            .flat_map(|r| r.blocks().to_vec())
            .collect();
        let mut unseen: Vec<Block> = Block::hosted_set()
            .into_iter()
            .filter(|b| !rack.contains(b) && !on_table.contains(b))
            .collect();
        if unseen.len() != other + view.bag {
            return None;
        }
        let mut scores = vec![0.0; moves.len()];
        for _ in 0..self.samples {
            unseen.shuffle(rng);
            let (opp, bag) = unseen.split_at(other);
            let pos =
                Position::new(rack.clone(), opp.to_vec(), view.table.clone(), bag.to_vec()).ok()?;
            for (action, prediction) in predict_actions(&pos, self.budget)? {
                let mv = match action {
                    Action::Draw(_) => Move::Draw,
                    a => Move::from_action(&a)?,
                };
                let i = moves.iter().position(|m| *m == mv)?;
                scores[i] += prediction.fraction_for(Player::P1);
            }
        }
        Some(scores)
    }
}

impl Strategy<Rummikub> for Predictor {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        let moves = my_moves(seat, view)?;
        if moves.len() <= 1 {
            return moves.into_iter().next();
        }
        match self.scores(seat, view, &moves, rng) {
            Some(scores) => {
                let best =
                    (0..moves.len())
                        .fold(0, |best, i| if scores[i] > scores[best] { i } else { best });
                moves.get(best).cloned()
            }
            None => greedy(&moves),
        }
    }
}

impl Bots for Rummikub {
    const STRATEGIES: &'static [&'static str] = &["greedy", "random", "predictor", "sampler"];

    fn strategy(name: &str) -> Option<Box<dyn Strategy<Self>>> {
        match name {
            "greedy" => Some(Box::new(Greedy)),
            "random" => Some(Box::new(RandomMove)),
            "predictor" => Some(Box::new(Predictor::default())),
            _ => super::sampler::Sampler::by_name(name)
                .map(|s| Box::new(s) as Box<dyn Strategy<Self>>),
        }
    }
}
