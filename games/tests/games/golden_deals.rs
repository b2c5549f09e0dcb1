//! Golden keyed deals: what `GameRng::from_key` deals must never change,
//! whatever dependency is upgraded.
//!
//! Two kinds of frozen data:
//!
//! - `data/keyed_stream.json`, written by `data/keyed_stream.py`, an
//!   independent Python implementation of the documented algorithms
//!   (hashlib, the `cryptography` package's ChaCha20, and the draws and
//!   deals as the rustdoc describes them): raw words, `below` draws, a
//!   shuffle, and each game's deal. The Rust code must agree with it.
//! - `data/golden_deals.json`: every seat's and the spectator's view of
//!   the dealt state, for fixed keys, as JSON text. Written once by this
//!   test with `PARLOR_BLESS_GOLDEN_DEALS=1` (after the deals above agreed with Python)
//!   and committed; the test compares byte for byte, so any change to a
//!   deal or to a view's wire form shows up here.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::cribbage::{self, Cribbage};
use parlor_games::nimrod::{self, Nimrod};
use parlor_games::rummikub::{self, Rummikub};
use parlor_games::{deal_key, DealSecret, Game, GameKind, GameRng, Seat, Viewer};
use rand::RngCore;
use serde_json::{json, Value};

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(data(name)).unwrap()).unwrap()
}

/// The keys of `keyed_stream.py`, by name; "dealt" goes through
/// `deal_key` (server seed 00..1f, salt a0..af, client seeds "alice" and
/// none), so the Python file checks the derivation too.
fn keys() -> Vec<(&'static str, [u8; 32])> {
    let seed: Vec<u8> = (0..32).collect();
    let salt: Vec<u8> = (0xa0..0xb0).collect();
    let secret = DealSecret::from_hex(&hex::encode(seed), &hex::encode(salt)).unwrap();
    vec![
        ("zero", [0; 32]),
        ("ff", [0xff; 32]),
        ("dealt", deal_key(&secret, &[Some("alice"), None])),
    ]
}

fn num(v: &Value) -> u64 {
    v.as_str().unwrap().parse().unwrap()
}

#[test]
fn the_stream_and_its_draws_agree_with_the_python_reference() {
    let py = read("keyed_stream.json");
    for (name, key) in keys() {
        let want = &py["keys"][name];
        assert_eq!(want["key"], hex::encode(key), "{name}");
        let mut rng = GameRng::from_key(key);
        for w in want["words"].as_array().unwrap() {
            assert_eq!(rng.next_u64(), num(w), "{name}: word");
        }
        for pair in want["belows"].as_array().unwrap() {
            let n = pair[0].as_u64().unwrap();
            assert_eq!(rng.below(n), num(&pair[1]), "{name}: below({n})");
        }
        let mut items: Vec<u64> = (0..20).collect();
        rng.shuffle(&mut items);
        assert_eq!(json!(items), want["shuffle_after"], "{name}: shuffle");
    }
}

#[test]
fn each_games_deal_agrees_with_the_python_reference() {
    let py = read("keyed_stream.json");
    for (name, key) in keys() {
        let want = &py["keys"][name];
        for seats in [2u8, 4] {
            let w = &want["rummikub"][seats.to_string()];
            let g = Rummikub::setup(
                &rummikub::Config::default(),
                seats,
                &mut GameRng::from_key(key),
            )
            .unwrap();
            for s in 0..seats {
                assert_eq!(json!(g.rack(Seat(s))), w["racks"][usize::from(s)], "{name}");
            }
            assert_eq!(json!(g.bag()), w["bag"], "{name}: rummikub bag");
        }
        for seats in [2u8, 3] {
            let w = &want["cribbage"][seats.to_string()];
            let mut rng = GameRng::from_key(key);
            let mut g = Cribbage::setup(&cribbage::Config::default(), seats, &mut rng).unwrap();
            assert_eq!(json!(g.dealer().0), w["dealer"], "{name}");
            for s in 0..seats {
                let v = g.view(Viewer::Seat(Seat(s)));
                assert_eq!(json!(v.hand), w["hands"][usize::from(s)], "{name}");
            }
            let crib = w["crib"].as_array().unwrap().len();
            assert_eq!(usize::from(g.view(Viewer::Spectator).crib_size), crib);
            for s in 0..seats {
                let mv = g.legal_moves(Seat(s)).into_iter().next().unwrap();
                g.play(Seat(s), &mv, &mut rng).unwrap();
            }
            let start = g.view(Viewer::Spectator).start;
            assert_eq!(json!(start), w["start"], "{name}: cribbage cut");
        }
        let cfg = nimrod::Config::Random { min: 1, max: 1000 };
        let g = Nimrod::setup(&cfg, 2, &mut GameRng::from_key(key)).unwrap();
        assert_eq!(json!(g.piles()), want["nimrod_1_1000"], "{name}");
    }
}

/// (game, options, seats) whose deals are frozen as views.
fn cases() -> Vec<(GameKind, Value, u8)> {
    vec![
        (GameKind::Nimrod, Value::Null, 2),
        (
            GameKind::Nimrod,
            json!({"random": {"min": 1, "max": 1000000}}),
            2,
        ),
        (GameKind::Rummikub, Value::Null, 2),
        (GameKind::Rummikub, Value::Null, 4),
        (GameKind::Cribbage, Value::Null, 2),
        (GameKind::Cribbage, Value::Null, 3),
    ]
}

const NOTE: &str = "Written by games/tests/golden_deals.rs with PARLOR_BLESS_GOLDEN_DEALS=1 once the keyed deals agreed with keyed_stream.py; each line: a game, its options, seats, key, and every seat's then the spectator's view of the deal, as JSON text. Never regenerate to make a failure pass: a change here changes stored matches.";

fn dealt_views() -> Vec<Value> {
    let mut out = Vec::new();
    for (kind, options, seats) in cases() {
        for (name, key) in keys() {
            let g = kind
                .setup(&options, seats, &mut GameRng::from_key(key))
                .unwrap();
            let mut views: Vec<String> = (0..seats)
                .map(|s| serde_json::to_string(&g.view(Viewer::Seat(Seat(s)))).unwrap())
                .collect();
            views.push(serde_json::to_string(&g.view(Viewer::Spectator)).unwrap());
            out.push(json!({
                "game": kind.name(),
                "options": options,
                "seats": seats,
                "key": name,
                "views": views,
            }));
        }
    }
    out
}

#[test]
fn dealt_views_are_frozen() {
    let now = dealt_views();
    if std::env::var_os("PARLOR_BLESS_GOLDEN_DEALS").is_some() {
        let lines: Vec<String> = now.iter().map(Value::to_string).collect();
        let doc = format!(
            "{{\"note\": {},\n\"cases\": [\n{}\n]}}\n",
            json!(NOTE),
            lines.join(",\n")
        );
        std::fs::write(data("golden_deals.json"), doc).unwrap();
        return;
    }
    let frozen = read("golden_deals.json");
    let frozen = frozen["cases"].as_array().unwrap();
    assert_eq!(frozen.len(), now.len());
    for (want, got) in frozen.iter().zip(&now) {
        let what = format!(
            "{} {} seats, key {}",
            want["game"], want["seats"], want["key"]
        );
        assert_eq!(
            (
                &want["game"],
                &want["options"],
                &want["seats"],
                &want["key"]
            ),
            (&got["game"], &got["options"], &got["seats"], &got["key"]),
            "{what}"
        );
        // Byte for byte: the views are compared as the text they were.
        for (w, g) in want["views"]
            .as_array()
            .unwrap()
            .iter()
            .zip(got["views"].as_array().unwrap())
        {
            assert_eq!(w.as_str(), g.as_str(), "{what}");
        }
        assert_eq!(
            want["views"].as_array().map(Vec::len),
            got["views"].as_array().map(Vec::len)
        );
    }
}
