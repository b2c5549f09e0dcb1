//! How much of Rummikub Lite (two players, `"empty_bag": "pass"`, racks
//! of 7) is skill at all: an oracle that sees everything (the other rack
//! and the bag's order) searches the rest of each game exactly and plays
//! the move that wins most against the opponent's known policy, on the
//! same duplicate deals as the series runner (`games/examples/series.rs`).
//! What it wins is the most any bot, however strong, could win on those
//! deals against that opponent (a little less when some decisions are too
//! big to search: it prints how many, and plays those greedily); a bot that
//! sees neither the rack nor the bag wins less. Slow, so ignored; run it
//! with
//!
//! ```text
//! cargo test --release -p parlor-games --test games rummikub_ceiling:: -- --ignored --nocapture
//! ```
//!
//! `CEILING_DEALS` sets the deals (default 200, each played from both
//! seats) and `CEILING_VS` the opponent (`greedy`, the default, whose moves
//! the oracle predicts exactly, or `random`, whose moves it averages over).

// Tests fail by panicking, helpers included.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::rummikub::{Config, EmptyBag, Greedy, Move, Rummikub};
use parlor_games::{Game, GameRng, Outcome, Seat, Strategy, Viewer};

/// Positions one decision's search may visit before it gives up and says
/// so: against `greedy` 10 decisions in 1,000 deals reach it, against
/// `random` (whose every move is searched) 72 in 300.
const NODES: u64 = 5_000_000;

/// The value of `g` for `me` (1 a win, 1/2 a draw, 0 a loss) when `me`
/// plays perfectly from here and the other seat plays greedily (or
/// uniformly at random, averaged); the best move where `me` is to move.
/// `nodes` counts down the positions left to visit.
fn solve(g: &Rummikub, me: Seat, random: bool, nodes: &mut u64) -> Option<(f64, Option<Move>)> {
    *nodes = nodes.checked_sub(1)?;
    if let Some(o) = g.outcome() {
        let v = match o {
            Outcome::Win { winners } if winners.contains(me) => 1.0,
            Outcome::Win { .. } => 0.0,
            Outcome::Draw => 0.5,
        };
        return Some((v, None));
    }
    let seat = g.to_act().iter().next()?;
    // The bag's order is in the state: a draw here draws what the real
    // game will draw, whatever generator `play` is handed.
    let after = |mv: &Move, nodes: &mut u64| {
        let mut h = g.clone();
        h.play(seat, mv, &mut GameRng::from_seed(0)).unwrap();
        solve(&h, me, random, nodes).map(|(v, _)| v)
    };
    if seat == me {
        let mut best: Option<(f64, Option<Move>)> = None;
        for mv in g.legal_moves(seat) {
            let v = after(&mv, nodes)?;
            if best.as_ref().is_none_or(|(b, _)| v > *b) {
                best = Some((v, Some(mv)));
            }
        }
        best
    } else if random {
        let moves = g.legal_moves(seat);
        let mut sum = 0.0;
        for mv in &moves {
            sum += after(mv, nodes)?;
        }
        Some((sum / moves.len() as f64, None))
    } else {
        let view = g.view(Viewer::Seat(seat));
        let mv = Greedy.choose(seat, &view, &mut GameRng::from_seed(0))?;
        Some((after(&mv, nodes)?, None))
    }
}

/// The series runner's generator for deal `n`.
fn deal_rng(n: u64) -> GameRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&n.to_le_bytes());
    key[8..14].copy_from_slice(b"series");
    GameRng::from_key(key)
}

/// Wilson's 95% interval for `k` of `n`.
fn wilson(k: u64, n: u64) -> (f64, f64) {
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (centre - half, centre + half)
}

#[test]
#[ignore = "an exact search per move: run in release with --ignored --nocapture"]
fn an_oracle_wins_this_much_and_no_more() {
    let deals: u64 = std::env::var("CEILING_DEALS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let vs = std::env::var("CEILING_VS").unwrap_or_else(|_| "greedy".into());
    let random = match vs.as_str() {
        "greedy" => false,
        "random" => true,
        other => panic!("CEILING_VS is greedy or random, not {other}"),
    };
    let cfg = Config {
        empty_bag: EmptyBag::Pass,
        ..Config::default()
    };
    let (mut won, mut lost, mut drawn, mut cut_short) = (0u64, 0u64, 0u64, 0u64);
    for n in 0..deals {
        for me in [Seat(0), Seat(1)] {
            let mut chance = deal_rng(n);
            let mut g = Rummikub::setup(&cfg, 2, &mut chance).unwrap();
            let mut opponent = GameRng::from_seed(n);
            while let Some(seat) = g.to_act().iter().next() {
                let mv = if seat == me {
                    let mut nodes = NODES;
                    match solve(&g, me, random, &mut nodes) {
                        Some((_, Some(mv))) => mv,
                        _ => {
                            // Too big to search: count it and play greedily.
                            cut_short += 1;
                            Greedy
                                .choose(seat, &g.view(Viewer::Seat(seat)), &mut opponent)
                                .unwrap()
                        }
                    }
                } else if random {
                    let moves = g.legal_moves(seat);
                    moves[opponent.below(moves.len() as u64) as usize].clone()
                } else {
                    Greedy
                        .choose(seat, &g.view(Viewer::Seat(seat)), &mut opponent)
                        .unwrap()
                };
                g.play(seat, &mv, &mut chance).unwrap();
            }
            match g.outcome().unwrap() {
                Outcome::Win { winners } if winners.contains(me) => won += 1,
                Outcome::Win { .. } => lost += 1,
                Outcome::Draw => drawn += 1,
            }
        }
    }
    let decisive = won + lost;
    let (lo, hi) = wilson(won, decisive);
    println!(
        "oracle vs {vs}: {deals} deals x 2 seats: won {won}, lost {lost}, drawn {drawn}; \
         {:.1}% of {decisive} decisive games (95% Wilson CI {:.1}%..{:.1}%); \
         {cut_short} decisions too big to search",
        100.0 * won as f64 / decisive as f64,
        100.0 * lo,
        100.0 * hi
    );
    assert!(won > lost, "an oracle must beat {vs}");
}
