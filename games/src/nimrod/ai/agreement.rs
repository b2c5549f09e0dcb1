//! Nimrod's engine agreement (see [`crate::analysis::agreement`]): a
//! decision is a choice when the position has a winning move (it is not
//! a lose position) and not every legal move wins; it agrees when the
//! move reaches a lose position (any winning move counts, not only
//! [`best_move`](super::lose::best_move)'s).

use super::lose::{is_lose, winning_moves};
use crate::analysis::{tally_match, Played, Tally, Verdict};
use crate::game::Seat;
use crate::nimrod::game::{Config, Nimrod};
use crate::nimrod::piles::Piles;
use crate::nimrod::play::Move;
use crate::rng::GameRng;

/// The verdict on playing `mv` from `piles`.
pub fn judge(piles: Piles, mv: Move) -> Verdict {
    if is_lose(piles) {
        // Every move loses against perfect play: nothing to tell apart.
        return Verdict::NoChoice;
    }
    let winning = winning_moves(piles);
    if piles.move_count() <= winning.len() as u128 {
        return Verdict::NoChoice;
    }
    Verdict::Choice {
        agreed: piles.after(mv).is_some_and(is_lose),
    }
}

/// Each seat's agreement in a finished Nimrod match.
pub fn agreement(
    cfg: &Config,
    seats: u8,
    rng: GameRng,
    steps: &[Played<Move>],
) -> Result<Vec<Tally>, String> {
    tally_match::<Nimrod>(cfg, seats, rng, steps, |game: &Nimrod, _: Seat, mv| {
        judge(game.piles(), *mv)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::nimrod::ai::lose::best_move;
    use proptest::prelude::*;

    fn piles(a: u64, b: u64) -> Piles {
        Piles::new(a, b).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The steps of a match from `start`, seat 0 choosing with `first`
    /// and seat 1 with `second` (each given the piles, answering a legal
    /// move).
    fn play(
        start: [u64; 2],
        mut first: impl FnMut(Piles) -> Move,
        mut second: impl FnMut(Piles) -> Move,
    ) -> Vec<Played<Move>> {
        let mut rng = GameRng::from_seed(1);
        let mut game = Nimrod::from_piles(piles(start[0], start[1]));
        let mut steps = Vec::new();
        let mut seat = Seat(0);
        while game.outcome().is_none() {
            let mv = if seat == Seat(0) {
                first(game.piles())
            } else {
                second(game.piles())
            };
            game.play(seat, &mv, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            steps.push(Played {
                seat,
                mv: Some(mv),
                chosen: true,
            });
            seat = Seat(1 - seat.0);
        }
        steps
    }

    /// Perfect play where it wins, one rod from the greater pile where it
    /// cannot.
    fn optimal(p: Piles) -> Move {
        best_move(p).unwrap_or(Move::new(0, 1))
    }

    /// One rod from the greater pile, whatever the position.
    fn one_rod(p: Piles) -> Move {
        if p.b() > 0 {
            Move::new(0, 1)
        } else {
            Move::new(1, 0)
        }
    }

    fn tallies(start: [u64; 2], steps: &[Played<Move>]) -> Vec<Tally> {
        agreement(&Config::Piles(start), 2, GameRng::from_seed(1), steps)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_optimal_line_agrees_fully_and_a_blunder_does_not() {
        // (4, 9) is not a lose position: seat 0 has a winning move.
        let steps = play([4, 9], optimal, one_rod);
        let t = tallies([4, 9], &steps);
        assert!(t[0].choices > 0, "{t:?}");
        assert_eq!(t[0].agreed, t[0].choices);
        // (6, 10) is a lose position: no choice. From (4, 6) only taking
        // one from each pile reaches a lose position, (3, 5).
        assert_eq!(judge(piles(6, 10), Move::new(1, 0)), Verdict::NoChoice);
        assert_eq!(
            judge(piles(4, 6), Move::new(0, 1)),
            Verdict::Choice { agreed: false }
        );
        assert_eq!(
            judge(piles(4, 6), Move::new(1, 1)),
            Verdict::Choice { agreed: true }
        );
    }

    #[test]
    fn forced_moves_and_all_winning_moves_are_no_choice() {
        // One rod left: one legal move.
        assert_eq!(judge(piles(0, 1), Move::new(0, 1)), Verdict::NoChoice);
        // (1, 1): three moves, only taking both wins; a choice.
        assert_eq!(
            judge(piles(1, 1), Move::new(1, 0)),
            Verdict::Choice { agreed: false }
        );
        // Timeout moves are played but never judged.
        let mut steps = play([4, 9], optimal, optimal);
        for s in &mut steps {
            s.chosen = false;
        }
        assert!(tallies([4, 9], &steps)
            .iter()
            .all(|t| *t == Tally::default()));
    }

    #[test]
    fn a_forfeit_ends_the_tally_and_another_games_step_is_refused() {
        let steps = vec![
            Played {
                seat: Seat(0),
                mv: Some(Move::new(1, 1)),
                chosen: true,
            },
            Played {
                seat: Seat(1),
                mv: None,
                chosen: true,
            },
        ];
        let t = tallies([4, 6], &steps);
        assert_eq!(
            t[0],
            Tally {
                choices: 1,
                agreed: 1
            }
        );
        let bad = vec![Played {
            seat: Seat(0),
            mv: Some(Move::new(9, 9)),
            chosen: true,
        }];
        assert!(agreement(&Config::Piles([4, 6]), 2, GameRng::from_seed(1), &bad).is_err());
    }

    proptest! {
        #[test]
        fn agreement_never_exceeds_choices_and_optimal_play_agrees_fully(
            a in 1u64..40, b in 1u64..40, picks in proptest::collection::vec(any::<u64>(), 80)
        ) {
            let mut i = 0usize;
            let random = |p: Piles| {
                let k = picks.get(i % picks.len()).copied().unwrap_or(0);
                i += 1;
                p.nth_move(u128::from(k) % p.move_count()).unwrap_or(Move::new(0, 1))
            };
            let steps = play([a, b], optimal, random);
            let t = tallies([a, b], &steps);
            for seat in &t {
                prop_assert!(seat.agreed <= seat.choices);
            }
            prop_assert_eq!(t[0].agreed, t[0].choices);
        }
    }
}
