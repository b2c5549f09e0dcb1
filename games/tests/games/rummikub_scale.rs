//! Rummikub Lite: how far exact prediction reaches. Ignored by default (it
//! runs for minutes); run in release:
//!
//! ```text
//! cargo test --release -p parlor-games --test games rummikub_scale:: -- --ignored --nocapture
//! ```
//!
//! Deals are random from the 52 hosted blocks with a fixed seed, so the
//! figures are repeatable.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use parlor_games::rummikub::{
    outcomes, predict, predict_sequential, predict_with_workers, Block, Position,
};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A deal of `rack` blocks each and a bag of `bag`, from a shuffled set.
fn deal(seed: u64, rack: usize, bag: usize) -> Position {
    let mut all = Block::hosted_set();
    all.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    Position::deal(
        all[..rack].to_vec(),
        all[rack..2 * rack].to_vec(),
        all[2 * rack..2 * rack + bag].to_vec(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// For each rack size, grows the bag until one thread's predict takes
/// longer than `RUMMIKUB_LIMIT_S` seconds (default 60), printing for each
/// deal the slowest of `RUMMIKUB_SEEDS` seeds (default 3): seconds,
/// distinct positions expanded and outcomes.
#[test]
#[ignore]
fn predict_growth() {
    let limit = Duration::from_secs(env("RUMMIKUB_LIMIT_S", 60));
    let seeds = env("RUMMIKUB_SEEDS", 3);
    let racks: Vec<usize> = std::env::var("RUMMIKUB_RACKS")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![7, 13, 18, 20, 22, 24, 26]);
    println!("rack bag   seconds  positions  outcomes   (slowest of {seeds} seeds)");
    for rack in racks {
        let mut bags: Vec<usize> = (0..=52 - 2 * rack).step_by(4).collect();
        if bags.last() != Some(&(52 - 2 * rack)) {
            bags.push(52 - 2 * rack);
        }
        for bag in bags {
            let mut worst = (Duration::ZERO, 0, String::new());
            for seed in 0..seeds {
                let pos = deal(seed, rack, bag);
                let t = Instant::now();
                let (p, positions) = predict_sequential(&pos);
                let dt = t.elapsed();
                if dt >= worst.0 {
                    worst = (dt, positions, p.outcomes().to_string());
                }
                if dt > limit {
                    break;
                }
            }
            println!(
                "{rack:4} {bag:3} {:9.3} {:10} {}",
                worst.0.as_secs_f64(),
                worst.1,
                worst.2
            );
            if worst.0 > limit {
                break;
            }
        }
    }
}

/// Predict against enumerating every outcome on one deal with millions.
#[test]
#[ignore]
fn predict_versus_enumeration() {
    let (rack, bag) = (
        env("RUMMIKUB_RACK", 6) as usize,
        env("RUMMIKUB_BAG", 8) as usize,
    );
    let pos = deal(env("RUMMIKUB_SEED", 1), rack, bag);
    let t = Instant::now();
    let (p, positions) = predict_sequential(&pos);
    let dp = t.elapsed();
    let t = Instant::now();
    let p2 = predict(&pos);
    let dpp = t.elapsed();
    assert_eq!(p, p2);
    let t = Instant::now();
    let mut n = 0u64;
    let _ = outcomes(&pos, |_| {
        n += 1;
        ControlFlow::Continue(())
    });
    let de = t.elapsed();
    assert_eq!(p.outcomes(), n.into());
    println!(
        "rack {rack} bag {bag}: {n} outcomes, {positions} positions; predict {:.4}s (parallel {:.4}s), \
         enumeration {:.3}s ({:.0} outcomes/s), ratio {:.0}x",
        dp.as_secs_f64(),
        dpp.as_secs_f64(),
        de.as_secs_f64(),
        n as f64 / de.as_secs_f64(),
        de.as_secs_f64() / dp.as_secs_f64()
    );
}

/// One deal, sequential against parallel (`RUMMIKUB_WORKERS`, default 2).
/// With `RUMMIKUB_ONLY=1` only the sequential search runs, with `=2` only
/// the parallel one, so that `time` can tell CPU time from wall time.
#[test]
#[ignore]
fn parallel_speedup() {
    let (rack, bag) = (
        env("RUMMIKUB_RACK", 7) as usize,
        env("RUMMIKUB_BAG", 12) as usize,
    );
    let pos = deal(env("RUMMIKUB_SEED", 0), rack, bag);
    let only = env("RUMMIKUB_ONLY", 0);
    let workers = env("RUMMIKUB_WORKERS", 2) as usize;
    let (mut ds, mut dp) = (Duration::ZERO, Duration::ZERO);
    let (mut p, mut q, mut positions) = (None, None, 0);
    if only != 2 {
        let t = Instant::now();
        let (r, n) = predict_sequential(&pos);
        ds = t.elapsed();
        p = Some(r);
        positions = n;
    }
    if only != 1 {
        let t = Instant::now();
        q = Some(predict_with_workers(&pos, workers));
        dp = t.elapsed();
    }
    if let (Some(p), Some(q)) = (&p, &q) {
        assert_eq!(p, q);
    }
    let outcomes = p
        .or(q)
        .map(|x| x.outcomes().to_string())
        .unwrap_or_default();
    println!(
        "rack {rack} bag {bag}: {positions} positions, {outcomes} outcomes; sequential {:.3}s, {workers} workers {:.3}s, speed-up {:.2}x",
        ds.as_secs_f64(),
        dp.as_secs_f64(),
        ds.as_secs_f64() / dp.as_secs_f64()
    );
}
