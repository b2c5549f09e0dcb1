//! Operations: `/healthz` and `/metrics` over HTTP on the game port and
//! on a listener of their own, and `/healthz` in cluster mode when the
//! node's lease lapses (skipped without PostgreSQL, except under
//! `CI=true`).
//!
//! The metrics recorder is one per process: the counters seen here add
//! up every server of this test binary. Only one test here plays moves
//! (of Nimrod), so its deltas are exact.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_protocol::ErrorCode;
use parlor_server::testing::ScratchSchema;
use parlor_server::Config;
use parlor_tests::{nimrod_move, nimrod_pair, start_server, start_server_with, PATIENCE};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_postgres::NoTls;

/// `GET path` on `addr`: the status and the body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
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
    // The game port answers them too.
    assert_eq!(get(server.addr(), "/healthz").await.0, 200);
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
