//! `parlor verify-ratings` at scale and against a lying server, on the
//! store the run asks for (`PARLOR_TEST_STORE=postgres`).
//!
//! The history is genuine and fast to make: rated Nimrod matches played
//! to their end with legal moves and written through the store's own
//! writes (`append_rated` seals each ledger line as the server does when
//! a rated match ends); then a real server serves it.
//!
//! - 2,000 rated matches verify from a fresh client (the logs come in
//!   batches from `GET /api/logs`; one `get_log` each ran into the
//!   per-connection rate limit around line 110).
//! - A server that publishes a ledger with two names swapped in one line
//!   (refolded and rehashed, so the chain holds) fails at that line: the
//!   match's log names who sat where.
//! - A server that drops a line (the rest renumbered, refolded, rehashed)
//!   passes every check of the chain, but not a head kept earlier
//!   (`--head N:HASH`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;

use parlor_cli::api;
use parlor_cli::verify::ratings::{verify_server, verify_server_kept};
use parlor_competition::ledger::{next_line, MatchEntrant};
use parlor_competition::{Glicko2, LedgerLine, Rating};
use parlor_games::{DealSecret, GameKind, Seat};
use parlor_protocol::{replay, Deal, LedgerHead, LoggedAction, MatchHeader, RoomId};
use parlor_server::store::{MatchRecord, Origin, RatedEnd, RatedSeat, Step, Store, StoredSeat};
use parlor_tests::http::request;
use parlor_tests::rating::ledger as read_ledger;
use parlor_tests::{start_server, TestStore};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use uuid::Uuid;

/// Rated matches of the scale test: more than the 507 on which the
/// verifier used to stop, and several ledger pages and log batches.
const SCALE_MATCHES: u32 = 2_000;

/// Accounts that play them, in turn.
const ACCOUNTS: u32 = 24;

/// When the first match ended; each ends a minute after the last.
const T0: u64 = 1_764_000_000_000;

fn name(i: u32) -> String {
    format!("scale{:02}", i % ACCOUNTS)
}

/// Writes match `i` (rated Nimrod between two accounts, played to its
/// end with the first legal move) through the store, as a server records
/// a rated match.
async fn rated_match(store: &Store, i: u32) {
    let a = i % ACCOUNTS;
    let b = (a + 1 + (i / ACCOUNTS) % (ACCOUNTS - 1)) % ACCOUNTS;
    let names = [name(a), name(b)];
    let mut seed = [0u8; 32];
    seed[..4].copy_from_slice(&i.to_le_bytes());
    let secret = DealSecret::new(seed, [7; 16]);
    let header = MatchHeader {
        game: GameKind::Nimrod,
        options: json!({"piles": [1 + i % 3, 2]}),
        seats: 2,
        seed: None,
        deal: Some(Deal {
            commitment: secret.commitment(),
            server_seed: secret.seed_hex(),
            salt: secret.salt_hex(),
            client_seeds: vec![None, None],
            bot_seats: Vec::new(),
        }),
        clock: None,
        rated: true,
        event: None,
        ladder: None,
        matched: None,
    };
    let room = RoomId::new(format!("{:012x}", 0x5ca1_e000_0000_u64 + u64::from(i))).unwrap();
    let record = MatchRecord {
        room: room.clone(),
        header: header.clone(),
        private: false,
        origin: Origin::default(),
    };
    let key = store.create_match(record).await.unwrap();
    for (seat, n) in names.iter().enumerate() {
        let who = StoredSeat::Player {
            token: Uuid::new_v4(),
            name: n.clone(),
            client_seed: None,
            account: true,
        };
        store
            .set_seat(key, Seat(seat as u8), Some(who))
            .await
            .unwrap();
    }
    let (mut g, mut rng) = replay(&header, &[]).unwrap();
    let mut seq = 0;
    loop {
        let seat = g.to_act().iter().next().unwrap();
        let mv = g.legal_moves(seat)[0].clone();
        g.play(seat, &mv, &mut rng).unwrap();
        let action = LoggedAction::Move(serde_json::to_value(&mv).unwrap());
        let step = Step::new(seq, seat, &action).unwrap();
        seq += 1;
        let Some(outcome) = g.outcome() else {
            store
                .append_step(key, step, None, None, None)
                .await
                .unwrap();
            continue;
        };
        let places = g.places().unwrap();
        let end = RatedEnd {
            pool: "nimrod".into(),
            room: room.as_str().into(),
            commitment: secret.commitment(),
            seats: names
                .iter()
                .enumerate()
                .map(|(s, n)| RatedSeat {
                    name: n.clone(),
                    account_key: n.clone(),
                    seat: Seat(s as u8),
                    team: None,
                    place: places[s],
                })
                .collect(),
            ended_ms: T0 + u64::from(i) * 60_000,
        };
        store
            .append_rated(key, step, None, outcome, end)
            .await
            .unwrap();
        return;
    }
}

/// Matches written at once: a rated match is a few commits, and
/// PostgreSQL's take a disk flush each; side by side they share them.
const WRITERS: u32 = 16;

/// A store holding `count` genuine rated matches.
async fn history(count: u32) -> TestStore {
    let test_store = TestStore::new().await;
    let (store, task) = Store::open(&test_store.config()).await.unwrap();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let store = store.clone();
            tokio::spawn(async move {
                for i in (w..count).step_by(WRITERS as usize) {
                    rated_match(&store, i).await;
                }
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap();
    }
    drop(store);
    task.finished().await.unwrap();
    test_store
}

#[tokio::test]
#[ignore = "2,000 matches: ~15 s on SQLite, ~100 s on PostgreSQL in a debug build; run on purpose (cargo test -p parlor-tests --test e2e -- --ignored verify_at_scale::)"]
async fn two_thousand_rated_matches_verify_from_a_fresh_client() {
    let started = std::time::Instant::now();
    let store = history(SCALE_MATCHES).await;
    let written = started.elapsed();
    let server = start_server(Some(&store)).await;
    let v = verify_server(&server.url(), None).await.unwrap().unwrap();
    assert_eq!(
        (v.lines, v.matches, v.players),
        (
            u64::from(SCALE_MATCHES),
            SCALE_MATCHES as usize,
            ACCOUNTS as usize
        )
    );
    // The head kept now is line 2,000 of the chain.
    let kept = v.head.clone();
    let v = verify_server_kept(&server.url(), Some("nimrod"), Some(&kept), None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v.matches, SCALE_MATCHES as usize);
    eprintln!(
        "history written in {written:?}; verified twice in {:?}",
        started.elapsed() - written
    );
    server.stop().await.unwrap();
}

/// A ledger line's match, as a forger re-rates it: when, what, and who
/// sat where with which place.
struct Rerated {
    at_ms: u64,
    pool: String,
    room: String,
    commitment: String,
    players: Vec<(String, u8, Option<u8>, u8)>,
}

fn matches_of(lines: &[LedgerLine]) -> Vec<Rerated> {
    lines
        .iter()
        .map(|l| Rerated {
            at_ms: l.at_ms,
            pool: l.pool.clone(),
            room: l.room.clone(),
            commitment: l.commitment.clone(),
            players: l
                .players
                .iter()
                .map(|p| (p.name.clone(), p.seat, p.team, p.place))
                .collect(),
        })
        .collect()
}

/// The ledger a forger publishes for `matches`: numbered, folded and
/// chained afresh, so that every check of the chain and the fold holds.
fn refold(matches: &[Rerated]) -> Vec<LedgerLine> {
    let mut table: HashMap<(String, String), (Rating, u64)> = HashMap::new();
    let mut out: Vec<LedgerLine> = Vec::new();
    for m in matches {
        let entrants: Vec<MatchEntrant> = m
            .players
            .iter()
            .map(|(name, seat, team, place)| MatchEntrant {
                name: name.clone(),
                seat: *seat,
                team: *team,
                place: *place,
                current: table.get(&(m.pool.clone(), name.clone())).copied(),
            })
            .collect();
        let head = out.last().map(|l| (l.n, l.hash.as_str()));
        let line = next_line(
            &Glicko2::PARLOR,
            head,
            m.at_ms,
            &m.pool,
            &m.room,
            &m.commitment,
            &entrants,
        );
        for p in &line.players {
            table.insert((m.pool.clone(), p.name.clone()), (p.after, m.at_ms));
        }
        out.push(line);
    }
    out
}

/// A server that publishes `ledger` (and its last line as the head) but
/// serves the real server's match logs: the URL.
async fn forger(ledger: Vec<LedgerLine>, real: String) -> String {
    let head = ledger.last().map_or_else(
        || json!({"n": 0, "hash": "0".repeat(64)}),
        |l| json!({"n": l.n, "hash": l.hash}),
    );
    let lines: Vec<String> = ledger
        .iter()
        .map(|l| serde_json::to_string(l).unwrap())
        .collect();
    let served = Arc::new((head.to_string(), lines, real));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let served = Arc::clone(&served);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&buf).into_owned();
                let path = text.split(' ').nth(1).unwrap_or("/");
                let (head, lines, real) = &*served;
                let (kind, body) = if path.starts_with("/api/ratings/head") {
                    ("application/json", head.clone().into_bytes())
                } else if let Some(q) = path.strip_prefix("/api/ratings/ledger?after=") {
                    let after: u64 = q.split('&').next().unwrap().parse().unwrap();
                    let mut body = String::new();
                    for l in lines.iter().skip(after as usize).take(1000) {
                        body.push_str(l);
                        body.push('\n');
                    }
                    ("application/x-ndjson", body.into_bytes())
                } else {
                    // Everything else (the logs) as the real server has it.
                    let a = api::get(real, path, 64 << 20).await.unwrap();
                    ("application/x-ndjson", a.body)
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    url
}

#[tokio::test]
async fn swapped_names_and_a_dropped_line_are_caught() {
    let store = history(12).await;
    let server = start_server(Some(&store)).await;
    let genuine = read_ledger(server.addr(), None).await;
    assert_eq!(genuine.len(), 12);
    // The forger's own replay of the genuine ledger verifies: the proxy
    // is faithful.
    let url = forger(refold(&matches_of(&genuine)), server.url()).await;
    assert!(verify_server(&url, None).await.unwrap().is_ok());

    // Line 5 with its two players' names swapped (the places stay with
    // the seats): refolded and rehashed, the chain holds, the log does
    // not agree.
    let mut swapped = matches_of(&genuine);
    let (first, second) = (
        swapped[4].players[0].0.clone(),
        swapped[4].players[1].0.clone(),
    );
    swapped[4].players[0].0 = second;
    swapped[4].players[1].0 = first;
    let url = forger(refold(&swapped), server.url()).await;
    let f = verify_server(&url, None).await.unwrap().unwrap_err();
    assert_eq!((f.line, f.check.as_str()), (5, "players"), "{f:?}");

    // The same from logs kept in a directory rather than fetched.
    let dir = tempfile::tempdir().unwrap();
    let rooms: Vec<&str> = genuine.iter().map(|l| l.room.as_str()).collect();
    let path = format!("/api/logs?rooms={}", rooms.join(","));
    let a = request(server.addr(), "GET", &path, &[], None).await;
    for line in a.text.lines() {
        let room = serde_json::from_str::<serde_json::Value>(line).unwrap()["room"]
            .as_str()
            .unwrap()
            .to_owned();
        std::fs::write(dir.path().join(format!("{room}.json")), line).unwrap();
    }
    let f = verify_server_kept(&url, None, None, Some(dir.path()))
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!((f.line, f.check.as_str()), (5, "players"), "{f:?}");
    let v = verify_server_kept(&server.url(), None, None, Some(dir.path())).await;
    assert!(v.unwrap().is_ok());

    // Line 7 dropped, the rest renumbered, refolded and rehashed: every
    // check of the chain holds, but not the head kept at line 10.
    let kept = LedgerHead {
        n: 10,
        hash: genuine[9].hash.clone(),
    };
    let mut dropped = matches_of(&genuine);
    dropped.remove(6);
    let url = forger(refold(&dropped), server.url()).await;
    let v = verify_server(&url, None).await.unwrap();
    assert!(v.is_ok(), "without a kept head the rewrite passes: {v:?}");
    let f = verify_server_kept(&url, None, Some(&kept), None)
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!((f.line, f.check.as_str()), (10, "kept_head"), "{f:?}");
    // The bulk endpoint refuses what is not a list of rooms, and answers
    // a room it does not have with the refusal, in order.
    for bad in ["/api/logs", "/api/logs?rooms=a%20b", "/api/logs?rooms=x,,y"] {
        let a = request(server.addr(), "GET", bad, &[], None).await;
        assert_eq!((a.status, a.code()), (400, "logs/bad_query"), "{bad}");
    }
    let path = format!("/api/logs?rooms=0123456789ab,{}", genuine[0].room);
    let a = request(server.addr(), "GET", &path, &[], None).await;
    assert_eq!(a.status, 200);
    let lines: Vec<serde_json::Value> = a
        .text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["code"], "room/not_found");
    assert_eq!(lines[1]["room"], genuine[0].room.as_str());
    let (p0, p1) = (&genuine[0].players[0].name, &genuine[0].players[1].name);
    assert_eq!(lines[1]["players"], json!([p0, p1]));
    // The genuine server keeps the head.
    assert!(verify_server_kept(&server.url(), None, Some(&kept), None)
        .await
        .unwrap()
        .is_ok());
    server.stop().await.unwrap();
}
