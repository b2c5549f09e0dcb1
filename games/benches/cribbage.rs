//! Cribbage: the show's scoring (per hand and over all 12,994,800 deals),
//! the seed's select_hand and the crib-aware advisor per deal, and an
//! expert play decision.

// Benchmarks fail loudly on impossible input.
#![allow(clippy::panic)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use parlor_games::cribbage::{advise, distribution, hand_value, select_hand, Card, HandKind, Role};
use parlor_games::GameRng;

/// Deals used per iteration: enough to average over many hand shapes.
const DEALS: usize = 1000;

/// `DEALS` random deals of `n` cards from a fixed seed.
fn deals(n: usize) -> Vec<Vec<Card>> {
    let mut rng = GameRng::from_seed(2024);
    (0..DEALS)
        .map(|_| Card::shuffled_deck(&mut rng).into_iter().take(n).collect())
        .collect()
}

fn bench(c: &mut Criterion) {
    let fives: Vec<([Card; 4], Card)> = deals(5)
        .into_iter()
        .map(|d| ([d[0], d[1], d[2], d[3]], d[4]))
        .collect();
    let mut g = c.benchmark_group("cribbage");
    g.throughput(Throughput::Elements(DEALS as u64));
    g.bench_function("hand_value x1000", |b| {
        b.iter(|| {
            fives
                .iter()
                .map(|&(h, s)| u32::from(hand_value(black_box(h), black_box(s))))
                .sum::<u32>()
        })
    });
    g.finish();

    let sixes = deals(6);
    let mut g = c.benchmark_group("cribbage");
    g.sample_size(20);
    g.bench_function("select_hand 6 cards", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % DEALS;
            select_hand(black_box(&sixes[i])).unwrap_or_else(|e| panic!("{e}"))
        })
    });
    g.bench_function("advise 6 cards (dealer)", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % DEALS;
            advise(black_box(&sixes[i]), Role::Dealer).unwrap_or_else(|e| panic!("{e}"))
        })
    });
    let fives = deals(5);
    g.bench_function("advise 5 cards (pone)", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % DEALS;
            advise(black_box(&fives[i]), Role::Pone).unwrap_or_else(|e| panic!("{e}"))
        })
    });
    g.finish();

    let mut g = c.benchmark_group("cribbage");
    g.sample_size(10);
    g.bench_function("distribution 12,994,800 deals", |b| {
        b.iter(|| distribution(black_box(HandKind::Hand)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
