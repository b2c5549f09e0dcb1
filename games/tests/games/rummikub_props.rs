//! Rummikub Lite: properties checked on random deals and random games.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::ops::ControlFlow;

use num_bigint::BigUint;
use parlor_games::rummikub::{
    outcomes, predict, predict_sequential, valid_table, Action, Block, Color, Move, Player,
    Position, Row, Rummikub,
};
use parlor_games::{Bots, Game, GameRng, Outcome, Seat, Viewer};
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// A random position over the blocks 1..=8 in four colours: a table of up
/// to two rows (an nrow, a crow of 8s), racks of `r1` and `r2` blocks and a
/// bag of `bag` blocks from the rest, either player to move.
fn random_position(seed: u64, r1: usize, r2: usize, bag: usize) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut table = Vec::new();
    let mut used: Vec<Block> = Vec::new();
    if rng.gen_bool(0.5) {
        let c = Color::ALL[rng.gen_range(0..4)];
        let lo = rng.gen_range(1..=4);
        let hi = lo + rng.gen_range(2..=3);
        let row: Vec<Block> = (lo..=hi).map(|n| Block::new(n, c)).collect();
        used.extend(&row);
        table.push(Row::Nrow(row));
    }
    if rng.gen_bool(0.3) {
        let mut colors = Color::ALL.to_vec();
        colors.shuffle(&mut rng);
        let row: Vec<Block> = colors[..3].iter().map(|&c| Block::new(8, c)).collect();
        used.extend(&row);
        table.push(Row::Crow(row));
    }
    let mut rest: Vec<Block> = (1..=8)
        .flat_map(|n| Color::ALL.map(|c| Block::new(n, c)))
        .filter(|b| !used.contains(b))
        .collect();
    rest.shuffle(&mut rng);
    let p1 = rest[..r1].to_vec();
    let p2 = rest[r1..r1 + r2].to_vec();
    let bag = rest[r1 + r2..r1 + r2 + bag].to_vec();
    let mover = if rng.gen_bool(0.5) {
        Player::P1
    } else {
        Player::P2
    };
    Position::new(p1, p2, table, bag)
        .unwrap_or_else(|e| panic!("{e}"))
        .with_to_move(mover)
}

/// Counts the streamed outcomes one by one: (p1 wins, p2 wins, draws).
fn enumerate(pos: &Position) -> (u64, u64, u64) {
    let mut c = (0, 0, 0);
    let _ = outcomes(pos, |s| {
        match (s.p1.last(), s.p2.last()) {
            (Some(Action::Win), Some(Action::Lose)) => c.0 += 1,
            (Some(Action::Lose), Some(Action::Win)) => c.1 += 1,
            (Some(Action::DrawGame), Some(Action::DrawGame)) => c.2 += 1,
            other => panic!("bad final words {other:?}"),
        }
        ControlFlow::Continue(())
    });
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn predict_counts_equal_the_streamed_outcomes(seed: u64, r1 in 0usize..6, r2 in 0usize..6, bag in 0usize..5) {
        let pos = random_position(seed, r1, r2, bag);
        let (w, l, d) = enumerate(&pos);
        let p = predict(&pos);
        prop_assert_eq!(
            (p.p1_wins.clone(), p.p2_wins.clone(), p.draws.clone()),
            (BigUint::from(w), BigUint::from(l), BigUint::from(d)),
            "{}", pos
        );
        prop_assert_eq!(predict_sequential(&pos).0, p);
    }

    #[test]
    fn every_streamed_game_replays_legally_and_alternates(seed: u64, r1 in 1usize..5, r2 in 1usize..5, bag in 0usize..4) {
        let pos = random_position(seed, r1, r2, bag).with_to_move(Player::P1);
        let mut seen = 0;
        let _ = outcomes(&pos, |s| {
            seen += 1;
            // P1 moves first, so P1 has as many actions as P2, or one more.
            assert!(s.p1.len() == s.p2.len() || s.p1.len() == s.p2.len() + 1, "{s:?}");
            assert!(s.p1.last().is_some_and(Action::is_final));
            assert!(s.p1[..s.p1.len() - 1].iter().all(|a| !a.is_final()));
            if seen > 200 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        prop_assert!(seen >= 1);
    }

    #[test]
    fn a_refused_move_changes_nothing(seed: u64, seats in 2u8..=4, prefix in 0usize..12, pick in 0usize..60, kind in 0u8..3) {
        let mut rng = GameRng::from_seed(seed);
        let mut g = Rummikub::setup(&Default::default(), seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..prefix {
            let Some(seat) = g.to_act().iter().next() else { break };
            let moves = g.legal_moves(seat);
            let mv = moves[pick % moves.len()].clone();
            g.play(seat, &mv, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        }
        let before = g.clone();
        let all = Block::hosted_set();
        let blocks: Vec<Block> = (0..4).map(|i| all[(pick * 7 + i * 13) % all.len()]).collect();
        let seat = Seat((pick % usize::from(seats)) as u8);
        let mv = match kind {
            0 => Move::PlayRow(Row::Nrow(blocks[..3].to_vec())),
            1 => Move::PlayBlock { block: blocks[0], row: Row::Crow(blocks.clone()) },
            _ => Move::Draw,
        };
        if g.play(seat, &mv, &mut rng).is_err() {
            prop_assert_eq!(g, before);
        }
    }

    #[test]
    fn random_games_end_with_a_valid_table_and_views_hide_what_they_must(seed: u64, seats in 2u8..=4, rack in 1u32..=13) {
        let mut rng = GameRng::from_seed(seed);
        let cfg = parlor_games::rummikub::Config { rack_size: rack.min(51 / u32::from(seats)), ..Default::default() };
        let mut g = Rummikub::setup(&cfg, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut bot = Rummikub::strategy("random").unwrap_or_else(|| panic!("no random bot"));
        // Each turn lays at least one block or draws one, and no block is
        // drawn twice: 52 + 52 turns is more than any game can last.
        for _ in 0..=104 {
            check_views(&g)?;
            let Some(seat) = g.to_act().iter().next() else { break };
            let view = g.view(Viewer::Seat(seat));
            let mv = bot.choose(seat, &view, &mut rng).unwrap_or_else(|| panic!("no move at {view:?}"));
            prop_assert!(g.legal_moves(seat).contains(&mv));
            g.play(seat, &mv, &mut rng).unwrap_or_else(|e| panic!("{e}"));
            prop_assert!(valid_table(g.table()).is_empty(), "{:?}", valid_table(g.table()));
        }
        prop_assert!(g.outcome().is_some(), "game did not end");
        if let Some(Outcome::Win { winners }) = g.outcome() {
            prop_assert_eq!(winners.len(), 1);
            prop_assert!(winners.iter().all(|s| g.rack(s).is_empty()));
        }
    }
}

proptest! {
    /// With `empty_bag: "pass"`, random and greedy games always end: every
    /// turn but a pass lays a block or draws one (at most 52 + 52 such
    /// turns), and at most one pass per seat comes between two of them
    /// before the game ends. The winners are the seat that emptied its
    /// rack, or else the seats with the lowest rack total.
    #[test]
    fn random_games_with_passing_always_end(seed: u64, seats in 2u8..=4, rack in 1u32..=12, greedy: bool) {
        let mut rng = GameRng::from_seed(seed);
        let cfg = parlor_games::rummikub::Config {
            rack_size: rack.min(51 / u32::from(seats)),
            empty_bag: parlor_games::rummikub::EmptyBag::Pass,
        };
        let mut g = Rummikub::setup(&cfg, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut bot = Rummikub::strategy(if greedy { "greedy" } else { "random" })
            .unwrap_or_else(|| panic!("no bot"));
        let bound = (104 + 1) * usize::from(seats);
        let mut passes = 0;
        for _ in 0..=bound {
            let Some(seat) = g.to_act().iter().next() else { break };
            let view = g.view(Viewer::Seat(seat));
            let mv = bot.choose(seat, &view, &mut rng).unwrap_or_else(|| panic!("no move at {view:?}"));
            prop_assert!(g.legal_moves(seat).contains(&mv));
            if mv == Move::Pass {
                prop_assert_eq!(view.bag, 0);
                passes += 1;
            }
            g.play(seat, &mv, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        }
        prop_assert!(g.outcome().is_some(), "game did not end");
        let totals = g.view(Viewer::Spectator).totals;
        let emptied: Vec<Seat> = (0..seats).map(Seat).filter(|s| g.rack(*s).is_empty()).collect();
        match (g.outcome(), &totals) {
            (Some(Outcome::Win { winners }), None) => {
                prop_assert_eq!(winners.iter().collect::<Vec<_>>(), emptied);
            }
            (outcome, Some(totals)) => {
                prop_assert!(emptied.is_empty());
                prop_assert!(passes >= usize::from(seats));
                let low = totals.iter().copied().min().unwrap_or(0);
                let lowest: Vec<Seat> = (0..seats).map(Seat).filter(|s| totals[s.index()] == low).collect();
                for s in (0..seats).map(Seat) {
                    let sum: i64 = g.rack(s).iter().map(|b| b.number).sum();
                    prop_assert_eq!(totals[s.index()], sum);
                }
                if lowest.len() == usize::from(seats) {
                    prop_assert_eq!(outcome, Some(Outcome::Draw));
                } else {
                    prop_assert_eq!(outcome, Some(Outcome::Win { winners: lowest.into_iter().collect() }));
                }
            }
            (other, None) => prop_assert!(false, "{:?} without totals or an empty rack", other),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A crow's blocks may come in any order, as a new row or as the row a
    /// block joins: the canonical form is the sorted one the legal list
    /// offers and the table shows, and either form plays to the same state.
    #[test]
    fn a_crow_in_any_order_is_the_same_move(key: [u8; 32], seats in 2u8..=4, rack in 7u32..=12, turns in 0usize..30, order: u64) {
        let mut rng = GameRng::from_key(key);
        let cfg = parlor_games::rummikub::Config { rack_size: rack, ..Default::default() };
        let mut g = Rummikub::setup(&cfg, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut shuffler = ChaCha8Rng::seed_from_u64(order);
        for turn in 0..turns {
            let Some(seat) = g.to_act().iter().next() else { break };
            let legal = g.legal_moves(seat);
            for listed in &legal {
                let mut mixed = listed.clone();
                match &mut mixed {
                    Move::PlayRow(Row::Crow(b)) | Move::PlayBlock { row: Row::Crow(b), .. } => {
                        b.shuffle(&mut shuffler);
                    }
                    _ => {}
                }
                let canon = g.canonical(seat, &mixed);
                prop_assert_eq!(&canon, listed);
                prop_assert_eq!(&g.canonical(seat, &canon), &canon);
                let (mut a, mut b) = (g.clone(), g.clone());
                prop_assert!(a.play(seat, &mixed, &mut rng.clone()).is_ok());
                prop_assert!(b.play(seat, &canon, &mut rng.clone()).is_ok());
                prop_assert_eq!(&a, &b);
                // The table and the last move show the canonical form.
                let shown = a.view(Viewer::Spectator).last.map(|l| l.mv);
                prop_assert_eq!(shown.as_ref(), Some(&canon));
            }
            // Another seat's (or a stale) move is refused and comes back as it is.
            let other = Seat((seat.0 + 1) % seats);
            for mv in &legal {
                if g.clone().play(other, mv, &mut rng.clone()).is_err() {
                    prop_assert_eq!(&g.canonical(other, mv), mv);
                }
            }
            let mv = legal[turn % legal.len()].clone();
            g.play(seat, &mv, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

fn block_json(b: &Block) -> String {
    serde_json::to_string(b).unwrap_or_default()
}

/// No view holds a block of another seat's rack or of the bag, and the
/// game's list of its secrets is exactly the racks (by seat) and the bag.
fn check_views(g: &Rummikub) -> Result<(), TestCaseError> {
    let secrets = g.secrets();
    for s in (0..g.seats()).map(Seat) {
        let rack: Vec<Value> = g
            .rack(s)
            .iter()
            .map(|b| serde_json::to_value(b).unwrap_or_default())
            .collect();
        prop_assert_eq!(secrets.of(s), rack.as_slice());
    }
    let bag: Vec<Value> = g
        .bag()
        .iter()
        .map(|b| serde_json::to_value(b).unwrap_or_default())
        .collect();
    let mut undisclosed = secrets.undisclosed.clone();
    let mut bag_sorted = bag;
    undisclosed.sort_by_key(Value::to_string);
    bag_sorted.sort_by_key(Value::to_string);
    prop_assert_eq!(undisclosed, bag_sorted);
    let seats = g.seats();
    let viewers = (0..seats)
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator]);
    for viewer in viewers {
        let text = serde_json::to_string(&g.view(viewer)).unwrap_or_default();
        for s in (0..seats).map(Seat) {
            if viewer == Viewer::Seat(s) {
                continue;
            }
            for b in g.rack(s) {
                prop_assert!(!text.contains(&block_json(b)), "{viewer:?} sees {b} of {s}");
            }
        }
        for b in g.bag() {
            prop_assert!(
                !text.contains(&block_json(&b)),
                "{viewer:?} sees {b} in the bag"
            );
        }
    }
    Ok(())
}

#[test]
fn bots_finish_games_against_each_other() {
    use parlor_games::rummikub::Predictor;
    use parlor_games::Strategy;
    for seed in 0..6 {
        let mut rng = GameRng::from_seed(seed);
        let seats = 2 + (seed % 3) as u8;
        let cfg = parlor_games::rummikub::Config {
            rack_size: 6,
            ..Default::default()
        };
        let mut g = Rummikub::setup(&cfg, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        // A small budget keeps the debug build quick; the logic is the same.
        let mut bots: Vec<Box<dyn Strategy<Rummikub>>> = vec![
            Box::new(Predictor {
                samples: 2,
                budget: 2_000,
            }),
            Rummikub::strategy("greedy").unwrap_or_else(|| panic!("greedy")),
            Rummikub::strategy("random").unwrap_or_else(|| panic!("random")),
            Rummikub::strategy("predictor").unwrap_or_else(|| panic!("predictor")),
        ];
        for _ in 0..=104 {
            let Some(seat) = g.to_act().iter().next() else {
                break;
            };
            let view = g.view(Viewer::Seat(seat));
            let bot = &mut bots[(seat.index() + seed as usize) % 3];
            let mv = bot
                .choose(seat, &view, &mut rng)
                .unwrap_or_else(|| panic!("no move"));
            g.play(seat, &mv, &mut rng)
                .unwrap_or_else(|e| panic!("{e}: {mv}"));
            // A bot asked out of turn has nothing to say.
            if g.outcome().is_none() {
                let v = g.view(Viewer::Seat(seat));
                assert_eq!(bots[0].choose(seat, &v, &mut rng), None);
            }
        }
        assert!(g.outcome().is_some());
    }
}

#[test]
fn the_predictor_sees_the_trap_that_greedy_walks_into() {
    use parlor_games::rummikub::{Predictor, View};
    use parlor_games::Strategy;
    use Color::*;
    let b = Block::new;
    let run = |c: Color, lo: i64, hi: i64| Row::Nrow((lo..=hi).map(|n| b(n, c)).collect());
    // Everything is on the table but seat 0's rack, one block in seat 1's
    // rack and one in the bag: 4 red and 13 yellow, in some order.
    let mut table = Vec::new();
    for c in [Blue, Black] {
        table.extend([run(c, 1, 4), run(c, 6, 8), run(c, 10, 13)]);
    }
    table.extend([run(Yellow, 1, 4), run(Yellow, 6, 8), run(Yellow, 10, 12)]);
    table.extend([run(Red, 6, 8), run(Red, 10, 13)]);
    table.push(Row::Crow(vec![
        b(5, Black),
        b(5, Blue),
        b(5, Red),
        b(5, Yellow),
    ]));
    table.push(Row::Crow(vec![b(9, Black), b(9, Red), b(9, Yellow)]));
    let view = View {
        rack: Some(vec![b(1, Red), b(2, Red), b(3, Red), b(9, Blue)]),
        table,
        rack_sizes: vec![4, 1],
        bag: 1,
        next: Some(Seat(0)),
        last: None,
        empty_bag: Default::default(),
        passes: 0,
        totals: None,
    };
    let mut rng = GameRng::from_seed(1);
    // Greedy lays 1-2-3 red at once, and a seat 1 holding 4 red wins on it.
    let greedy = Rummikub::strategy("greedy").and_then(|mut g| g.choose(Seat(0), &view, &mut rng));
    assert_eq!(greedy, Some(Move::PlayRow(run(Red, 1, 3))));
    // Laying the 9 blue first wins whenever seat 1 holds the 4 red (it must
    // then draw, and the row ends the game next turn); with 13 yellow seat 1
    // wins at once whatever seat 0 does.
    let mut p = Predictor {
        samples: 8,
        budget: 50_000,
    };
    let mv = p.choose(Seat(0), &view, &mut rng);
    assert!(
        matches!(mv, Some(Move::PlayBlock { block, .. }) if block == b(9, Blue)),
        "{mv:?}"
    );
}

/// Several workers count exactly what one counts (the parallel search
/// itself is checked below the public threshold in the crate's unit tests).
#[test]
fn parallel_prediction_agrees_with_sequential() {
    use parlor_games::rummikub::predict_with_workers;
    let mut all = Block::hosted_set();
    all.shuffle(&mut ChaCha8Rng::seed_from_u64(1));
    let pos = Position::deal(
        all[..22].to_vec(),
        all[22..44].to_vec(),
        all[44..52].to_vec(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (p, positions) = predict_sequential(&pos);
    assert!(positions > 20_000, "{positions}");
    assert_eq!(predict_with_workers(&pos, 2), p);
    assert_eq!(predict_with_workers(&pos, 3), p);
}
