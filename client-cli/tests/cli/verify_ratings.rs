//! `parlor verify-ratings` against a test double of the server's ratings
//! API: genuine ledgers built from real matches (played here with
//! parlor-games, rated with parlor-competition's `next_line` as the
//! server does) verify; every kind of tampering fails at its line.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::process::Command;
use std::sync::{Arc, Mutex};

use parlor_cli::verify::ratings::{verify_server, Failure, LEDGER_PAGE};
use parlor_competition::ledger::{next_line, MatchEntrant, DAY_MS, GENESIS};
use parlor_competition::{Glicko2, LedgerLine, Rating};
use parlor_games::{DealSecret, GameKind, Seat};
use parlor_protocol::{replay, Deal, LogEntry, LoggedAction, MatchHeader, MatchLog, RoomId};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const SYSTEM: Glicko2 = Glicko2::PARLOR;

/// Steps after which a random match is resigned by the seat to act, so
/// that every match ends.
const MAX_STEPS: u64 = 3_000;

/// A small deterministic stream for picking moves.
struct Pick(u64);

impl Pick {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A rated match played to its end with random legal moves.
fn play(game: GameKind, seats: u8, room: &str, seed: u64) -> MatchLog {
    let mut server_seed = [0u8; 32];
    for (i, b) in server_seed.iter_mut().enumerate() {
        *b = (seed as u8).wrapping_mul(31).wrapping_add(i as u8);
    }
    let secret = DealSecret::new(server_seed, [seed as u8; 16]);
    let header = MatchHeader {
        game,
        options: Value::Null,
        seats,
        seed: None,
        deal: Some(Deal {
            commitment: secret.commitment(),
            server_seed: secret.seed_hex(),
            salt: secret.salt_hex(),
            client_seeds: vec![None; usize::from(seats)],
            bot_seats: Vec::new(),
        }),
        clock: None,
        rated: true,
        event: None,
        ladder: None,
        matched: None,
    };
    let (mut g, mut rng) = replay(&header, &[]).unwrap();
    let mut pick = Pick(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut moves = Vec::new();
    let mut seq = 0;
    while g.outcome().is_none() {
        let seat = g.to_act().iter().next().unwrap();
        if seq == MAX_STEPS {
            g.forfeit(seat);
            moves.push(LogEntry {
                seq,
                seat,
                action: LoggedAction::Forfeit,
            });
            break;
        }
        let legal = g.legal_moves(seat);
        let mv = legal[pick.next(legal.len())].clone();
        g.play(seat, &mv, &mut rng).unwrap();
        moves.push(LogEntry {
            seq,
            seat,
            action: LoggedAction::Move(serde_json::to_value(&mv).unwrap()),
        });
        seq += 1;
    }
    MatchLog {
        chat: Vec::new(),
        room: RoomId::new(room).unwrap(),
        header,
        moves,
        outcome: g.outcome(),
        closed: None,
        players: Vec::new(),
    }
}

/// A rated match as the server records it: who sat where, and its log.
#[derive(Clone)]
struct Rated {
    at_ms: u64,
    pool: String,
    room: String,
    commitment: String,
    /// (name, seat, team, place), by seat.
    players: Vec<(String, u8, Option<u8>, u8)>,
    log: MatchLog,
}

fn rated(at_ms: u64, names: &[&str], mut log: MatchLog) -> Rated {
    // The server's log of a rated match names its accounts by seat.
    log.players = names.iter().map(|n| (*n).to_owned()).collect();
    let (g, _) = replay(&log.header, &log.moves).unwrap();
    let places = g.places().unwrap();
    Rated {
        at_ms,
        pool: log.header.game.name().into(),
        room: log.room.as_str().into(),
        commitment: log.header.deal.as_ref().unwrap().commitment.clone(),
        players: names
            .iter()
            .enumerate()
            .map(|(s, n)| ((*n).to_owned(), s as u8, g.team(Seat(s as u8)), places[s]))
            .collect(),
        log,
    }
}

/// The ledger a server writes for these matches: each line from the
/// ratings table's current values with `next_line`, as the server does.
fn ledger(matches: &[Rated]) -> Vec<LedgerLine> {
    let mut table: HashMap<(String, String), (Rating, u64)> = HashMap::new();
    let mut lines: Vec<LedgerLine> = Vec::new();
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
        let head = lines.last().map(|l| (l.n, l.hash.as_str()));
        let line = next_line(
            &SYSTEM,
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
        lines.push(line);
    }
    lines
}

/// Fourteen matches of every game: two-player, three-player, Cribbage
/// partnerships, idle gaps of days.
fn season() -> Vec<Rated> {
    let hour = 3_600_000;
    let mut t = 1_764_000_000_000;
    let mut at = |step: u64| {
        t += step;
        t
    };
    let mut out = Vec::new();
    let two = ["alice", "bob", "carol"];
    for i in 0..6u64 {
        let (a, b) = (two[i as usize % 3], two[(i as usize + 1) % 3]);
        let log = play(GameKind::Nimrod, 2, &format!("nim{i}"), 10 + i);
        out.push(rated(at(hour), &[a, b], log));
    }
    let log = play(GameKind::Cribbage, 4, "crib0", 21);
    out.push(rated(at(hour), &["alice", "bob", "carol", "dave"], log));
    let log = play(GameKind::Rummikub, 3, "rummi0", 22);
    out.push(rated(at(2 * DAY_MS + 5), &["dave", "alice", "bob"], log));
    let log = play(GameKind::Nimrod, 2, "nim6", 23);
    out.push(rated(at(3 * DAY_MS), &["alice", "dave"], log));
    let log = play(GameKind::Mitsudomoe, 2, "mitsu0", 24);
    out.push(rated(at(hour), &["bob", "carol"], log));
    let log = play(GameKind::Cribbage, 4, "crib1", 25);
    out.push(rated(at(hour), &["dave", "carol", "bob", "alice"], log));
    let log = play(GameKind::Rummikub, 2, "rummi1", 26);
    out.push(rated(at(DAY_MS / 2), &["carol", "alice"], log));
    let log = play(GameKind::Cribbage, 2, "crib2", 27);
    out.push(rated(at(hour), &["bob", "dave"], log));
    let log = play(GameKind::Nimrod, 2, "nim7", 28);
    out.push(rated(at(10 * DAY_MS), &["carol", "bob"], log));
    out
}

/// What the test double serves.
#[derive(Default)]
struct Served {
    /// The ledger's lines as sent (JSON text, one per line).
    lines: Vec<String>,
    /// `/api/ratings/head`'s body.
    head: String,
    /// Each room's log, as JSON.
    logs: HashMap<String, String>,
}

impl Served {
    fn new(lines: &[LedgerLine], matches: &[Rated]) -> Served {
        let head = lines.last().map_or_else(
            || json!({"n": 0, "hash": GENESIS}),
            |l| json!({"n": l.n, "hash": l.hash}),
        );
        Served {
            lines: lines
                .iter()
                .map(|l| serde_json::to_string(l).unwrap())
                .collect(),
            head: head.to_string(),
            logs: matches
                .iter()
                .map(|m| {
                    let log = serde_json::to_string(&m.log).unwrap();
                    (m.log.room.as_str().to_owned(), log)
                })
                .collect(),
        }
    }

    /// The answer to `path`: status, content type, body.
    fn answer(&self, path: &str) -> (u16, &'static str, String) {
        let (route, query) = path.split_once('?').unwrap_or((path, ""));
        let param = |k: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(k)?.strip_prefix('='))
        };
        match route {
            "/api/ratings/head" => (200, "application/json", self.head.clone()),
            "/api/ratings/ledger" => {
                let after: u64 = param("after").map_or(0, |a| a.parse().unwrap());
                let pool = param("pool");
                let mut body = String::new();
                for l in self
                    .lines
                    .iter()
                    .filter(|l| {
                        let v: Value = serde_json::from_str(l).unwrap_or_default();
                        v["n"].as_u64().unwrap_or(u64::MAX) > after
                            && pool.is_none_or(|p| v["pool"] == p)
                    })
                    .take(LEDGER_PAGE)
                {
                    body.push_str(l);
                    body.push('\n');
                }
                (200, "application/x-ndjson", body)
            }
            // Each room's log, or the server's refusal, a line each.
            "/api/logs" => {
                let mut body = String::new();
                for room in param("rooms").unwrap_or_default().split(',') {
                    match self.logs.get(room) {
                        Some(log) => body.push_str(log),
                        None => body.push_str(
                            &json!({"room": room, "code": "room/not_found", "message": "no such room"})
                                .to_string(),
                        ),
                    }
                    body.push('\n');
                }
                (200, "application/x-ndjson", body)
            }
            _ => (
                404,
                "application/json",
                json!({"code": "http/not_found", "message": "no such path"}).to_string(),
            ),
        }
    }
}

/// Serves `served` on 127.0.0.1 (one request per connection, as the
/// client makes them); the URL.
async fn double(served: Served) -> String {
    let served = Arc::new(Mutex::new(served));
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
                let text = String::from_utf8_lossy(&buf);
                let path = text.split(' ').nth(1).unwrap_or("/").to_owned();
                let (status, kind, body) = served.lock().unwrap().answer(&path);
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(body.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    url
}

/// Verifies what a double serving `lines` and the matches' logs says.
async fn check(lines: &[LedgerLine], matches: &[Rated]) -> Result<u64, Failure> {
    let url = double(Served::new(lines, matches)).await;
    verify_server(&url, None).await.unwrap().map(|v| v.lines)
}

/// The failure's (line, check).
async fn fails(lines: &[LedgerLine], matches: &[Rated]) -> (u64, String) {
    let f = check(lines, matches).await.expect_err("a failure");
    assert!(!f.reason.is_empty());
    (f.line, f.check)
}

/// Re-seals every line from `from` on with a good chain: what a server
/// rewriting history would publish.
fn rechain(lines: &mut [LedgerLine], from: usize) {
    for i in from..lines.len() {
        if i > 0 {
            lines[i].prev = lines[i - 1].hash.clone();
        }
        lines[i] = lines[i].clone().seal();
    }
}

#[tokio::test]
async fn a_genuine_ledger_verifies_and_the_binary_says_so() {
    let matches = season();
    let lines = ledger(&matches);
    let url = double(Served::new(&lines, &matches)).await;
    let v = verify_server(&url, None).await.unwrap().unwrap();
    assert_eq!(v.lines, matches.len() as u64);
    assert_eq!(v.head.n, lines.len() as u64);
    assert_eq!(v.head.hash, lines.last().unwrap().hash);
    assert_eq!(v.players, 4);
    assert_eq!(v.matches, matches.len());
    let only = verify_server(&url, Some("cribbage"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(only.matches, 3);
    assert_eq!(only.lines, matches.len() as u64);

    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_parlor"))
            .args(["verify-ratings", "--server", &url, "--pool", "nimrod"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verified"], json!(true));
    assert_eq!(report["lines"], json!(14));
    assert_eq!(report["players"], json!(4));
    assert_eq!(report["matches"], json!(8));
    assert_eq!(report["head"]["n"], json!(14));
}

#[tokio::test]
async fn an_empty_ledger_verifies() {
    assert_eq!(check(&[], &[]).await, Ok(0));
}

#[tokio::test]
async fn a_changed_after_fails_at_its_line_sealed_or_not() {
    let matches = season();
    let good = ledger(&matches);
    let mut lines = good.clone();
    lines[4].players[1].after.rating += 0.01;
    assert_eq!(fails(&lines, &matches).await, (5, "hash".into()));
    rechain(&mut lines, 4);
    assert_eq!(fails(&lines, &matches).await, (5, "after".into()));
    // Beyond the tolerance of 1e-9 only.
    let mut lines = good.clone();
    lines[9].players[0].after.rd += 1e-7;
    rechain(&mut lines, 9);
    assert_eq!(fails(&lines, &matches).await, (10, "after".into()));
    let mut lines = good;
    lines[8].players[0].before.rd += 1.0;
    rechain(&mut lines, 8);
    assert_eq!(fails(&lines, &matches).await, (9, "before".into()));
}

#[tokio::test]
async fn a_lie_about_a_place_is_caught_by_the_match_log() {
    let matches = season();
    // The server rates line 3 as if the loser had won, and everything
    // after it consistently: chain and fold hold, the log does not.
    let mut lied = matches.clone();
    let p = &mut lied[2].players;
    let (a, b) = (p[0].3, p[1].3);
    p[0].3 = b;
    p[1].3 = a;
    assert_ne!(a, b, "nimrod has a winner");
    let lines = ledger(&lied);
    assert_eq!(fails(&lines, &lied).await, (3, "places".into()));
    // A place changed in one line only, re-sealed: the fold catches it.
    let mut lines = ledger(&matches);
    lines[2].players[0].place = lines[2].players[1].place;
    rechain(&mut lines, 2);
    assert_eq!(fails(&lines, &matches).await, (3, "after".into()));
}

#[tokio::test]
async fn dropped_reordered_and_unreadable_lines_fail_at_their_place() {
    let matches = season();
    let good = ledger(&matches);
    let mut dropped = good.clone();
    dropped.remove(5);
    assert_eq!(fails(&dropped, &matches).await, (6, "numbering".into()));
    let mut reordered = good.clone();
    reordered.swap(6, 7);
    assert_eq!(fails(&reordered, &matches).await, (7, "numbering".into()));
    // Renumbered and re-chained after the swap: line 7 (the Rummikub
    // match, rated in its own pool) folds the same, but the Cribbage match
    // now comes after it in the ledger and before it in time.
    let mut renumbered = reordered.clone();
    renumbered[6].n = 7;
    renumbered[7].n = 8;
    rechain(&mut renumbered, 6);
    assert_eq!(fails(&renumbered, &matches).await, (8, "time".into()));
    let mut broken = good.clone();
    broken[10].hash = broken[10].hash.replace(['a', 'b'], "c");
    if broken[10].hash == good[10].hash {
        broken[10].hash = "0".repeat(64);
    }
    assert_eq!(fails(&broken, &matches).await, (11, "hash".into()));
    let mut served = Served::new(&good, &matches);
    served.lines[3] = "{\"n\": 4, \"not\": \"a line\"}".into();
    let url = double(served).await;
    let f = verify_server(&url, None).await.unwrap().unwrap_err();
    assert_eq!((f.line, f.check.as_str()), (4, "format"));
}

#[tokio::test]
async fn a_lying_line_about_its_match_fails_at_that_line() {
    let matches = season();
    // Partnerships swapped in the first Cribbage match (line 7).
    let mut lied = matches.clone();
    for p in &mut lied[6].players {
        p.2 = p.2.map(|t| 1 - t);
    }
    let lines = ledger(&lied);
    assert_eq!(fails(&lines, &lied).await, (7, "teams".into()));
    // Players listed out of seat order.
    let mut lied = matches.clone();
    lied[7].players.swap(0, 2);
    let lines = ledger(&lied);
    assert_eq!(fails(&lines, &lied).await, (8, "seats".into()));
    // A seat left unrated.
    let mut lied = matches.clone();
    lied[7].players.pop();
    let lines = ledger(&lied);
    assert_eq!(fails(&lines, &lied).await, (8, "seats".into()));
    // The wrong pool, and the wrong commitment.
    let mut lied = matches.clone();
    lied[9].pool = "nimrod".into();
    let lines = ledger(&lied);
    assert_eq!(fails(&lines, &lied).await, (10, "pool".into()));
    let mut lied = matches.clone();
    lied[1].commitment = "0".repeat(64);
    let lines = ledger(&lied);
    assert_eq!(fails(&lines, &lied).await, (2, "commitment".into()));
    // One match rated twice.
    let mut lied = matches.clone();
    lied[5].room = lied[0].room.clone();
    let lines = ledger(&lied);
    assert_eq!(fails(&lines, &lied).await, (6, "room".into()));
}

#[tokio::test]
async fn a_missing_or_doctored_log_fails_its_line() {
    let matches = season();
    let lines = ledger(&matches);
    let mut served = Served::new(&lines, &matches);
    served.logs.remove("nim3");
    let url = double(served).await;
    let f = verify_server(&url, None).await.unwrap().unwrap_err();
    assert_eq!((f.line, f.check.as_str()), (4, "log"));
    // Missing from another pool than the one asked for: not looked at.
    assert!(verify_server(&url, Some("cribbage")).await.unwrap().is_ok());
    // A log whose steps were changed: parlor verify's check fails.
    let mut doctored = matches.clone();
    let mv = &mut doctored[7].log.moves[2];
    mv.seat = Seat((mv.seat.0 + 1) % 3);
    assert_eq!(fails(&lines, &doctored).await, (8, "match".into()));
    // A log of an unrated match.
    let mut casual = matches.clone();
    casual[0].log.header.rated = false;
    assert_eq!(fails(&lines, &casual).await, (1, "rated".into()));
}

#[tokio::test]
async fn a_published_head_that_is_not_in_the_ledger_fails() {
    let matches = season();
    let lines = ledger(&matches);
    let mut served = Served::new(&lines, &matches);
    served.head = json!({"n": 9, "hash": lines[8].hash.replace('a', "b") + "0"}).to_string();
    let url = double(served).await;
    let f = verify_server(&url, None).await.unwrap().unwrap_err();
    assert_eq!((f.line, f.check.as_str()), (9, "head"));
    // A head kept from before history was cut short.
    let mut served = Served::new(&lines[..10], &matches);
    served.head = json!({"n": 12, "hash": lines[11].hash}).to_string();
    let url = double(served).await;
    let f = verify_server(&url, None).await.unwrap().unwrap_err();
    assert_eq!((f.line, f.check.as_str()), (12, "head"));
    // A head older than the ledger's end is fine: lines were added since.
    let mut served = Served::new(&lines, &matches);
    served.head = json!({"n": 5, "hash": lines[4].hash}).to_string();
    let url = double(served).await;
    assert!(verify_server(&url, None).await.unwrap().is_ok());
}

/// More lines than one page: the client pages with `after`, and a line
/// tampered on the second page is found there; the binary exits 1.
#[tokio::test]
async fn a_ledger_longer_than_a_page_is_read_page_by_page() {
    let mut matches = Vec::new();
    let names = ["ann", "ben", "cy", "dot", "eve"];
    let mut t = 1_764_000_000_000;
    for i in 0..(LEDGER_PAGE as u64 + 30) {
        t += 600_000 + (i % 7) * DAY_MS / 3;
        let a = names[i as usize % 5];
        let b = names[(i as usize * 3 + 1) % 5];
        let b = if a == b {
            names[(i as usize + 2) % 5]
        } else {
            b
        };
        let log = play(GameKind::Nimrod, 2, &format!("n{i}"), 1000 + i);
        matches.push(rated(t, &[a, b], log));
    }
    let mut lines = ledger(&matches);
    // Only the logs of one pool are fetched: keep the test quick.
    let url = double(Served::new(&lines, &matches)).await;
    let v = verify_server(&url, Some("cribbage"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v.lines, LEDGER_PAGE as u64 + 30);
    assert_eq!(v.players, 5);
    // Every match replayed too: one log request a line.
    let started = std::time::Instant::now();
    let all = verify_server(&url, None).await.unwrap().unwrap();
    assert_eq!(all.matches, LEDGER_PAGE + 30);
    eprintln!(
        "verified {} lines and their logs in {:?}",
        all.lines,
        started.elapsed()
    );
    lines[LEDGER_PAGE + 10].players[0].after.vol += 1e-6;
    rechain(&mut lines, LEDGER_PAGE + 10);
    let url = double(Served::new(&lines, &matches)).await;
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_parlor"))
            .args(["verify-ratings", "--server", &url, "--pool", "cribbage"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verified"], json!(false));
    assert_eq!(report["line"], json!(LEDGER_PAGE + 11));
    assert_eq!(report["check"], json!("after"));
    assert!(report["reason"].as_str().unwrap().contains("after"));
}
