//! Rummikub Lite: how far exact prediction reaches. Ignored by default (it
//! runs for minutes); run in release:
//!
//! ```text
//! cargo test --release -p parlor-games --test rummikub_scale -- --ignored --nocapture
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

/// For each rack size, grows the bag until predict takes longer than
/// `RUMMIKUB_LIMIT_S` seconds (default 60), printing the time, positions
/// and outcome count of each deal (the slowest of `RUMMIKUB_SEEDS` seeds).
#[test]
#[ignore]
fn predict_growth() {
    let limit = Duration::from_secs(env("RUMMIKUB_LIMIT_S", 60));
    let seeds = env("RUMMIKUB_SEEDS", 3);
    println!("rack bag  seconds(max over {seeds} seeds)  positions  outcomes");
    for rack in [3usize, 4, 5, 6, 7, 8, 10, 12] {
        for bag in (0..=52 - 2 * rack).step_by(2) {
            let mut worst = Duration::ZERO;
            let mut detail = String::new();
            for seed in 0..seeds {
                let pos = deal(seed, rack, bag);
                let t = Instant::now();
                let p = predict(&pos);
                let dt = t.elapsed();
                if dt >= worst {
                    worst = dt;
                    detail = format!("{}", p.outcomes());
                }
                if dt > limit {
                    break;
                }
            }
            println!("{rack:4} {bag:3}  {:10.3}  {detail}", worst.as_secs_f64());
            if worst > limit {
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

/// One deal, sequential against parallel.
#[test]
#[ignore]
fn parallel_speedup() {
    let (rack, bag) = (
        env("RUMMIKUB_RACK", 7) as usize,
        env("RUMMIKUB_BAG", 12) as usize,
    );
    let pos = deal(env("RUMMIKUB_SEED", 0), rack, bag);
    let t = Instant::now();
    let (p, positions) = predict_sequential(&pos);
    let ds = t.elapsed();
    let t = Instant::now();
    let q = predict_with_workers(&pos, env("RUMMIKUB_WORKERS", 2) as usize);
    let dp = t.elapsed();
    assert_eq!(p, q);
    println!(
        "rack {rack} bag {bag}: {positions} positions, {} outcomes; sequential {:.3}s, parallel {:.3}s, speed-up {:.2}x",
        p.outcomes(),
        ds.as_secs_f64(),
        dp.as_secs_f64(),
        ds.as_secs_f64() / dp.as_secs_f64()
    );
}
