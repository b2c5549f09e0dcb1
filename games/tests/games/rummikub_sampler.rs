//! The `sampler` bot: it plays only legal moves, it decides from its
//! seat's view alone and always the same way for the same generator, and
//! it beats `random` over a series of duplicate deals. Its strength is
//! measured in release by `games/examples/series.rs` (see the README's
//! "How strong are the built-in bots").

// Tests fail by panicking, helpers included.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::rummikub::{Config, EmptyBag, Move, Rummikub, Sampler};
use parlor_games::{Bots, Game, GameRng, Outcome, Seat, Strategy, Viewer};
use proptest::prelude::*;

/// Playouts per decision in these tests: few, for a debug build's speed;
/// the moves it may choose among are the same at any count.
const TEST_PLAYOUTS: usize = 64;

fn sampler() -> Sampler {
    Sampler {
        playouts: TEST_PLAYOUTS,
        ..Sampler::default()
    }
}

/// A game of `seats` dealt from `seed`, then `steps` random moves on.
fn position(seed: u64, seats: u8, rack: u32, pass: bool, steps: usize) -> Rummikub {
    let cfg = Config {
        rack_size: rack,
        empty_bag: if pass { EmptyBag::Pass } else { EmptyBag::End },
    };
    let mut rng = GameRng::from_seed(seed);
    let mut g = Rummikub::setup(&cfg, seats, &mut rng).unwrap();
    let mut random = Rummikub::strategy("random").unwrap();
    for _ in 0..steps {
        let Some(seat) = g.to_act().iter().next() else {
            break;
        };
        let mv = random
            .choose(seat, &g.view(Viewer::Seat(seat)), &mut rng)
            .unwrap();
        g.play(seat, &mv, &mut rng).unwrap();
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_sampler_plays_only_legal_moves(
        seed: u64, seats in 2u8..=4, rack in 1u32..=12, pass: bool, steps in 0usize..80, bot: u64,
    ) {
        let mut g = position(seed, seats, rack, pass, steps);
        let mut rng = GameRng::from_seed(bot);
        let mut s = sampler();
        // From here to the end of the game, every seat a sampler.
        while let Some(seat) = g.to_act().iter().next() {
            let legal = g.legal_moves(seat);
            let mv = s.choose(seat, &g.view(Viewer::Seat(seat)), &mut rng);
            let mv = mv.unwrap_or_else(|| panic!("no move for {seat} among {legal:?}"));
            prop_assert!(legal.contains(&mv), "{mv} is not among {legal:?}");
            g.play(seat, &mv, &mut rng).unwrap();
            // Seats not to move are asked nothing.
            let other = Seat((seat.0 + 1) % seats);
            if g.to_act().iter().next() != Some(other) {
                prop_assert_eq!(s.choose(other, &g.view(Viewer::Seat(other)), &mut rng), None);
            }
        }
        prop_assert!(g.outcome().is_some());
    }

    #[test]
    fn the_sampler_sees_only_the_view_and_decides_the_same_way_for_the_same_generator(
        seed: u64, pass: bool, steps in 0usize..40, bot: u64, reshuffle: u64,
    ) {
        let g = position(seed, 2, 7, pass, steps);
        let Some(seat) = g.to_act().iter().next() else {
            return Ok(());
        };
        // Another game that this seat cannot tell apart: the blocks it has
        // not seen dealt again between the other rack and the bag.
        let other = Seat(1 - seat.0);
        let mut hidden: Vec<_> = g.rack(other).iter().chain(&g.bag()).copied().collect();
        GameRng::from_seed(reshuffle).shuffle(&mut hidden);
        let (theirs, bag) = hidden.split_at(g.rack(other).len());
        let mut racks = vec![g.rack(seat).to_vec(), theirs.to_vec()];
        if seat.0 == 1 {
            racks.swap(0, 1);
        }
        let twin = Rummikub::from_parts_with(racks, g.table().to_vec(), bag.to_vec(), g.empty_bag())
            .unwrap();
        let mut view = g.view(Viewer::Seat(seat));
        let mut twin_view = twin.view(Viewer::Seat(seat));
        // The twin starts afresh: it has no last move, and seat 0 to move.
        view.last = None;
        view.passes = 0;
        twin_view.next = view.next;
        prop_assert_eq!(&view, &twin_view);
        let a = sampler().choose(seat, &view, &mut GameRng::from_seed(bot));
        let b = sampler().choose(seat, &twin_view, &mut GameRng::from_seed(bot));
        let again = sampler().choose(seat, &view, &mut GameRng::from_seed(bot));
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(&a, &again);
    }
}

#[test]
fn the_names_choose_the_playouts() {
    for name in ["sampler", "sampler:1", "sampler:100000"] {
        assert!(Rummikub::strategy(name).is_some(), "{name}");
    }
    for name in [
        "sampler:0",
        "sampler:100001",
        "sampler:",
        "sampler:x",
        "samplers",
    ] {
        assert!(Rummikub::strategy(name).is_none(), "{name}");
    }
    assert_eq!(
        Rummikub::STRATEGIES[0],
        "greedy",
        "the default is unchanged"
    );
}

/// Deals of [`the_sampler_beats_random_over_duplicate_deals`], each played
/// twice with the seats swapped. Measured in release over 2,000 deals
/// (`series rummikub sampler:64 random 2000 '{"empty_bag":"pass"}'`), each
/// deal's wins less losses for the sampler had mean 0.164 and standard
/// deviation 0.887; over 700 deals the surplus is 115 +- 23.5, so a series
/// that does not win more than it loses is 4.9 standard deviations out
/// (odds under one in a million).
const SERIES_DEALS: u64 = 700;

/// The series runner's generator for deal `n`.
fn deal_rng(n: u64) -> GameRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&n.to_le_bytes());
    key[8..14].copy_from_slice(b"series");
    GameRng::from_key(key)
}

#[test]
fn the_sampler_beats_random_over_duplicate_deals() {
    let cfg = Config {
        empty_bag: EmptyBag::Pass,
        ..Config::default()
    };
    let (mut won, mut lost) = (0u64, 0u64);
    for n in 0..SERIES_DEALS {
        for me in [Seat(0), Seat(1)] {
            let mut chance = deal_rng(n);
            let mut g = Rummikub::setup(&cfg, 2, &mut chance).unwrap();
            let mut mine = GameRng::from_seed(2 * n + u64::from(me.0));
            let mut theirs = GameRng::from_seed(!(2 * n + u64::from(me.0)));
            let mut random = Rummikub::strategy("random").unwrap();
            let mut s = sampler();
            while let Some(seat) = g.to_act().iter().next() {
                let view = g.view(Viewer::Seat(seat));
                let mv: Move = if seat == me {
                    s.choose(seat, &view, &mut mine)
                } else {
                    random.choose(seat, &view, &mut theirs)
                }
                .unwrap();
                g.play(seat, &mv, &mut chance).unwrap();
            }
            match g.outcome() {
                Some(Outcome::Win { winners }) if winners.contains(me) => won += 1,
                Some(Outcome::Win { .. }) => lost += 1,
                _ => {}
            }
        }
    }
    assert!(
        won > lost,
        "the sampler won {won} and lost {lost} of {} games",
        2 * SERIES_DEALS
    );
}
