//! Nimrod: the constant-time lose-position test and best move, on small
//! and on huge piles.

// Benchmarks fail loudly on impossible input.
#![allow(clippy::panic)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use parlor_games::nimrod::{best_move, is_lose, lose_positions, Piles};

fn piles(x: u64, y: u64) -> Piles {
    Piles::new(x, y).unwrap_or_else(|e| panic!("{e}"))
}

fn bench(c: &mut Criterion) {
    let small = piles(37, 61);
    let huge = piles(618_033_988_749_894, 1_000_000_000_000_123);
    c.bench_function("nimrod/is_lose small", |b| {
        b.iter(|| is_lose(black_box(small)))
    });
    c.bench_function("nimrod/is_lose 10^15", |b| {
        b.iter(|| is_lose(black_box(huge)))
    });
    c.bench_function("nimrod/best_move small", |b| {
        b.iter(|| best_move(black_box(small)))
    });
    c.bench_function("nimrod/best_move 10^15", |b| {
        b.iter(|| best_move(black_box(huge)))
    });
    c.bench_function("nimrod/first 1000 lose positions", |b| {
        b.iter(|| lose_positions(black_box(1000)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
