//! Crash durability, run on purpose:
//! `cargo test -p parlor-server --test server crash:: -- --ignored --nocapture`
//! (with `PARLOR_TEST_STORE=postgres`, the server keeps its matches in a
//! scratch Postgres schema as a cluster node: `--cluster` and `--bus`).
//!
//! Kills the real `parlor-server` binary with SIGKILL at random moments
//! while bots play Nimrod (`PARLOR_CRASH_KILLS` times, default 100),
//! restarts it on the same database, resumes every player with its token,
//! and finally plays every game to its end. Then it checks that every move
//! a client saw acknowledged (the update after it arrived) is in the
//! match log, that every view a client was shown is the view the log
//! replays to, and that every game finished. Meanwhile two accounts play
//! short rated matches again and again through the kills: at the end
//! every finished one has exactly one ratings ledger line, no other has
//! one, and the ledger re-folds to the ratings their pages show. And four
//! bot accounts play a Swiss event through the kills: at the end it has
//! finished, and its pairings, deals, results and standings re-check
//! against the logs and its revealed seed.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::live::{
    check_acked, check_views, hello, recv, send, start_server, OwnedServer, Ws, PATIENCE,
};
use common::{event_lane, rated};
use parlor_games::{Seat, Viewer};
use parlor_protocol::{ErrorCode, ServerMsg, Update};
use parlor_server::testing::{self, ScratchSchema};
use rand::Rng;
use serde_json::{json, Value};
use uuid::Uuid;

/// Rooms played at once.
const ROOMS: usize = 8;
/// Long games, so that most kills land mid-game.
const PILES: [u64; 2] = [800, 800];

/// The accounts that play rated matches through the kills.
const RATED: [&str; 2] = ["crash-from", "crash-to"];

/// The accounts that play a Swiss event through the kills.
const EVENT_PLAYERS: [&str; 4] = ["crash-ev-a", "crash-ev-b", "crash-ev-c", "crash-ev-d"];

/// Rated matches played in the last cycle, which no kill interrupts.
const RATED_LAST_CYCLE: usize = 3;

/// Plays rated matches on `url` until a connection breaks (the kill), or
/// (`last`) a few; the rooms they were played in.
async fn rated_lane(url: String, tokens: [String; 2], last: bool) -> Vec<String> {
    let mut rooms = Vec::new();
    let mut done = 0;
    while !last || done < RATED_LAST_CYCLE {
        match rated::rated_match(&url, &url, &tokens[0], &tokens[1], RATED[1], &mut rooms).await {
            Ok(_) => done += 1,
            Err(e) if last => panic!("a rated match without kills failed: {e}"),
            Err(_) => break,
        }
    }
    rooms
}

fn http_of(url: &str) -> String {
    url.trim_start_matches("ws://")
        .trim_end_matches('/')
        .to_owned()
}

/// How often a room's players resume again within one cycle after
/// `room/moved` before the cycle's play ends.
const MOVED_RETRIES: usize = 5;

#[derive(Debug, Clone, Default)]
struct RoomRecord {
    room: String,
    /// The session token each seat was joined with (or a join was sent
    /// with: a kill may land between the join's commit and its answer).
    tokens: [Uuid; 2],
    /// Whether the server confirmed each seat (`joined` or `resumed`).
    joined: [bool; 2],
    /// (seq, seat, move) of every move whose next update the mover saw.
    acked: Vec<(u64, u8, Value)>,
    /// (seq, seat, view) of every update a player saw.
    seen: Vec<(u64, u8, Value)>,
    finished: bool,
    /// Why its last cycle's play stopped (a kill, usually).
    last_error: String,
}

/// Where the server keeps its matches, the same across restarts.
enum Store {
    /// A SQLite file.
    File(PathBuf),
    /// A Postgres schema, and the Redis bus the node runs with (a cluster
    /// node, as in production).
    Schema(ScratchSchema, String),
}

/// The lease of a node on Postgres: after a kill, the restarted node
/// claims the rooms once it has run out (short, to keep the test quick).
const LEASE_MS: &str = "1000";

impl Store {
    fn args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = match self {
            Store::File(db) => vec!["--db".into(), db.into()],
            Store::Schema(s, bus) => vec![
                "--cluster".into(),
                s.url().into(),
                "--bus".into(),
                bus.into(),
                "--lease-ms".into(),
                LEASE_MS.into(),
            ],
        };
        // The rated lane plays one pair of accounts again and again
        // through the kills: the cap on rated results between two
        // accounts (tested on its own in the end-to-end suite) is off.
        args.extend(["--rated-pair-cap".into(), "0".into()]);
        args
    }
}

fn start(bin: &Path, store: &Store, dir: &Path) -> (OwnedServer, String) {
    start_server(bin, &store.args(), &dir.join("addr"), None)
}

async fn update_past(ws: &mut Ws, seq: Option<u64>) -> Result<Update, String> {
    loop {
        match recv(ws).await? {
            ServerMsg::Update(u)
                if seq.is_none_or(|s| u.seq > s)
                    && u.status != parlor_protocol::RoomStatus::Waiting =>
            {
                return Ok(u)
            }
            ServerMsg::Error { code, .. } => return Err(format!("error {code}")),
            _ => {}
        }
    }
}

/// Connects both players (creating the room the first time, resuming
/// afterwards) and plays until the game ends or the connection breaks.
async fn drive(url: String, mut rec: RoomRecord) -> RoomRecord {
    // Whichever request was answered so (a join, a resume or a move).
    let moved = ErrorCode::RoomMoved.to_string();
    let mut retries = 0;
    while !rec.finished {
        // A broken connection (the kill) ends a cycle's play; any other
        // reason is worth seeing when a room then fails to finish.
        // `room/moved` (the room was hosted anew, e.g. claimed back from
        // the killed process while a join, resume or move of ours was on
        // its way there) asks a client to resume again, which it does.
        match play(&url, &mut rec).await {
            Ok(()) => {}
            Err(why) => {
                let again = why.ends_with(&moved) && retries < MOVED_RETRIES;
                rec.last_error = why;
                if !again {
                    break;
                }
                retries += 1;
            }
        }
    }
    rec
}

/// Joins `seat` with the connection whose session token is `token`. The
/// token is kept before the join is sent: if a kill lands after the join
/// is committed but before its answer arrives, the seat is the token's
/// and is resumed with it, as a real client does.
async fn join(c: &mut Ws, rec: &mut RoomRecord, seat: u8, token: Uuid) -> Result<(), String> {
    let i = usize::from(seat);
    rec.tokens[i] = token;
    rec.joined[i] = false;
    send(c, json!({"type": "join", "room": rec.room, "seat": seat})).await?;
    loop {
        match recv(c).await? {
            ServerMsg::Joined { .. } => {
                rec.joined[i] = true;
                return Ok(());
            }
            ServerMsg::Error { code, .. } => return Err(format!("join: {code}")),
            _ => {}
        }
    }
}

async fn play(url: &str, rec: &mut RoomRecord) -> Result<(), String> {
    let mut ws = Vec::new();
    let mut latest = None;
    for seat in 0..2u8 {
        let (mut c, token) = hello(url).await?;
        if rec.room.is_empty() && seat == 0 {
            send(
                &mut c,
                json!({"type": "create_room", "game": "nimrod", "options": {"piles": PILES}}),
            )
            .await?;
            loop {
                if let ServerMsg::RoomCreated { room, .. } = recv(&mut c).await? {
                    rec.room = room.to_string();
                    break;
                }
            }
        }
        let i = usize::from(seat);
        if rec.tokens[i].is_nil() {
            join(&mut c, rec, seat, token).await?;
        } else {
            send(
                &mut c,
                json!({"type": "resume", "token": rec.tokens[usize::from(seat)]}),
            )
            .await?;
            loop {
                match recv(&mut c).await? {
                    ServerMsg::Resumed { .. } => {
                        rec.joined[i] = true;
                        break;
                    }
                    // A join sent before a kill that never got its
                    // answer: the server did not record it either (no
                    // move can have been played since), so join anew.
                    ServerMsg::Error {
                        code: ErrorCode::SessionUnknownToken,
                        ..
                    } if !rec.joined[i] => {
                        join(&mut c, rec, seat, token).await?;
                        break;
                    }
                    ServerMsg::Error {
                        code: ErrorCode::SessionUnknownToken,
                        ..
                    } => {
                        // The match ended just before a kill: it is no
                        // longer restored, its log says how it ended.
                        send(&mut c, json!({"type": "get_log", "room": rec.room})).await?;
                        loop {
                            match recv(&mut c).await? {
                                ServerMsg::Log(l) if l.outcome.is_some() => {
                                    rec.finished = true;
                                    return Ok(());
                                }
                                ServerMsg::Error { code, .. } => {
                                    return Err(format!("log: {code}"))
                                }
                                _ => {}
                            }
                        }
                    }
                    ServerMsg::Error { code, .. } => return Err(format!("resume: {code}")),
                    _ => {}
                }
            }
        }
        ws.push(c);
    }
    for c in ws.iter_mut() {
        latest = Some(update_past(c, None).await?);
    }
    let mut u = latest.ok_or("no update")?;
    while u.outcome.is_none() {
        let seat = u.to_act.iter().next().ok_or("nobody to act")?;
        let piles: Vec<u64> =
            serde_json::from_value(u.view["piles"].clone()).map_err(|e| e.to_string())?;
        let mv = if piles.get(1).copied().unwrap_or(0) > 0 {
            json!({"take": [0, 1]})
        } else {
            json!({"take": [1, 0]})
        };
        let seq = u.seq;
        send(
            &mut ws[seat.index()],
            json!({"type": "play", "room": rec.room, "seat": seat.0, "seq": seq, "move": mv}),
        )
        .await?;
        let next = update_past(&mut ws[seat.index()], Some(seq)).await?;
        rec.acked.push((seq, seat.0, mv));
        rec.seen.push((next.seq, seat.0, next.view.clone()));
        let other = 1 - seat.index();
        let theirs = update_past(&mut ws[other], Some(seq)).await?;
        rec.seen
            .push((theirs.seq, other as u8, theirs.view.clone()));
        u = if theirs.seq >= next.seq { theirs } else { next };
    }
    rec.finished = true;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "kills a server 100 times: run on purpose"]
async fn sigkill_at_random_moments_loses_no_acknowledged_move() {
    let kills: usize = std::env::var("PARLOR_CRASH_KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(100);
    let bin = Path::new(env!("CARGO_BIN_EXE_parlor-server"));
    let dir = tempfile::tempdir().unwrap();
    let store = if testing::postgres_run() {
        let Some(schema) = ScratchSchema::new().await else {
            return;
        };
        let Some(bus) = testing::redis_bus().await else {
            return;
        };
        Store::Schema(schema, bus)
    } else {
        Store::File(dir.path().join("crash.db"))
    };
    let mut rooms: Vec<RoomRecord> = vec![RoomRecord::default(); ROOMS];
    let mut rng = rand::thread_rng();
    // The rated players' accounts, made before the kills begin.
    let tokens = {
        let (mut child, url) = start(bin, &store, dir.path());
        let mut tokens = Vec::new();
        for name in RATED {
            tokens.push(
                common::seekers::account_token(&http_of(&url), name)
                    .await
                    .unwrap(),
            );
        }
        let event = event_lane::make_event(&http_of(&url), &EVENT_PLAYERS)
            .await
            .unwrap();
        child.kill();
        ([tokens[0].clone(), tokens[1].clone()], event)
    };
    let (tokens, (event_tokens, event)) = tokens;
    let mut rated_rooms = Vec::new();
    for cycle in 0..=kills {
        let (mut child, url) = start(bin, &store, dir.path());
        let tasks: Vec<_> = rooms
            .iter()
            .map(|r| tokio::spawn(drive(url.clone(), r.clone())))
            .collect();
        let lane = tokio::spawn(rated_lane(url.clone(), tokens.clone(), cycle == kills));
        let event_play = tokio::spawn(event_lane::event_lane(
            url.clone(),
            http_of(&url),
            event_tokens.clone(),
            event.clone(),
            cycle == kills,
        ));
        if cycle < kills {
            let ms = rng.gen_range(20..400);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            child.kill();
        }
        for (i, t) in tasks.into_iter().enumerate() {
            rooms[i] = tokio::time::timeout(PATIENCE * 5, t)
                .await
                .unwrap()
                .unwrap();
        }
        rated_rooms.extend(
            tokio::time::timeout(PATIENCE * 5, lane)
                .await
                .unwrap()
                .unwrap(),
        );
        tokio::time::timeout(PATIENCE * 5, event_play)
            .await
            .unwrap()
            .unwrap();
        if cycle == kills {
            // Every game is over: check the logs against what clients saw.
            let (mut ws, _) = hello(&url).await.unwrap();
            let mut acked = 0;
            let mut views = 0;
            for r in &rooms {
                assert!(
                    r.finished,
                    "room {} did not finish (its last cycle ended with: {})",
                    r.room, r.last_error
                );
                send(&mut ws, json!({"type": "get_log", "room": r.room}))
                    .await
                    .unwrap();
                let log = loop {
                    match recv(&mut ws).await.unwrap() {
                        ServerMsg::Log(l) => break l,
                        ServerMsg::Error { code, message, .. } => panic!("{code}: {message}"),
                        _ => {}
                    }
                };
                assert!(log.outcome.is_some());
                acked += check_acked(r.room.as_str(), &log, &r.acked);
                let seen: Vec<(u64, Viewer, Value)> = r
                    .seen
                    .iter()
                    .map(|(seq, seat, view)| (*seq, Viewer::Seat(Seat(*seat)), view.clone()))
                    .collect();
                views += check_views(r.room.as_str(), &log, &seen);
            }
            let event_games = event_lane::check_event(&url, &http_of(&url), &event).await;
            let (rated_finished, lines) =
                rated::check_ledger(&url, &http_of(&url), &rated_rooms, &RATED).await;
            child.kill();
            eprintln!(
                "crash harness: {} rated matches, {rated_finished} finished, {lines} ledger lines, one for each, folding to the stored ratings",
                rated_rooms.len()
            );
            eprintln!(
                "crash harness: a Swiss event of {} players, {event_games} games, finished through the kills and re-checked from its logs and seed",
                EVENT_PLAYERS.len()
            );
            eprintln!(
                "crash harness: {kills} SIGKILLs, {ROOMS} games all finished, {acked} acknowledged moves all in the logs, {views} views seen all replayed identically"
            );
        }
    }
}
