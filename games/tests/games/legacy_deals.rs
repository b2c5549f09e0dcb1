//! Legacy deals: matches stored before keyed deals existed replay from
//! `GameRng::from_seed(u64)`, so that mode must keep producing exactly the
//! deals, cuts and piles it always did. `data/legacy_deals.json` freezes,
//! for a few seeds of every game, the views of every seat and of a
//! spectator at the deal and after a fixed playout (always the first legal
//! move of the first seat to act), plus the moves played.
//!
//! The data file was written by the first version of this test (commit
//! "freeze legacy (from_seed) deals", which had a switch to write it) on
//! the code as it stood *before* `GameRng` got its keyed mode, when games
//! called rand 0.8's `shuffle` and `gen_range` directly. The switch is
//! gone: the file is the old behaviour, never the current code's echo.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::{AnyGame, GameKind, GameRng, Seat, Viewer};
use serde_json::{json, Value};

/// Moves played after the deal: enough for several Cribbage hands (each
/// new hand shuffles and cuts again) and a long stretch of Rummikub draws.
const PLAYOUT_MOVES: usize = 40;

const DATA: &str = "tests/data/legacy_deals.json";

/// (game, seats, seed) frozen for each of `games`.
fn cases(games: &[GameKind]) -> Vec<(GameKind, u8, u64)> {
    let mut out = Vec::new();
    for &kind in games {
        let (min, max) = kind.seat_range();
        for seats in min..=max {
            for seed in [0, 0xdead_beef] {
                out.push((kind, seats, seed));
            }
        }
    }
    out
}

fn views(game: &AnyGame) -> Value {
    let mut v: Vec<Value> = (0..game.seats())
        .map(|s| serde_json::to_value(game.view(Viewer::Seat(Seat(s)))).unwrap())
        .collect();
    v.push(serde_json::to_value(game.view(Viewer::Spectator)).unwrap());
    Value::Array(v)
}

fn record(kind: GameKind, seats: u8, seed: u64) -> Value {
    let mut rng = GameRng::from_seed(seed);
    let mut game = kind.setup(&Value::Null, seats, &mut rng).unwrap();
    let dealt = views(&game);
    let mut moves = Vec::new();
    for _ in 0..PLAYOUT_MOVES {
        let Some(seat) = game.to_act().iter().next() else {
            break;
        };
        let Some(mv) = game.legal_moves(seat).into_iter().next() else {
            break;
        };
        game.play(seat, &mv, &mut rng).unwrap();
        moves.push(json!([seat.0, mv]));
    }
    json!({
        "game": kind.name(),
        "seats": seats,
        "seed": seed,
        "dealt": dealt,
        "moves": moves,
        "after": views(&game),
    })
}

#[test]
fn legacy_seeds_deal_exactly_as_before() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let frozen: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let frozen = frozen["cases"].as_array().unwrap();
    // The games hosted when deals became keyed, in the file's order: only
    // their matches can be stored with a legacy seed. A game added since
    // has no legacy deals to keep.
    let mut games: Vec<GameKind> = Vec::new();
    for case in frozen {
        let kind: GameKind = serde_json::from_value(case["game"].clone()).unwrap();
        if !games.contains(&kind) {
            games.push(kind);
        }
    }
    let now: Vec<Value> = cases(&games)
        .into_iter()
        .map(|(k, s, seed)| record(k, s, seed))
        .collect();
    assert_eq!(frozen.len(), now.len());
    for (want, got) in frozen.iter().zip(&now) {
        assert_eq!(
            want, got,
            "{} with {} seats, seed {}",
            want["game"], want["seats"], want["seed"]
        );
    }
}
