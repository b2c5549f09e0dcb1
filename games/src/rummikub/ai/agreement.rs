//! Rummikub's engine agreement (see [`crate::analysis::agreement`]): the
//! `predictor` bot's own judgement, from the seat's view only (its rack,
//! the table, the sizes of the other rack and the bag), with its samples
//! of the unseen blocks drawn from a generator fixed by
//! [`AGREEMENT_SEED`] so that every node counts alike. A move is a
//! choice when there was more than one and the predictor's mean
//! predicted win fractions are not all equal; it agrees when its
//! fraction is the best (on a tie, any of the best).
//!
//! Bounded work: only positions where the seat cannot see at most
//! [`AGREEMENT_MAX_UNSEEN`] blocks are judged, and each sample's search
//! is held to the predictor's own budget; past it the predictor plays
//! greedily, and such a position is not judged either. So the measure
//! covers the endgame, where the predictor actually decides.

use super::strategy::{my_moves, Predictor};
use crate::analysis::{tally_match, verdict_of, Played, Tally, Verdict};
use crate::game::{Game, Seat, Viewer};
use crate::rng::GameRng;
use crate::rummikub::game::View;
use crate::rummikub::{Config, Move, Rummikub};

/// The seed of the predictor's samples when judging: any fixed number
/// does; fixed, so that the same log gives the same counts everywhere.
pub const AGREEMENT_SEED: u64 = 0x5eed_fa12;

/// The most unseen blocks (the other rack and the bag together) in a
/// position that is judged. Measured on two-player games (racks of 5 and
/// 14, debug build): up to about 30 unseen blocks the predictor's
/// samples fit their budget and a decision takes milliseconds; beyond,
/// they rarely fit (it then plays greedily), so trying only costs.
pub const AGREEMENT_MAX_UNSEEN: usize = 30;

/// The verdict on `seat` playing `mv` (as `canonical` shows it) in
/// `view`, sampling with `rng`.
pub fn judge(game: &Rummikub, view: &View, seat: Seat, mv: &Move, rng: &mut GameRng) -> Verdict {
    let Some(moves) = my_moves(seat, view) else {
        return Verdict::NoChoice;
    };
    let racks: usize = view.rack_sizes.iter().sum();
    let unseen = (view.bag + racks).saturating_sub(view.rack.as_ref().map_or(0, Vec::len));
    if moves.len() < 2 || unseen > AGREEMENT_MAX_UNSEEN {
        return Verdict::NoChoice;
    }
    let chosen = game.canonical(seat, mv);
    let Some(i) = moves.iter().position(|m| game.canonical(seat, m) == chosen) else {
        return Verdict::NoChoice;
    };
    match Predictor::default().scores(seat, view, &moves, rng) {
        Some(scores) => match scores.get(i) {
            Some(&mine) => verdict_of(&scores, mine),
            None => Verdict::NoChoice,
        },
        None => Verdict::NoChoice,
    }
}

/// Each seat's agreement in a finished Rummikub match.
pub fn agreement(
    cfg: &Config,
    seats: u8,
    rng: GameRng,
    steps: &[Played<Move>],
) -> Result<Vec<Tally>, String> {
    let mut samples = GameRng::from_seed(AGREEMENT_SEED);
    tally_match::<Rummikub>(cfg, seats, rng, steps, |game, seat, mv| {
        judge(game, &game.view(Viewer::Seat(seat)), seat, mv, &mut samples)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::Strategy;

    /// A two-player match with small racks, seat 0 playing the
    /// predictor and seat 1 `second`; the steps.
    fn play(seed: u64, second: &mut dyn Strategy<Rummikub>) -> (Config, Vec<Played<Move>>) {
        let cfg = Config {
            rack_size: 5,
            ..Config::default()
        };
        let mut rng = GameRng::from_seed(seed);
        let mut game = Rummikub::setup(&cfg, 2, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut first = Predictor::default();
        let mut bot_rng = GameRng::from_seed(seed + 1);
        let mut steps = Vec::new();
        while game.outcome().is_none() && steps.len() < 200 {
            let Some(seat) = game.to_act().iter().next() else {
                break;
            };
            let view = game.view(Viewer::Seat(seat));
            let mv = if seat == Seat(0) {
                first.choose(seat, &view, &mut bot_rng)
            } else {
                second.choose(seat, &view, &mut bot_rng)
            }
            .unwrap_or_else(|| panic!("no move"));
            game.play(seat, &mv, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            steps.push(Played {
                seat,
                mv: Some(mv),
                chosen: true,
            });
        }
        (cfg, steps)
    }

    #[test]
    fn counts_stay_within_choices_and_forced_or_distant_positions_are_not_judged() {
        let (cfg, steps) = play(9, &mut super::super::strategy::RandomMove);
        let t = agreement(&cfg, 2, GameRng::from_seed(9), &steps).unwrap_or_else(|e| panic!("{e}"));
        assert!(t.iter().all(|s| s.agreed <= s.choices), "{t:?}");
        // A position with a single legal move is never a choice.
        let mut rng = GameRng::from_seed(9);
        let game = Rummikub::setup(&cfg, 2, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let view = game.view(Viewer::Seat(Seat(1)));
        assert_eq!(
            judge(
                &game,
                &view,
                Seat(1),
                &Move::Draw,
                &mut GameRng::from_seed(1)
            ),
            Verdict::NoChoice,
            "not seat 1's turn"
        );
        // At the start, the full bag is beyond the bound: not judged.
        let view = game.view(Viewer::Seat(Seat(0)));
        assert_eq!(
            judge(
                &game,
                &view,
                Seat(0),
                &Move::Draw,
                &mut GameRng::from_seed(1)
            ),
            Verdict::NoChoice
        );
    }

    #[test]
    fn the_predictors_best_agrees_and_its_worst_does_not() {
        // Walk matches to positions where the predictor tells the moves
        // apart (in many, one side's games are all lost whatever it does).
        let mut judged = 0;
        for seed in 0..12 {
            judged += judge_along(seed);
            if judged >= 2 {
                break;
            }
        }
        assert!(judged > 0, "no position was a choice");
    }

    /// Along a match of the predictor and the greedy bot: at each position
    /// the predictor tells apart, its best move agrees and its worst does
    /// not. How many such positions there were.
    fn judge_along(seed: u64) -> usize {
        let (cfg, steps) = play(seed, &mut super::super::strategy::Greedy);
        let mut rng = GameRng::from_seed(seed);
        let mut game = Rummikub::setup(&cfg, 2, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut judged = 0;
        for step in &steps {
            let view = game.view(Viewer::Seat(step.seat));
            if let Some(moves) = my_moves(step.seat, &view) {
                if let [only] = moves.as_slice() {
                    // A forced move (mostly a draw) is never a choice.
                    let mut samples = GameRng::from_seed(AGREEMENT_SEED);
                    assert_eq!(
                        judge(&game, &view, step.seat, only, &mut samples),
                        Verdict::NoChoice
                    );
                }
                let scores = Predictor::default().scores(
                    step.seat,
                    &view,
                    &moves,
                    &mut GameRng::from_seed(AGREEMENT_SEED),
                );
                let racks: usize = view.rack_sizes.iter().sum();
                let own = view.rack.as_ref().map_or(0, Vec::len);
                let near = view.bag + racks - own <= AGREEMENT_MAX_UNSEEN;
                if let (Some(scores), true) = (scores, near) {
                    let best = (0..moves.len())
                        .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
                        .unwrap_or(0);
                    let worst = (0..moves.len())
                        .min_by(|&a, &b| scores[a].total_cmp(&scores[b]))
                        .unwrap_or(0);
                    if scores[best] > scores[worst] {
                        let verdict = |i: usize| {
                            judge(
                                &game,
                                &view,
                                step.seat,
                                &moves[i],
                                &mut GameRng::from_seed(AGREEMENT_SEED),
                            )
                        };
                        assert_eq!(verdict(best), Verdict::Choice { agreed: true });
                        assert_eq!(verdict(worst), Verdict::Choice { agreed: false });
                        judged += 1;
                    }
                }
            }
            let Some(mv) = &step.mv else { break };
            game.play(step.seat, mv, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        judged
    }
}
