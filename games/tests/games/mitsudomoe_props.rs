//! Mitsudomoe property tests over random games: they end, every
//! generated turn is accepted by `play` and leads where the generator
//! said, refused turns change nothing, and the text forms round-trip.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::ops::ControlFlow::Continue;

use parlor_games::mitsudomoe::{
    count_turns, each_turn, legal_turns, nth_turn, play, Config, Mitsudomoe, Move, Position, Square,
};
use parlor_games::{Game, GameRng, Seat, Viewer};
use proptest::prelude::*;

/// Random games far outlast this only if they never end: random play
/// ends in about 7 turns at the median and a few hundred at most (200
/// games measured), mostly by the anti-stalling rule.
const MAX_TURNS: usize = 5_000;

/// A random candidate turn from any squares, with 0 to 3 relocations.
fn candidate(rng: &mut GameRng) -> Move {
    let mut sq = || Square::from_index(rng.below(25) as usize).unwrap();
    let ring = if sq().index() % 2 == 0 {
        format!("+{}", sq())
    } else {
        format!("{}-{}", sq(), sq())
    };
    let mut text = format!("{ring} {}-{}", sq(), sq());
    for _ in 0..sq().index() % 4 {
        text.push_str(&format!(" x{}-{}", sq(), sq()));
    }
    text.parse().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_games_end_and_keep_every_promise(seed: u64) {
        let mut rng = GameRng::from_seed(seed);
        let mut g = Mitsudomoe::setup(&Config::default(), 2, &mut rng).unwrap();
        let mut turns = 0;
        while g.outcome().is_none() {
            prop_assert!(turns < MAX_TURNS, "seed {seed} did not end");
            let p = *g.position();
            let seat = p.to_move().seat();
            // Text forms round-trip; the view carries the position.
            prop_assert_eq!(p.to_string().parse::<Position>().ok(), Some(p));
            prop_assert_eq!(g.view(Viewer::Spectator).position, p.to_string());
            // Every generated turn is accepted and leads where the
            // generator said; the listing and the count agree.
            let mut n = 0;
            let _ = each_turn::<()>(&p, |m, child| {
                let played = play(&p, m).unwrap_or_else(|e| panic!("{p}: {m}: {e}"));
                assert_eq!(&played.position, child, "{p}: {m}");
                assert_eq!(m.to_string().parse::<Move>().ok(), Some(*m));
                n += 1;
                Continue(())
            });
            prop_assert_eq!(n, count_turns(&p));
            prop_assert_eq!(legal_turns(&p), g.legal_moves(seat));
            prop_assert!(g.legal_moves(Seat(1 - seat.0)).is_empty());
            // Refused candidates change nothing.
            for _ in 0..20 {
                let c = candidate(&mut rng);
                let mut tried = g.clone();
                if tried.play(seat, &c, &mut rng.clone()).is_err() {
                    prop_assert_eq!(&tried, &g);
                }
            }
            let pick = nth_turn(&p, rng.below(n as u64) as usize).unwrap();
            g.play(seat, &pick, &mut rng).unwrap();
            turns += 1;
        }
        prop_assert!(g.to_act().is_empty());
        prop_assert!(g.view(Viewer::Spectator).end.is_some());
    }
}
