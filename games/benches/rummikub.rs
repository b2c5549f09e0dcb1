//! Rummikub Lite: table checking, move generation, outcome enumeration and
//! exact prediction, on the seed's examples and on growing deals.

// Benchmarks fail loudly on impossible input.
#![allow(clippy::panic)]

use std::ops::ControlFlow;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parlor_games::rummikub::{
    legal_moves, outcomes, predict, predict_with_workers, valid_table, Block, Color, Position, Row,
};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn b(n: i64, c: Color) -> Block {
    Block::new(n, c)
}

/// A random deal of the 52 hosted blocks: racks of `rack`, a bag of `bag`.
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

fn seed_examples() -> [Position; 2] {
    use Color::*;
    let first = Position::deal(
        vec![b(1, Red), b(2, Red), b(3, Red), b(2, Blue)],
        vec![b(5, Red), b(5, Yellow), b(5, Black), b(4, Red)],
        vec![b(5, Blue)],
    );
    let second = Position::deal(
        vec![b(2, Red), b(3, Red), b(4, Red), b(2, Blue), b(2, Black)],
        vec![b(5, Red), b(6, Red), b(8, Blue), b(8, Black)],
        vec![b(7, Red), b(8, Red), b(9, Red)],
    );
    [first, second].map(|p| p.unwrap_or_else(|e| panic!("{e}")))
}

fn bench(c: &mut Criterion) {
    // All 52 blocks on the table: one nrow per colour.
    let full: Vec<Row> = Color::ALL
        .iter()
        .map(|&col| Row::Nrow((1..=13).map(|n| b(n, col)).collect()))
        .collect();
    c.bench_function("rummikub/valid_table 52 blocks", |bn| {
        bn.iter(|| valid_table(black_box(&full)))
    });

    // A 14-block rack against a table of six rows.
    let mut all = Block::hosted_set();
    all.shuffle(&mut ChaCha8Rng::seed_from_u64(5));
    let rack: Vec<Block> = all
        .iter()
        .copied()
        .filter(|x| x.number <= 7)
        .take(14)
        .collect();
    let table: Vec<Row> = Color::ALL
        .iter()
        .map(|&col| Row::Nrow((9..=11).map(|n| b(n, col)).collect()))
        .chain([Row::Crow(vec![
            b(13, Color::Black),
            b(13, Color::Blue),
            b(13, Color::Red),
        ])])
        .collect();
    let rack: Vec<Block> = rack.into_iter().filter(|x| x.number < 9).collect();
    c.bench_function("rummikub/legal moves 14-block rack", |bn| {
        bn.iter(|| legal_moves(black_box(&rack), black_box(&table)))
    });

    // Enumeration throughput on a deal with about 5.4 million outcomes.
    let many = deal(1, 20, 12);
    let mut group = c.benchmark_group("rummikub/outcomes");
    group.sample_size(10);
    let mut n = 0u64;
    let _ = outcomes(&many, |_| {
        n += 1;
        ControlFlow::Continue(())
    });
    group.throughput(Throughput::Elements(n));
    group.bench_function("stream deal(1, 20, 12)", |bn| {
        bn.iter(|| {
            let mut k = 0u64;
            let _ = outcomes(black_box(&many), |_| {
                k += 1;
                ControlFlow::Continue(())
            });
            k
        })
    });
    group.finish();

    let [first, second] = seed_examples();
    c.bench_function("rummikub/predict seed example 1", |bn| {
        bn.iter(|| predict(black_box(&first)))
    });
    c.bench_function("rummikub/predict seed example 2", |bn| {
        bn.iter(|| predict(black_box(&second)))
    });

    let mut group = c.benchmark_group("rummikub/predict growing deals");
    group.sample_size(10);
    for (rack, bag) in [(7, 38), (13, 26), (18, 16), (20, 12), (22, 8)] {
        let pos = deal(1, rack, bag);
        group.bench_with_input(
            BenchmarkId::new("one thread", format!("rack {rack} bag {bag}")),
            &pos,
            |bn, pos| bn.iter(|| predict_with_workers(pos, 1)),
        );
    }
    let big = deal(0, 22, 8);
    for workers in [1, 2] {
        group.bench_with_input(
            BenchmarkId::new(format!("{workers} workers"), "rack 22 bag 8"),
            &big,
            |bn, pos| bn.iter(|| predict_with_workers(pos, workers)),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
