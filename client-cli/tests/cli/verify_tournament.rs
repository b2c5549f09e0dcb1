//! `parlor verify-tournament` against a test double of a server: genuine
//! events, built here with parlor-competition's pairings and played with
//! parlor-games on the deals the event's seed derives (as the server
//! does), verify; every kind of tampering with the page or a game's log
//! fails at its round and game. The double serves the page over HTTP and
//! the logs over the protocol's `get_log`, on one port as the server does.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::process::Command;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use parlor_cli::verify::tournament::{verify_server, Failure, Verified};
use parlor_competition::tournament::{
    standings, Entrant, EventRules, EventSeed, Format, GameRecord, Play, RoundRecord,
};
use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{
    decode_client, encode, ClientMsg, Clock, Deal, EntrantKind, ErrorCode, EventGame, LogEntry,
    LoggedAction, MatchHeader, MatchLog, RoomId, ServerMsg, TournamentGame, TournamentInfo,
    TournamentPlayer, TournamentResult, TournamentStatus, PROTOCOL_VERSION,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

/// The event's id on the double.
const ID: &str = "ev0123456789";

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

/// An event as a server would publish it, and its games' logs by room.
#[derive(Clone)]
struct Event {
    page: TournamentInfo,
    /// The ratings ledger's NDJSON, as of the event's seeding.
    ledger: String,
    logs: HashMap<String, MatchLog>,
}

/// A game of the event played with random legal moves on its deal.
fn play(room: &RoomId, event: EventGame, seed: &EventSeed, rated: bool, pick: u64) -> MatchLog {
    let secret = seed.deal(event.round, event.board, event.deal);
    let header = MatchHeader {
        game: GameKind::Nimrod,
        options: json!({"piles": [4, 6]}),
        seats: 2,
        seed: None,
        deal: Some(Deal {
            commitment: secret.commitment(),
            server_seed: secret.seed_hex(),
            salt: secret.salt_hex(),
            client_seeds: vec![None, None],
            bot_seats: Vec::new(),
        }),
        clock: Some(Clock::PerMove { ms: 10_000 }),
        rated,
        event: Some(Box::new(event)),
        ladder: None,
        matched: None,
    };
    let (mut g, mut rng) = parlor_protocol::replay(&header, &[]).unwrap();
    let mut pick = Pick(pick.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut moves = Vec::new();
    while g.outcome().is_none() {
        let seat = g.to_act().iter().next().unwrap();
        let legal = g.legal_moves(seat);
        let mv = legal[pick.next(legal.len())].clone();
        g.play(seat, &mv, &mut rng).unwrap();
        moves.push(LogEntry {
            seq: moves.len() as u64,
            seat,
            action: LoggedAction::Move(serde_json::to_value(&mv).unwrap()),
        });
    }
    MatchLog {
        chat: Vec::new(),
        room: room.clone(),
        header,
        moves,
        outcome: g.outcome(),
        closed: None,
        players: Vec::new(),
    }
}

/// Runs an event of `names` under `rules` to its end, as the server's
/// scheduler does: each round paired from the results before it, each
/// game played on the deal of its place.
fn event(rules: EventRules, names: &[&str], seed: &EventSeed) -> Event {
    let entrants: Vec<Entrant> = names
        .iter()
        .enumerate()
        .map(|(i, n)| Entrant {
            name: (*n).to_owned(),
            rating: 1500.0 + 10.0 * i as f64,
        })
        .collect();
    let active: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
    let mut records: Vec<RoundRecord> = Vec::new();
    let mut rounds = Vec::new();
    let mut logs = HashMap::new();
    while let Some(round) = rules.next_round(seed, &entrants, &active, &records) {
        let number = records.len() as u32 + 1;
        let planned = round.games(rules.play);
        let room = |i: usize| RoomId::new(format!("r{number}g{i}")).unwrap();
        let mut games = Vec::new();
        let mut record = RoundRecord {
            games: Vec::new(),
            bye: round.bye.clone(),
            unpaired: vec![],
        };
        for (i, g) in planned.iter().enumerate() {
            let siblings = (0..planned.len())
                .filter(|&j| j != i && (planned[j].board, planned[j].deal) == (g.board, g.deal))
                .map(room)
                .collect();
            let ev = EventGame {
                event: ID.into(),
                round: number,
                board: g.board,
                deal: g.deal,
                players: g.seats.to_vec(),
                siblings,
            };
            let log = play(
                &room(i),
                ev,
                seed,
                false,
                u64::from(number) * 100 + i as u64,
            );
            let winners: Vec<u8> = match log.outcome {
                Some(Outcome::Win { winners }) => winners.iter().map(|s| s.0).collect(),
                _ => vec![],
            };
            games.push(TournamentGame {
                room: Some(room(i)),
                seats: g.seats.to_vec(),
                result: Some(TournamentResult {
                    winners: winners.iter().map(|&s| Seat(s)).collect(),
                    end: Some(parlor_protocol::GameEnd::Rules),
                }),
            });
            record.games.push(GameRecord {
                seats: g.seats.clone(),
                winners: Some(winners),
            });
            logs.insert(room(i).as_str().to_owned(), log);
        }
        records.push(record);
        rounds.push(games);
    }
    let page = TournamentInfo {
        id: ID.into(),
        name: "double".into(),
        created_by: names[0].into(),
        game: GameKind::Nimrod,
        format: rules.format,
        status: TournamentStatus::Finished,
        rounds_total: rules.total_rounds(names.len()),
        rounds_asked: Some(rules.rounds),
        minutes: None,
        options: json!({"piles": [4, 6]}),
        clock: Clock::PerMove { ms: 10_000 },
        rated: false,
        duplicate: rules.play != Play::Single,
        kind: EntrantKind::Any,
        starts_at_ms: 1_764_000_000_000,
        max_players: 16,
        commitment: seed.commitment(),
        seed: Some(seed.hex()),
        players: entrants
            .iter()
            .map(|e| TournamentPlayer {
                name: e.name.clone(),
                rating: Some(e.rating),
                withdrawn: false,
            })
            .collect(),
        byes: records.iter().map(|r| r.bye.clone()).collect(),
        waiting: records.iter().map(|r| r.unpaired.clone()).collect(),
        rounds,
        standings: standings(rules.format, &entrants, &records),
        tiebreak: rules.format.tiebreak_name().into(),
        arena_pairing: None,
        cancelled: None,
    };
    let ledger = seeding_ledger(&page);
    Event { page, logs, ledger }
}

fn round_robin() -> Event {
    let rules = EventRules {
        format: Format::RoundRobin,
        rounds: 1,
        play: Play::Single,
        arena_pairing: Default::default(),
    };
    event(
        rules,
        &["ann", "bob", "cy", "dee"],
        &EventSeed::new([7; 32]),
    )
}

fn swiss_duplicate() -> Event {
    let rules = EventRules {
        format: Format::Swiss,
        rounds: 3,
        play: Play::Duplicate { deals: 1 },
        arena_pairing: Default::default(),
    };
    event(
        rules,
        &["ann", "bob", "cy", "dee", "eve"],
        &EventSeed::new([9; 32]),
    )
}

/// The ratings ledger a server with these players' seeding ratings
/// publishes: a line per player before the start, each leaving the
/// player at the rating they were seeded by (only what the seeding check
/// reads is meaningful).
fn seeding_ledger(page: &TournamentInfo) -> String {
    let mut out = String::new();
    for (i, p) in page.players.iter().enumerate() {
        let r = json!({"rating": p.rating.unwrap_or(1500.0), "rd": 100.0, "vol": 0.06});
        let line = json!({
            "n": i + 1, "at_ms": page.starts_at_ms - 60_000, "pool": page.game.name(),
            "room": format!("seed{i}"), "commitment": "", "players": [{
                "name": p.name, "seat": 0, "team": null, "place": 1, "before": r, "after": r
            }], "prev": "0".repeat(64), "hash": "0".repeat(64)
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// Reads a request's head without taking it from the stream, so that a
/// WebSocket upgrade can still be accepted from the start.
async fn peek_head(stream: &TcpStream) -> Option<String> {
    let mut buf = vec![0u8; 8192];
    loop {
        let n = stream.peek(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
        if text.contains("\r\n\r\n") || n == buf.len() {
            return Some(text);
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
}

/// Answers `hello` and `get_log` over the protocol.
async fn serve_protocol(stream: TcpStream, event: Arc<Event>) {
    let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
        return;
    };
    while let Some(Ok(msg)) = ws.next().await {
        let Message::Text(text) = msg else {
            continue;
        };
        let reply = match decode_client(text.as_str()) {
            Ok(ClientMsg::Hello { .. }) => ServerMsg::Welcome {
                version: PROTOCOL_VERSION,
                session: uuid::Uuid::nil(),
                token: uuid::Uuid::nil(),
                games: vec![GameKind::Nimrod],
                account: None,
            },
            Ok(ClientMsg::GetLog { room, .. }) => match event.logs.get(room.as_str()) {
                Some(log) => ServerMsg::Log(log.clone()),
                None => ServerMsg::room_error(&room, ErrorCode::RoomNotFound, "no such room"),
            },
            _ => ServerMsg::error(ErrorCode::RoomNotFound, "the double knows no such request"),
        };
        if ws.send(Message::Text(encode(&reply).into())).await.is_err() {
            return;
        }
    }
}

/// Serves `event` on 127.0.0.1; the URL.
async fn double(event: Event) -> String {
    let event = Arc::new(event);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let event = Arc::clone(&event);
            tokio::spawn(async move {
                let Some(head) = peek_head(&stream).await else {
                    return;
                };
                if head.to_ascii_lowercase().contains("upgrade: websocket") {
                    return serve_protocol(stream, event).await;
                }
                let end = head.find("\r\n\r\n").map_or(head.len(), |e| e + 4);
                let mut sink = vec![0u8; end];
                let _ = stream.read_exact(&mut sink).await;
                let path = head.split(' ').nth(1).unwrap_or("/");
                let (status, body) = if path == format!("/api/tournaments/{ID}") {
                    (200, serde_json::to_string(&event.page).unwrap())
                } else if path.starts_with("/api/ratings/ledger") {
                    (200, event.ledger.clone())
                } else {
                    let e = json!({"code": "tournament/not_found", "message": "no tournament"});
                    (404, e.to_string())
                };
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
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

async fn check(event: Event) -> Result<Verified, Failure> {
    let url = double(event).await;
    verify_server(&url, ID).await.unwrap()
}

/// The failure's (check, round, game).
async fn fails(event: Event) -> (String, Option<usize>, Option<usize>) {
    let f = check(event).await.expect_err("a failure");
    assert!(!f.verified && !f.error.is_empty(), "{f:?}");
    (f.check, f.round, f.game)
}

fn at(check: &str, round: usize, game: Option<usize>) -> (String, Option<usize>, Option<usize>) {
    (check.to_owned(), Some(round), game)
}

#[tokio::test]
async fn genuine_events_verify_and_the_binary_says_so() {
    let rr = round_robin();
    assert_eq!(rr.page.rounds.len(), 3);
    // The random moves gave both seats wins: results are worth checking.
    let firsts = rr
        .page
        .rounds
        .iter()
        .flatten()
        .filter(|g| g.result.as_ref().unwrap().winners == [Seat(0)])
        .count();
    assert!(firsts > 0 && firsts < 6, "{firsts}");
    let v = check(rr.clone()).await.unwrap();
    assert_eq!((v.rounds, v.games), (3, 6));

    let sw = swiss_duplicate();
    assert!(
        sw.page.byes.iter().all(Option::is_some),
        "five players: a bye a round"
    );
    assert_eq!(sw.page.rounds[0].len(), 4, "two boards of two games");
    let v = check(sw).await.unwrap();
    assert_eq!((v.rounds, v.games), (3, 12));

    let url = double(rr).await;
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_parlor"))
            .args(["verify-tournament", ID, "--server", &url])
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
    assert_eq!(
        report,
        json!({"verified": true, "tournament": ID, "rounds": 3, "games": 6})
    );
}

#[tokio::test]
async fn a_changed_pairing_or_bye_fails_at_its_round() {
    // Seats turned round in round 2's second game.
    let mut e = round_robin();
    e.page.rounds[1][1].seats.swap(0, 1);
    assert_eq!(fails(e).await, at("pairings", 2, None));
    // Two opponents exchanged between round 3's games.
    let mut e = round_robin();
    let taken = e.page.rounds[2][0].seats[1].clone();
    e.page.rounds[2][0].seats[1] = std::mem::replace(&mut e.page.rounds[2][1].seats[1], taken);
    assert_eq!(fails(e).await, at("pairings", 3, None));
    // A Swiss bye given to someone else.
    let mut e = swiss_duplicate();
    let bye = e.page.byes[1].clone().unwrap();
    let other = e.page.rounds[1][0].seats[0].clone();
    e.page.byes[1] = Some(other.clone());
    for g in &mut e.page.rounds[1] {
        for s in &mut g.seats {
            if *s == other {
                *s = bye.clone();
            }
        }
    }
    assert_eq!(fails(e).await, at("pairings", 2, None));
}

#[tokio::test]
async fn a_changed_result_fails_at_its_game_and_the_binary_exits_1() {
    let mut e = round_robin();
    let r = e.page.rounds[2][1].result.as_mut().unwrap();
    r.winners = vec![Seat(1 - r.winners[0].0)];
    let url = double(e.clone()).await;
    assert_eq!(fails(e).await, at("result", 3, Some(1)));
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_parlor"))
            .args(["verify-tournament", ID, "--server", &url])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verified"], json!(false));
    assert_eq!(report["check"], json!("result"));
    assert_eq!(
        (report["round"].clone(), report["game"].clone()),
        (json!(3), json!(1))
    );
    assert_eq!(report["room"], json!("r3g1"));
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("the match ended in"),
        "{report}"
    );
    // In a Swiss the next round's pairings follow the changed result, but
    // the change is found where it was made: round 1.
    let mut e = swiss_duplicate();
    e.page.rounds[0][2].result.as_mut().unwrap().winners = vec![];
    assert_eq!(fails(e).await, at("result", 1, Some(2)));
    // A draw invented for a game that was never played.
    let mut e = round_robin();
    e.page.rounds[0][0].room = None;
    assert_eq!(fails(e).await, at("forfeit", 1, Some(0)));
}

#[tokio::test]
async fn changed_standings_seed_or_status_fail() {
    let mut e = round_robin();
    e.page.standings.swap(0, 1);
    assert_eq!(fails(e).await.0, "standings");
    let mut e = round_robin();
    e.page.standings[3].tiebreak += 0.5;
    assert_eq!(fails(e).await.0, "standings");
    // Another seed than the one committed to.
    let mut e = round_robin();
    e.page.seed = Some(EventSeed::new([8; 32]).hex());
    assert_eq!(fails(e).await.0, "commitment");
    let mut e = round_robin();
    e.page.seed = None;
    assert_eq!(fails(e).await.0, "seed");
    let mut e = round_robin();
    e.page.status = TournamentStatus::Running;
    assert_eq!(fails(e).await.0, "status");
    // A round left out at the end.
    let mut e = round_robin();
    e.page.rounds.pop();
    e.page.byes.pop();
    assert_eq!(fails(e).await.0, "rounds");
}

#[tokio::test]
async fn a_log_that_does_not_belong_fails_at_its_game() {
    // The log of another place: it names round 1 board 0, the page puts
    // it at round 2.
    let mut e = round_robin();
    let moved = e.logs["r1g0"].clone();
    e.logs.insert(
        "r2g0".into(),
        MatchLog {
            chat: Vec::new(),
            room: RoomId::new("r2g0").unwrap(),
            ..moved
        },
    );
    assert_eq!(fails(e).await, at("event", 2, Some(0)));
    // The right place but another deal (the next board's).
    let mut e = round_robin();
    let other = e.logs["r1g1"].header.deal.clone();
    e.logs.get_mut("r1g0").unwrap().header.deal = other;
    assert_eq!(fails(e).await, at("deal", 1, Some(0)));
    // A client seed added to a duplicate set's shared deal (a lone
    // game's players add theirs after its commitment, as in any room;
    // the two games of a set must be dealt alike, so no seat adds one).
    let mut e = swiss_duplicate();
    let deal = e
        .logs
        .get_mut("r2g3")
        .unwrap()
        .header
        .deal
        .as_mut()
        .unwrap();
    deal.client_seeds[0] = Some("mallory".into());
    assert_eq!(fails(e).await, at("deal", 2, Some(3)));
    // A duplicate set's game that does not name its twin.
    let mut e = swiss_duplicate();
    let ev = e
        .logs
        .get_mut("r2g3")
        .unwrap()
        .header
        .event
        .as_mut()
        .unwrap();
    ev.siblings.clear();
    assert_eq!(fails(e).await, at("event", 2, Some(3)));
    // A step the rules refuse.
    let mut e = round_robin();
    let log = e.logs.get_mut("r3g0").unwrap();
    log.moves[0].action = LoggedAction::Move(json!({"take": [9, 9]}));
    assert_eq!(fails(e).await, at("match", 3, Some(0)));
    // A log the server does not have.
    let mut e = round_robin();
    e.logs.remove("r2g1");
    assert_eq!(fails(e).await, at("log", 2, Some(1)));
}

#[tokio::test]
async fn raised_seeding_ratings_fail_even_in_the_same_order() {
    // Every player's seeding rating raised by 100: the order, and so
    // every pairing, is unchanged; only the ledger can tell.
    let mut e = round_robin();
    for p in &mut e.page.players {
        p.rating = p.rating.map(|r| r + 100.0);
    }
    let f = check(e).await.expect_err("raised ratings fail");
    assert_eq!(f.check, "seeding");
    assert!(f.error.contains("ann"), "{}", f.error);
}
