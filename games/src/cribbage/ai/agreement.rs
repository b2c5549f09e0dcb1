//! Cribbage's engine agreement (see [`crate::analysis::agreement`]):
//! only the discards are judged. A discard is a choice when the
//! crib-aware advisor ([`rated_keeps`]) does not rate every way to keep
//! four alike; it agrees when the cards thrown are one of the advisor's
//! best throws (on a tie, any of the best). Laying cards in the play is
//! not judged.

use crate::analysis::{tally_match, verdict_of, Played, Tally, Verdict};
use crate::cribbage::advice::{rated_keeps, Role};
use crate::cribbage::card::Card;
use crate::cribbage::phase::Phase;
use crate::cribbage::view::View;
use crate::cribbage::{Config, Cribbage, Move};
use crate::game::{Game, Seat, Viewer};
use crate::rng::GameRng;

/// The verdict on `seat` throwing `thrown` in `view` (the seat's own).
pub fn judge(view: &View, seat: Seat, thrown: &[Card]) -> Verdict {
    if view.phase != Phase::Discard || view.you != Some(seat) {
        return Verdict::NoChoice;
    }
    let role = if view.side(view.dealer) == view.side(seat) {
        Role::Dealer
    } else {
        Role::Pone
    };
    let Ok(keeps) = rated_keeps(&view.hand, role) else {
        return Verdict::NoChoice;
    };
    let mut thrown = thrown.to_vec();
    thrown.sort();
    let values: Vec<i64> = keeps.iter().map(|k| k.value).collect();
    match keeps.iter().find(|k| k.crib == thrown) {
        Some(chosen) => verdict_of(&values, chosen.value),
        // Not a throw of these cards: the rules refuse it on replay.
        None => Verdict::NoChoice,
    }
}

/// Each seat's agreement in a finished Cribbage match.
pub fn agreement(
    cfg: &Config,
    seats: u8,
    rng: GameRng,
    steps: &[Played<Move>],
) -> Result<Vec<Tally>, String> {
    tally_match::<Cribbage>(cfg, seats, rng, steps, |game, seat, mv| match mv {
        Move::Discard(cards) => judge(&game.view(Viewer::Seat(seat)), seat, cards),
        Move::Play(_) => Verdict::NoChoice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cribbage::advice::advise;
    use crate::strategy::Strategy;

    /// Plays a two-player match to its end (or `max` steps), seat 0 with
    /// `first` and seat 1 with the expert; the steps.
    fn play(
        seed: u64,
        first: &mut dyn Strategy<Cribbage>,
        max: usize,
    ) -> (Config, Vec<Played<Move>>) {
        play_seated(seed, 2, first, max)
    }

    /// [`play`] with `seats` seats, every seat but 0 the expert's.
    fn play_seated(
        seed: u64,
        seats: u8,
        first: &mut dyn Strategy<Cribbage>,
        max: usize,
    ) -> (Config, Vec<Played<Move>>) {
        let cfg = Config::default();
        let mut rng = GameRng::from_seed(seed);
        let mut game = Cribbage::setup(&cfg, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut expert = crate::cribbage::Expert::default();
        let mut bot_rng = GameRng::from_seed(seed ^ 0x5eed);
        let mut steps = Vec::new();
        while game.outcome().is_none() && steps.len() < max {
            let Some(seat) = game.to_act().iter().next() else {
                break;
            };
            let view = game.view(Viewer::Seat(seat));
            let mv = if seat == Seat(0) {
                first.choose(seat, &view, &mut bot_rng)
            } else {
                expert.choose(seat, &view, &mut bot_rng)
            }
            .unwrap_or_else(|| panic!("no move at step {}", steps.len()));
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
    fn the_advisors_discards_agree_fully() {
        let (cfg, steps) = play(3, &mut crate::cribbage::Expert::default(), 60);
        let t = agreement(&cfg, 2, GameRng::from_seed(3), &steps).unwrap_or_else(|e| panic!("{e}"));
        for seat in &t {
            assert!(seat.choices > 0, "{t:?}");
            assert_eq!(seat.agreed, seat.choices, "{t:?}");
        }
    }

    #[test]
    fn with_three_and_four_players_each_single_discard_is_judged() {
        for seats in [3u8, 4] {
            let (cfg, steps) = play_seated(6, seats, &mut crate::cribbage::Expert::default(), 60);
            let t = agreement(&cfg, seats, GameRng::from_seed(6), &steps)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(t.len(), usize::from(seats));
            assert!(t.iter().any(|s| s.choices > 0), "{t:?}");
            assert!(t.iter().all(|s| s.agreed == s.choices), "{t:?}");
        }
    }

    #[test]
    fn a_bad_discard_does_not_agree_and_the_play_is_not_judged() {
        let cards = |s: &str| -> Vec<Card> {
            s.split_whitespace()
                .map(|t| t.parse().unwrap_or_else(|e| panic!("{e}")))
                .collect()
        };
        let mut rng = GameRng::from_seed(1);
        let game =
            Cribbage::setup(&Config::default(), 2, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut view = game.view(Viewer::Seat(Seat(0)));
        view.hand = cards("5H 5S 5C JD KC 9S");
        let role = if view.side(view.dealer) == view.side(Seat(0)) {
            Role::Dealer
        } else {
            Role::Pone
        };
        let best = advise(&view.hand, role).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            judge(&view, Seat(0), &best.crib),
            Verdict::Choice { agreed: true }
        );
        // Throwing two fives breaks the hand's fifteens.
        assert_eq!(
            judge(&view, Seat(0), &cards("5H 5S")),
            Verdict::Choice { agreed: false }
        );
        // In the play, nothing is judged.
        view.phase = Phase::Play;
        assert_eq!(judge(&view, Seat(0), &best.crib), Verdict::NoChoice);
    }

    #[test]
    fn agreement_never_exceeds_choices_for_random_play() {
        for seed in 0..3 {
            let (cfg, steps) = play(seed, &mut crate::cribbage::RandomMove, 80);
            let t = agreement(&cfg, 2, GameRng::from_seed(seed), &steps)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(t.iter().all(|s| s.agreed <= s.choices), "{t:?}");
            // The expert at seat 1 agrees with its own advisor.
            assert_eq!(t[1].agreed, t[1].choices);
        }
    }
}
