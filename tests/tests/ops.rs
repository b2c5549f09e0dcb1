//! Operations: `/healthz` and `/metrics` over HTTP on the game port or
//! on a listener of their own, `/healthz` while the connection slots are
//! all taken, and in cluster mode when the node's lease lapses (skipped
//! without PostgreSQL, except under `CI=true`).
//!
//! The metrics recorder is one per process: the counters seen here add
//! up every server of this test binary. Only one test here plays moves
//! (of Nimrod), so its deltas are exact.
//!
//! So this file is a test binary of its own, not a module of `e2e` (the
//! crate's other tests): there, other tests' servers would play moves,
//! hold Nimrod rooms and cluster leases in the same recorder, and the
//! exact counts asserted here (moves played, rooms playing, leases held)
//! would be theirs too.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_protocol::{ErrorCode, ServerMsg};
use parlor_server::limits::Limits;
use parlor_server::testing::ScratchSchema;
use parlor_server::Config;
use parlor_tests::{nimrod_move, nimrod_pair, start_server, start_server_with, Raw, PATIENCE};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_postgres::NoTls;

/// `GET path` on `addr`: the status and the body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut all))
        .await
        .expect("no answer")
        .unwrap();
    let text = String::from_utf8(all).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_owned())
}

/// The value of the series `series` (name and labels as rendered, e.g.
/// `parlor_rooms{game="nimrod",state="playing"}`) in `text`; 0 if absent
/// (a counter nothing has counted yet is not rendered).
fn value(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}

async fn metrics(addr: SocketAddr) -> String {
    let (status, body) = get(addr, "/metrics").await;
    assert_eq!(status, 200, "{body}");
    body
}

const MOVES: &str = "parlor_moves_accepted_total{game=\"nimrod\"}";
const STALE: &str = "parlor_moves_refused_total{code=\"action/stale_seq\"}";
const PLAYING: &str = "parlor_rooms{game=\"nimrod\",state=\"playing\"}";

#[tokio::test]
async fn metrics_count_the_moves_played_and_refused_and_health_says_ok() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (status, body) = get(addr, "/healthz").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.starts_with("ok\n"), "{body}");
    let before = metrics(addr).await;
    assert_eq!(value(&before, PLAYING), 0.0, "{before}");
    let (mut alice, mut bob, room, mut u) = nimrod_pair(&server.url(), [12, 20]).await;
    const PLAYED: u64 = 5;
    for _ in 0..PLAYED {
        let seat = u.to_act.iter().next().unwrap();
        let p = if seat.0 == 0 { &mut alice } else { &mut bob };
        p.play(&room, seat.0, u.seq, nimrod_move(&u)).await;
        u = p.update_at(&room, u.seq + 1).await;
    }
    // A move answering an old position is refused, and counted by code.
    let seat = u.to_act.iter().next().unwrap();
    let p = if seat.0 == 0 { &mut alice } else { &mut bob };
    p.play(&room, seat.0, u.seq - 1, nimrod_move(&u)).await;
    p.expect_error(ErrorCode::ActionStaleSeq).await;
    let after = metrics(addr).await;
    assert_eq!(
        value(&after, MOVES) - value(&before, MOVES),
        PLAYED as f64,
        "{after}"
    );
    assert_eq!(value(&after, STALE) - value(&before, STALE), 1.0, "{after}");
    assert_eq!(value(&after, PLAYING), 1.0, "{after}");
    assert!(value(&after, "parlor_connections_open") >= 2.0, "{after}");
    let store = if parlor_server::testing::postgres_run() {
        "postgres"
    } else {
        "sqlite"
    };
    let commits = format!("parlor_store_commit_seconds_count{{store=\"{store}\"}}");
    assert!(
        value(&after, &commits) >= value(&before, &commits) + PLAYED as f64 / 512.0,
        "{after}"
    );
    assert!(after.contains("# TYPE parlor_store_commit_seconds histogram"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_metrics_listener_answers_only_health_and_metrics() {
    let server = start_server_with(Config {
        metrics_bind: Some(([127, 0, 0, 1], 0).into()),
        ..Config::default()
    })
    .await;
    let ops = server.metrics_addr().unwrap();
    assert_ne!(ops, server.addr());
    let (status, body) = get(ops, "/healthz").await;
    assert_eq!(status, 200, "{body}");
    let body = metrics(ops).await;
    assert!(body.contains("# TYPE parlor_rooms gauge"), "{body}");
    for (path, want) in [("/", 404), ("/index.html", 404), ("/api/replay/abc", 404)] {
        assert_eq!(get(ops, path).await.0, want, "{path}");
    }
    // The game port does not answer them any more (it still serves the
    // page).
    for path in ["/healthz", "/metrics"] {
        assert_eq!(get(server.addr(), path).await.0, 404, "{path}");
    }
    assert_eq!(get(server.addr(), "/").await.0, 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn health_on_the_game_port_is_not_held_to_the_connection_rate() {
    let server = start_server(None).await;
    let burst = Limits::default().admission.map_or(0.0, |p| p.burst) as usize;
    // Far more quick polls, one connection each, than an address may open
    // at once.
    for i in 0..200.max(burst * 3) {
        let (status, body) = get(server.addr(), "/healthz").await;
        assert_eq!(status, 200, "poll {i}: {body}");
    }
    server.stop().await.unwrap();
}

const CRIBBAGE_WAITING: &str = "parlor_rooms{game=\"cribbage\",state=\"waiting\"}";

#[tokio::test]
async fn metrics_do_not_count_private_rooms() {
    let server = start_server(None).await;
    let mut c = Raw::greeted(&server.url(), "host").await;
    c.send_json(json!({"type": "create_room", "game": "cribbage", "private": true}))
        .await;
    let private = c
        .expect(|m| match m {
            ServerMsg::RoomCreated { room, .. } => Some(room.clone()),
            _ => None,
        })
        .await;
    let public = c.create("cribbage", json!(null), None).await;
    // Only this test makes Cribbage rooms, but the gauge is shared by the
    // servers of this binary: another test's scrape may set it to 0 in
    // between, never above this server's count.
    let mut most = 0.0f64;
    for _ in 0..3 {
        let text = metrics(server.addr()).await;
        assert!(!text.contains(private.as_str()), "{text}");
        assert!(!text.contains(public.as_str()), "{text}");
        most = most.max(value(&text, CRIBBAGE_WAITING));
    }
    assert_eq!(
        most, 1.0,
        "the private room was counted, or the public one not"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn health_says_unavailable_while_slow_heads_hold_every_connection_slot() {
    const SLOTS: usize = 6;
    let server = start_server_with(Config {
        metrics_bind: Some(([127, 0, 0, 1], 0).into()),
        limits: Limits {
            max_connections: SLOTS,
            full_reported_for: Duration::from_millis(300),
            ..Limits::default()
        },
        ..Config::default()
    })
    .await;
    let ops = server.metrics_addr().unwrap();
    assert_eq!(get(ops, "/healthz").await.0, 200);
    // Clients that start a request head and never finish it: each holds a
    // slot until the head's time is up.
    let mut slow = Vec::new();
    for _ in 0..SLOTS {
        let mut s = TcpStream::connect(server.addr()).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        slow.push(s);
    }
    let body = health_becomes(ops, 503).await;
    assert!(body.contains("connection slot"), "{body}");
    // A newcomer is indeed turned away meanwhile.
    let (status, body) = get(server.addr(), "/").await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("server/full"), "{body}");
    let body = health_becomes(ops, 503).await;
    assert!(body.starts_with("unavailable: "), "{body}");
    // Once they go, the slots are free and health is back.
    drop(slow);
    health_becomes(ops, 200).await;
    assert_eq!(get(server.addr(), "/").await.0, 200);
    server.stop().await.unwrap();
}

/// Short, so that a lapse shows quickly.
const LEASE: Duration = Duration::from_millis(600);

/// Asks `/healthz` until it answers `want`; the last body.
async fn health_becomes(addr: SocketAddr, want: u16) -> String {
    let give_up = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (status, body) = get(addr, "/healthz").await;
        if status == want {
            return body;
        }
        assert!(
            tokio::time::Instant::now() < give_up,
            "/healthz never answered {want}: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_turns_unavailable_while_the_node_cannot_renew_its_lease_and_names_its_new_id() {
    let Some(scratch) = ScratchSchema::new().await else {
        return;
    };
    let node = start_server_with(Config {
        store: scratch.config_with_lease(LEASE),
        ..Config::default()
    })
    .await;
    let addr = node.addr();
    let body = health_becomes(addr, 200).await;
    assert!(body.contains("node: "), "{body}");
    assert_eq!(value(&metrics(addr).await, "parlor_leases_held"), 1.0);
    // The node table locked: no renewal gets through, and the lease lapses.
    let (mut admin, conn) = tokio_postgres::connect(&scratch.url(), NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let tx = admin.transaction().await.unwrap();
    tx.batch_execute("LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    let body = health_becomes(addr, 503).await;
    assert!(body.contains("lease"), "{body}");
    assert_eq!(value(&metrics(addr).await, "parlor_leases_held"), 0.0);
    // Once renewals get through again, the node serves again (under a
    // new id if its lease ran out meanwhile).
    tx.rollback().await.unwrap();
    let body = health_becomes(addr, 200).await;
    // A lease that ran out (as far as the database knows) is not renewed:
    // the node takes a new id, which `/healthz` reports.
    let id = |body: &str| body.split("node: ").nth(1).map(|s| s.trim().to_owned());
    let old = id(&body).unwrap();
    admin
        .execute(
            "UPDATE nodes SET lease_until = now() - interval '1 second' WHERE id = $1",
            &[&old],
        )
        .await
        .unwrap();
    let give_up = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (status, body) = get(addr, "/healthz").await;
        if status == 200 && id(&body).is_some_and(|new| new != old) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < give_up,
            "the node kept its id: {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    node.stop().await.unwrap();
}
