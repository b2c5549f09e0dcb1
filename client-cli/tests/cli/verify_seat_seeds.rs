//! `parlor verify`'s per-seat report: what each seat added to the deal
//! (a seed, none, a bot, a duplicate set's shared deal), what that
//! protects against, and whether the deal rests on the server alone.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_cli::verify::match_log::{verify, Report};
use parlor_cli::verify::seeds::Contribution;
use parlor_cli::verify::Verification;
use parlor_games::DealSecret;
use parlor_protocol::{MatchLog, RoomId};
use serde_json::{json, Value};

/// A finished-looking log of a Nimrod match with fixed piles (no chance:
/// any seeds verify) and no steps, whose header has `deal`'s fields and
/// `extra` beside them.
fn log(client_seeds: Value, bot_seats: Option<Value>, extra: Value) -> MatchLog {
    let secret = DealSecret::new([7; 32], [9; 16]);
    let mut deal = json!({
        "commitment": secret.commitment(),
        "server_seed": secret.seed_hex(),
        "salt": secret.salt_hex(),
        "client_seeds": client_seeds,
    });
    if let Some(bots) = bot_seats {
        deal["bot_seats"] = bots;
    }
    let mut header = json!({
        "game": "nimrod", "options": {"piles": [3, 4]}, "seats": 2, "deal": deal,
    });
    if let (Some(h), Some(more)) = (header.as_object_mut(), extra.as_object()) {
        h.extend(more.clone());
    }
    MatchLog {
        chat: Vec::new(),
        room: RoomId::new("0123456789ab").unwrap(),
        header: serde_json::from_value(header).unwrap(),
        moves: Vec::new(),
        outcome: None,
        closed: None,
        players: Vec::new(),
    }
}

fn contributions(r: &Report) -> Vec<Contribution> {
    r.seat_seeds.iter().map(|s| s.contributed).collect()
}

#[test]
fn every_seat_with_a_seed_protects_against_the_server_and_the_players() {
    let r = verify(&log(json!(["a1", "b2"]), None, json!({})));
    assert!(r.verified, "{:?}", r.failures);
    assert_eq!(contributions(&r), [Contribution::Seed, Contribution::Seed]);
    assert!(!r.server_alone);
    assert!(r.seat_seeds[0].protects.contains("against the server"));
    let json: Value = serde_json::from_str(&r.json().unwrap()).unwrap();
    assert_eq!(json["seat_seeds"][1]["contributed"], "seed");
    assert_eq!(json["server_alone"], false);
    let remarks = r.remarks();
    assert_eq!(remarks.len(), 2, "{remarks:?}");
    assert!(remarks.iter().all(|l| l.contains("after the commitment")));
}

#[test]
fn a_bot_seat_and_an_anchor_are_shown_as_bots() {
    let r = verify(&log(json!(["a1", null]), Some(json!([1])), json!({})));
    assert_eq!(contributions(&r), [Contribution::Seed, Contribution::Bot]);
    assert!(!r.server_alone);
    let ladder =
        json!({"ladder": {"players": ["nimrod-optimal", "bot"], "strategies": ["optimal", null]}});
    let r = verify(&log(json!([null, "b2"]), None, ladder));
    assert_eq!(contributions(&r), [Contribution::Bot, Contribution::Seed]);
}

#[test]
fn a_deal_without_any_seed_is_said_to_rest_on_the_server_alone() {
    let r = verify(&log(json!([null, null]), None, json!({})));
    assert!(r.verified, "the deal itself still checks out");
    assert_eq!(
        contributions(&r),
        [Contribution::NoSeed, Contribution::NoSeed]
    );
    assert!(r.server_alone);
    assert!(r
        .remarks()
        .iter()
        .any(|l| l.contains("rests on the server's seed alone")));
    let json: Value = serde_json::from_str(&r.json().unwrap()).unwrap();
    assert_eq!(json["server_alone"], true);
    assert_eq!(json["seat_seeds"][0]["contributed"], "no_seed");
}

#[test]
fn a_duplicate_sets_shared_deal_and_a_legacy_match_are_told_apart() {
    let event = json!({"event": {"event": "ev", "round": 1, "board": 0, "deal": 0,
        "players": ["a", "b"], "siblings": ["ba9876543210"]}});
    let r = verify(&log(json!([null, null]), None, event));
    assert_eq!(
        contributions(&r),
        [Contribution::SharedDeal, Contribution::SharedDeal]
    );
    assert!(r.server_alone);
    // A match dealt before fair dealing has no seeds to report.
    let mut legacy = log(json!([null, null]), None, json!({}));
    legacy.header.deal = None;
    legacy.header.seed = Some(42);
    let r = verify(&legacy);
    assert!(r.seat_seeds.is_empty());
    assert!(!r.server_alone);
}
