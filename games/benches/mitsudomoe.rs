//! Mitsudomoe: move generation, perft and search speed, from the start
//! and from crowded mid-game positions (taken from the perft data file,
//! `tests/data/mitsudomoe_perft.json`).

// Benchmarks fail loudly on impossible input.
#![allow(clippy::panic)]

use std::ops::ControlFlow::Continue;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use parlor_games::mitsudomoe::ai::perft::{perft, perft_moves};
use parlor_games::mitsudomoe::ai::search::{search, Limits, MAX_DEPTH};
use parlor_games::mitsudomoe::{count_turns, each_turn, legal_turns, Position};

/// A random playout's position: 337 legal turns.
const MID: &str = ".,.,bB,b,bB/.,.,w,.,./wW,wb,w,.,b/wwW,w,.,b,bB/wW,.,.,.,. b";
/// A crowded random board with vaults over two and three balls: 635 turns.
const CROWDED: &str = ".,.,.,b,./b,bB,wW,w,bwW/w,w,.,bB,b/bB,.,.,wW,b/.,.,w,w,. w";

/// Positions one search bench visits.
const SEARCH_NODES: u64 = 200_000;

fn pos(text: &str) -> Position {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn bench(c: &mut Criterion) {
    let start = Position::initial();
    let mid = pos(MID);
    let crowded = pos(CROWDED);
    for (name, p) in [("start", start), ("mid-game", mid), ("crowded", crowded)] {
        let n = count_turns(&p) as u64;
        let mut g = c.benchmark_group(format!("mitsudomoe/{name} ({n} turns)"));
        g.throughput(Throughput::Elements(n));
        g.bench_function("count turns", |b| b.iter(|| count_turns(black_box(&p))));
        g.bench_function("generate turns and positions", |b| {
            b.iter(|| {
                let mut k = 0u64;
                let _ = each_turn::<()>(black_box(&p), |m, child| {
                    k += u64::from(m.ball.to.index() as u8)
                        ^ child.board().supply(child.to_move()) as u64;
                    Continue(())
                });
                k
            })
        });
        g.bench_function("legal list (Vec)", |b| {
            b.iter(|| legal_turns(black_box(&p)))
        });
        g.finish();
    }
    let mut g = c.benchmark_group("mitsudomoe/perft");
    g.sample_size(10);
    let moves4 = perft_moves(&start, 4);
    g.throughput(Throughput::Elements(moves4));
    g.bench_function(format!("start depth 4, sequences only ({moves4})"), |b| {
        b.iter(|| perft_moves(black_box(&start), 4))
    });
    let p3 = perft(&start, 3, usize::MAX).unwrap_or_else(|e| panic!("{e}"));
    g.throughput(Throughput::Elements(p3.moves as u64));
    g.bench_function(
        format!("start depth 3, distinct positions ({})", p3.positions),
        |b| b.iter(|| perft(black_box(&start), 3, usize::MAX)),
    );
    let mid2 = perft_moves(&mid, 2);
    g.throughput(Throughput::Elements(mid2));
    g.bench_function(format!("mid-game depth 2, sequences only ({mid2})"), |b| {
        b.iter(|| perft_moves(black_box(&mid), 2))
    });
    g.finish();
    let mut g = c.benchmark_group("mitsudomoe/search");
    g.sample_size(10);
    g.throughput(Throughput::Elements(SEARCH_NODES));
    for (name, p) in [("mid-game", mid), ("crowded", crowded)] {
        g.bench_function(format!("{name}, {SEARCH_NODES} positions"), |b| {
            b.iter(|| {
                search(
                    black_box(&p),
                    Limits {
                        stop: &|| false,
                        max_nodes: Some(SEARCH_NODES),
                        max_depth: MAX_DEPTH,
                        house: Default::default(),
                    },
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
