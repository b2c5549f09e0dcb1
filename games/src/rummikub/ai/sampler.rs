//! `sampler`: a Rummikub bot that plays the hidden information properly,
//! by determinized Monte Carlo. For each decision it deals the blocks it
//! has not seen many times over (racks of the sizes the view
//! shows, agreeing with what the last moves reveal, and a bag order), plays
//! each legal move on every deal and then the game to its end by a fast
//! policy ([`Policy`]), and takes the move with the best mean result.
//! Every move is tried on the same deals with the same playout seeds, so
//! that the luck of a deal weighs on all moves alike.
//!
//! The name `"sampler"` plays [`SAMPLER_PLAYOUTS`] playouts a decision;
//! `"sampler:N"` plays N (at most [`SAMPLER_MAX_PLAYOUTS`]).

use rand::RngCore;

use super::board::Step;
use super::hidden::Hidden;
use super::playout::{play_out, Mix, Policy};
use super::strategy::Greedy;
use crate::game::Seat;
use crate::rng::GameRng;
use crate::rummikub::action::Move;
use crate::rummikub::game::{Rummikub, View};
use crate::rummikub::rules::hosted_moves;
use crate::strategy::Strategy;

/// Playouts per decision, over all moves: a release build plays about
/// half a million a second, so a decision takes milliseconds, and memory
/// is a board and a score per move. More does not play better: 2,000 and
/// 32,000 won the same share against `random` and `greedy` (2,000 deals).
pub const SAMPLER_PLAYOUTS: usize = 4_000;

/// The most playouts a name may ask for (`"sampler:N"`): bots think on the
/// server's blocking threads, and this keeps one decision within about a
/// second in a release build.
pub const SAMPLER_MAX_PLAYOUTS: usize = 100_000;

/// Fewest deals per decision, whatever the number of moves: fewer deals
/// than this judge moves on too few guesses of the other racks. A decision
/// thus plays at most the larger of its playouts and this many per legal
/// move (when there is a choice, 2.1 moves on average in two-player games
/// with racks of 7).
pub const SAMPLER_MIN_DEALS: usize = 64;

/// The policy of the playouts.
pub const SAMPLER_POLICY: Policy = Policy::Greedy { explore: 4 };

/// Determinized Monte Carlo over the unseen blocks (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct Sampler {
    /// Playouts per decision, over all moves.
    pub playouts: usize,
    /// How the playouts play.
    pub policy: Policy,
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler {
            playouts: SAMPLER_PLAYOUTS,
            policy: SAMPLER_POLICY,
        }
    }
}

impl Sampler {
    /// The sampler a bot name asks for: `"sampler"` plays
    /// [`SAMPLER_PLAYOUTS`] a decision, `"sampler:N"` N of them (1 to
    /// [`SAMPLER_MAX_PLAYOUTS`]).
    pub fn by_name(name: &str) -> Option<Sampler> {
        let playouts = match name.strip_prefix("sampler") {
            Some("") => SAMPLER_PLAYOUTS,
            Some(rest) => rest.strip_prefix(':')?.parse().ok()?,
            None => return None,
        };
        (1..=SAMPLER_MAX_PLAYOUTS)
            .contains(&playouts)
            .then_some(Sampler {
                playouts,
                ..Sampler::default()
            })
    }

    /// The mean result of each of `steps` for `seat`, over deals of
    /// `hidden`.
    fn scores(&self, seat: Seat, hidden: &Hidden, steps: &[Step], rng: &mut GameRng) -> Vec<f64> {
        let deals = (self.playouts / steps.len().max(1)).max(SAMPLER_MIN_DEALS);
        let mut scores = vec![0.0; steps.len()];
        let mut buf = Vec::new();
        for _ in 0..deals {
            let board = hidden.deal(rng);
            let seed = rng.next_u64();
            for (score, &step) in scores.iter_mut().zip(steps) {
                let mut b = board;
                b.apply(step);
                let mut mix = Mix::new(seed);
                *score += play_out(&mut b, self.policy, &mut mix, &mut buf).value(seat.index());
            }
        }
        scores
    }
}

impl Strategy<Rummikub> for Sampler {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        if view.next != Some(seat) {
            return None;
        }
        let moves = hosted_moves(view.rack.as_ref()?, &view.table, view.bag, view.empty_bag);
        if moves.len() <= 1 {
            return moves.into_iter().next();
        }
        let steps: Option<Vec<Step>> = moves.iter().map(Step::of_move).collect();
        let (Some(steps), Some(hidden)) = (steps, Hidden::of_view(seat, view)) else {
            return Greedy.choose(seat, view, rng);
        };
        let scores = self.scores(seat, &hidden, &steps, rng);
        let best =
            (0..moves.len()).fold(0, |best, i| if scores[i] > scores[best] { i } else { best });
        moves.get(best).cloned()
    }
}
