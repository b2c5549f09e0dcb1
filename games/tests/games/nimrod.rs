//! Nimrod: lose positions checked against brute force and the seed's own
//! generation procedure; strategies checked by playing them.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::nimrod::{
    best_move, is_lose, lose_positions, winning_moves, Move, Nimrod, Piles, MAX_PILE,
};
use parlor_games::{Bots, Game, GameRng, Outcome, Seat, SeatSet, Viewer};
use proptest::prelude::*;

fn piles(x: u64, y: u64) -> Piles {
    Piles::new(x, y).unwrap_or_else(|e| panic!("{e}"))
}

/// The seed's generation: the i-th lose position takes the lowest unused
/// integer `a` and pairs it with `a + i`; both are crossed off.
fn greedy_lose_positions(n: usize) -> Vec<(u64, u64)> {
    let mut used = std::collections::BTreeSet::new();
    let mut out = vec![(0, 0)];
    let mut next = 1u64;
    for i in 1..n as u64 {
        while used.contains(&next) {
            next += 1;
        }
        let a = next;
        used.insert(a);
        used.insert(a + i);
        out.push((a, a + i));
    }
    out.truncate(n);
    out
}

#[test]
fn closed_form_agrees_with_the_seeds_greedy_generation() {
    let closed: Vec<(u64, u64)> = lose_positions(5_000)
        .iter()
        .map(|p| (p.a(), p.b()))
        .collect();
    assert_eq!(closed, greedy_lose_positions(5_000));
}

/// Exhaustive up to 300: a lose position has no move to a lose position,
/// every other position has one, and `winning_moves` lists exactly those.
#[test]
fn lose_positions_are_exactly_the_positions_without_a_move_to_one() {
    const N: u64 = 300;
    // lose[a][b] by the definition (the player to move cannot reach a lose
    // position), computed bottom-up without the closed form.
    let n = N as usize + 1;
    let mut lose = vec![vec![false; n]; n];
    for a in 0..n {
        for b in a..n {
            let p = piles(a as u64, b as u64);
            let reaches_lose = p.moves().any(|m| {
                let q = p.after(m).unwrap_or_else(|| panic!("{m:?} from {p:?}"));
                lose[q.a() as usize][q.b() as usize]
            });
            lose[a][b] = !reaches_lose;
        }
    }
    for a in 0..n {
        for b in a..n {
            let p = piles(a as u64, b as u64);
            assert_eq!(is_lose(p), lose[a][b], "{p:?}");
            let brute: Vec<Move> = p
                .moves()
                .filter(|&m| {
                    p.after(m)
                        .is_some_and(|q| lose[q.a() as usize][q.b() as usize])
                })
                .collect();
            let mut brute_sorted = brute.clone();
            brute_sorted.sort();
            assert_eq!(winning_moves(p), brute_sorted, "{p:?}");
            assert_eq!(best_move(p).is_some(), !lose[a][b], "{p:?}");
        }
    }
}

fn play_out(start: Piles, first: &str, second: &str, seed: u64) -> Outcome {
    let mut game = Nimrod::from_piles(start);
    let mut rng = GameRng::from_seed(seed);
    let mut bots = [first, second]
        .map(|name| Nimrod::strategy(name).unwrap_or_else(|| panic!("no strategy {name}")));
    // Every move removes at least one rod, so a game lasts at most a+b moves.
    let bound = start.a() + start.b();
    for _ in 0..bound {
        if let Some(outcome) = game.outcome() {
            return outcome;
        }
        let seat = game
            .to_act()
            .iter()
            .next()
            .unwrap_or_else(|| panic!("nobody to act"));
        let view = game.view(Viewer::Seat(seat));
        let mv = bots[seat.index()]
            .choose(seat, &view, &mut rng)
            .unwrap_or_else(|| panic!("bot had no move at {view:?}"));
        game.play(seat, &mv, &mut rng)
            .unwrap_or_else(|e| panic!("bot played illegal {mv:?}: {e}"));
    }
    game.outcome()
        .unwrap_or_else(|| panic!("game from {start:?} did not end"))
}

fn winner(seat: u8) -> Outcome {
    Outcome::Win {
        winners: SeatSet::single(Seat(seat)),
    }
}

#[test]
fn optimal_wins_from_every_winning_start_and_defends_every_losing_one() {
    for a in 0..40 {
        for b in a..40 {
            if a + b == 0 {
                continue;
            }
            let start = piles(a, b);
            for rival in ["random", "simple", "optimal"] {
                if is_lose(start) {
                    // The first player cannot win against perfect play.
                    assert_eq!(play_out(start, rival, "optimal", a * 41 + b), winner(1));
                } else {
                    assert_eq!(play_out(start, "optimal", rival, a * 41 + b), winner(0));
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn huge_positions_best_move_reaches_a_lose_position(x in 0..=MAX_PILE, y in 0..=MAX_PILE) {
        let p = piles(x, y);
        match best_move(p) {
            None => prop_assert!(is_lose(p)),
            Some(m) => {
                prop_assert!(m.is_valid());
                let q = p.after(m);
                prop_assert!(q.is_some_and(is_lose), "{:?} -> {:?}", p, q);
            }
        }
    }

    #[test]
    fn random_playouts_end_with_the_last_mover_winning(x in 0u64..60, y in 1u64..60, seed: u64) {
        let outcome = play_out(piles(x, y), "random", "random", seed);
        let single_winner = matches!(outcome, Outcome::Win { winners } if winners.len() == 1);
        prop_assert!(single_winner, "{:?}", outcome);
    }

    #[test]
    fn a_refused_move_changes_nothing(x in 0u64..50, y in 1u64..50, tx in 0u64..60, ty in 0u64..60, seat in 0u8..2) {
        let mut g = Nimrod::from_piles(piles(x, y));
        let before = g.clone();
        let mut rng = GameRng::from_seed(0);
        if g.play(Seat(seat), &Move::new(tx, ty), &mut rng).is_err() {
            prop_assert_eq!(g, before);
        }
    }
}
