//! Done-when of moderation end to end, on SQLite: a moderator granted on
//! the server machine; a player reports a cheat; the moderator marks it
//! `engine` and voids its rated results; every opponent gets back exactly
//! what each voided match took, the cheat is back at its rating before
//! them, and `parlor verify-ratings` and the protocol document's Python
//! fold both verify the corrected ledger from the server alone.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Stdio};

use parlor_competition::{ledger::verify, Glicko2};
use parlor_protocol::{RoomId, RoomStatus};
use parlor_tests::http::{bearer, request};
use parlor_tests::rating::ledger;
use parlor_tests::seeking::{challenge_ended, challenge_made, signed_in};
use parlor_tests::Raw;
use serde_json::{json, Value};

use crate::moderation::{act, granted, human, sqlite_server};

/// Reads `room`'s updates on `c` until it is `status`.
async fn until(c: &mut Raw, room: &RoomId, status: RoomStatus) {
    while c.update(room).await.status != status {}
}

/// A rated Nimrod game between the holders of `winner` and `loser`
/// (tokens): the winner challenges, the loser accepts and resigns once
/// the game is on. (A challenge, not seeks: rated seeks wait for their
/// rating windows to widen as the ratings part.)
async fn rated_win(url: &str, winner: &str, loser: (&str, &str)) {
    let mut w = signed_in(url, winner).await;
    let mut l = signed_in(url, loser.1).await;
    w.send_json(json!({"type": "challenge", "to": loser.0, "game": "nimrod",
                       "options": {"piles": [3, 5]}, "rated": true}))
        .await;
    let made = challenge_made(&mut l).await;
    l.send_json(json!({"type": "accept", "challenge": made.challenge}))
        .await;
    let (_, _, _, room) = challenge_ended(&mut w).await;
    let room = room.unwrap_or_else(|| panic!("the challenge was not accepted"));
    until(&mut l, &room, RoomStatus::Playing).await;
    l.send_json(json!({"type": "leave", "room": room})).await;
    until(&mut w, &room, RoomStatus::Finished).await;
}

/// The ledger's NDJSON as the server serves it.
async fn ndjson(addr: std::net::SocketAddr) -> String {
    let lines = ledger(addr, None).await;
    lines
        .iter()
        .map(|l| serde_json::to_string(l).unwrap() + "\n")
        .collect()
}

#[tokio::test]
async fn a_reported_cheat_is_marked_its_results_voided_and_the_ledger_still_verifies() {
    let (_dir, db, server) = sqlite_server().await;
    let (addr, url) = (server.addr(), server.url());
    let cheat = human(addr, "cheat").await;
    let ann = human(addr, "ann").await;
    let bob = human(addr, "bob").await;
    let mo = human(addr, "moder").await;
    let db = db.to_str().unwrap().to_owned();
    granted(&["--db", &db], "moder", "moderator");

    // ann beats bob first, then the cheat beats ann twice and bob once.
    rated_win(&url, &ann, ("bob", &bob)).await;
    let before_cheat = ledger(addr, None).await;
    let from = before_cheat.last().unwrap().at_ms + 1;
    for loser in [
        ("ann", ann.as_str()),
        ("bob", bob.as_str()),
        ("ann", ann.as_str()),
    ] {
        rated_win(&url, &cheat, loser).await;
    }
    let played = ledger(addr, None).await;
    assert_eq!(played.len(), 4);

    let report = request(
        addr,
        "POST",
        "/api/reports",
        &[bearer(&ann)],
        Some(json!({"player": "cheat", "reason": "cheat", "text": "perfect every move"})),
    )
    .await;
    assert_eq!(report.status, 201, "{report:?}");

    let (status, entry) = act(
        addr,
        &mo,
        "cheat",
        "mark",
        json!({"mark": "engine", "void_from_ms": from, "reason": "fair_play", "text": "report 1"}),
    )
    .await;
    assert_eq!(status, 200, "{entry}");
    // Lines 5, 6 and 7 void lines 4, 3 and 2: newest match first.
    assert_eq!(
        entry["detail"]["correction_lines"],
        json!([5, 6, 7]),
        "{entry}"
    );

    let lines = ledger(addr, None).await;
    assert_eq!(lines.len(), 7, "one correction line per voided match");
    let table = verify(&Glicko2::PARLOR, &lines, 0.0).unwrap();
    // The cheat is back where it stood before its first voided match.
    let cheat_first = &played[1]
        .players
        .iter()
        .find(|p| p.name == "cheat")
        .unwrap()
        .before;
    assert_eq!(
        table.get("nimrod", "cheat").map(|r| r.0),
        Some(*cheat_first)
    );
    // ann got back exactly what her two losses to it took.
    let lost: f64 = played[1..]
        .iter()
        .flat_map(|l| l.players.iter())
        .filter(|p| p.name == "ann")
        .map(|p| p.after.rating - p.before.rating)
        .sum();
    let ann_played = played[3]
        .players
        .iter()
        .find(|p| p.name == "ann")
        .unwrap()
        .after
        .rating;
    let ann_now = table.get("nimrod", "ann").unwrap().0.rating;
    assert!(
        (ann_now - (ann_played - lost)).abs() < 1e-9,
        "{ann_now} {ann_played} {lost}"
    );
    // The server's ratings are the fold's.
    for name in ["cheat", "ann", "bob"] {
        let page = request(addr, "GET", &format!("/api/players/{name}"), &[], None).await;
        let served = page.body["ratings"]["nimrod"]["rating"].as_f64().unwrap();
        let folded = table.get("nimrod", name).unwrap().0.rating;
        assert_eq!(served, folded, "{name}: {}", page.body);
    }
    let page = request(addr, "GET", "/api/players/cheat", &[], None).await;
    assert_eq!(
        page.body["moderation"]["mark"],
        json!("engine"),
        "{}",
        page.body
    );

    // parlor verify-ratings, from a fresh client.
    let v = parlor_cli::verify::ratings::verify_server(&url, None)
        .await
        .unwrap()
        .unwrap_or_else(|f| panic!("{f:?}"));
    assert_eq!((v.lines, v.corrections), (7, 3));

    // The protocol document's Python fold (skipped without python3, except in CI).
    let python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !python {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 is needed in CI"
        );
        return;
    }
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ratings_fold.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(ndjson(addr).await.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success(), "{report}");
    assert_eq!(report["corrections"], json!(3), "{report}");
    assert!(
        report["max_after_diff"].as_f64().unwrap() <= 1e-6,
        "{report}"
    );
    server.stop().await.unwrap();
}
