//! Chaos in a cluster, run on purpose:
//! `cargo test -p parlor-server --test server -- --ignored --nocapture chaos::`
//! (`PARLOR_CHAOS_CYCLES`, default [`DEFAULT_CYCLES`], sets how many
//! faults).
//!
//! Starts services of its own (a private `redis-server` and a private
//! PostgreSQL cluster made with `initdb`, both on loopback) and three
//! nodes of the real `parlor-server` binary on them. Clients play rooms
//! of every game, two players each on random nodes, with spectators on
//! random nodes, and bots alone play other rooms. Meanwhile, each cycle
//! SIGKILLs a random node and restarts it (every [`STOP_EVERY`]th cycle
//! SIGSTOPs one for twice the lease instead), and once each Redis is
//! killed and restarted and PostgreSQL is stopped (`immediate`) and
//! started again. Clients behave like real ones: on a closed connection,
//! `room/moved` or `server/unreachable` they reconnect to a random live
//! node and resume (or spectate again).
//!
//! At the end it checks, against the logs: every move a client saw
//! acknowledged is in its log at its seq; every view any seat or spectator
//! was shown is the view the log replays to for that viewer; every game
//! finished; epochs only grew; no viewer was shown two views at one seq
//! (a zombie's stale update). It prints the longest failover pause. Four
//! bot accounts play a Swiss event through the faults on random nodes:
//! it must finish, and its pairings, deals, results and standings must
//! re-check against the logs and its revealed seed.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

// One module a part of the run: the services and nodes, what the clients
// share, the players, the rooms, the accounts' lanes, the epoch watch and
// the faults. The run's knobs are here, below; the test is at the end.
use crate::common;

mod accounts;
mod bus_return;
mod epochs;
mod faults;
mod players;
mod rooms;
mod services;
mod shared;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::live::{check_acked, check_views, get_log};
use common::{event_lane, rated};
use parlor_games::{GameKind, Viewer};
use serde_json::Value;

use accounts::{
    challengers, event_players, rated_players, seekers, EVENT_PLAYERS, RATED, RATED_WHEN_CALM,
};
use epochs::watch_epochs;
use faults::{faults, Guard};
use rooms::{bot_rooms, played_rooms};
use services::start_services;
use shared::{connect, lock, Shared};

/// Nodes in the cluster.
const NODES: usize = 3;
/// Each node's lease (`--lease-ms`): a dead node's rooms are claimed this
/// long after its last renewal.
const LEASE: Duration = Duration::from_millis(1000);
/// Fault cycles when `PARLOR_CHAOS_CYCLES` is not set.
const DEFAULT_CYCLES: usize = 30;
/// Between a node's SIGKILL and its restart (on a new port, as a new
/// node).
const DOWN_FOR: Duration = Duration::from_secs(1);
/// Every this many cycles the node is paused (SIGSTOP, for twice the
/// lease, then SIGCONT) instead of killed: the zombie case.
const STOP_EVERY: usize = 5;
/// Quiet time after each cycle's fault, so that play resumes in between.
const REST: Duration = Duration::from_millis(1500);
/// How long Redis and PostgreSQL stay down when they are restarted.
const SERVICE_DOWN_FOR: Duration = Duration::from_secs(1);
/// Nimrod's piles: a player takes one rod a move, so a game lasts
/// 1,600 moves, across most of the faults.
const PILES: [u64; 2] = [800, 800];
/// Rooms with two players (and spectators) per game, played again and
/// again until the faults are over.
const PLAYED: [(GameKind, usize); 4] = [
    (GameKind::Nimrod, 3),
    (GameKind::Rummikub, 2),
    (GameKind::Cribbage, 2),
    (GameKind::Mitsudomoe, 2),
];
/// Pairs of seekers, and of challenger and challenged, finding each
/// other over and over across the faults.
const SEEKER_LANES: u64 = 2;
/// Rooms of built-in bots only (nobody connected), per game, made again
/// and again until the faults are over.
const BOTS_ONLY: [(GameKind, &str, usize); 3] = [
    (GameKind::Rummikub, "greedy", 1),
    (GameKind::Cribbage, "random", 1),
    (GameKind::Mitsudomoe, "greedy", 1),
];
/// A player thinks this long (ms, at random) before each move while the
/// faults go on, so that games span them.
const THINK_MS: std::ops::Range<u64> = 20..60;
/// A client that hears nothing this long while its game is on reports a
/// hang (and reconnects, to let the run end): no fault here lasts
/// anywhere near as long.
const SILENCE: Duration = Duration::from_secs(20);
/// How long the games may take to finish once the faults are over.
const WIND_DOWN: Duration = Duration::from_secs(180);
/// How often the epochs of every match are read.
const EPOCH_EVERY: Duration = Duration::from_millis(250);

// ---------------------------------------------------------------- the test

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "three nodes, Redis and PostgreSQL under faults for minutes: run on purpose"]
async fn a_cluster_under_faults_loses_no_move_and_shows_no_false_view() {
    let cycles: usize = std::env::var("PARLOR_CHAOS_CYCLES")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(DEFAULT_CYCLES);
    let dir = tempfile::tempdir().unwrap();
    let Some(services) = start_services(dir.path()) else {
        return;
    };
    let pg_url = services.pg.url();
    let sh = Arc::new(Shared {
        services: Mutex::new(Some(services)),
        rooms: Mutex::default(),
        faults: Mutex::default(),
        calm: AtomicBool::new(false),
        problems: Mutex::default(),
        unstarted: Mutex::new(0),
        reconnects: Mutex::default(),
        epochs: Mutex::default(),
        finding: Mutex::default(),
        rated_rooms: Mutex::default(),
        event: Mutex::default(),
        trails: Mutex::default(),
    });
    let guard = Guard(sh.clone());
    let t0 = Instant::now();

    let epochs_stop = Arc::new(AtomicBool::new(false));
    let epochs = tokio::spawn(watch_epochs(sh.clone(), pg_url, epochs_stop.clone()));
    let mut load = Vec::new();
    for (game, rooms) in PLAYED {
        for _ in 0..rooms {
            load.push(tokio::spawn(played_rooms(sh.clone(), game)));
        }
    }
    for (game, strategy, rooms) in BOTS_ONLY {
        for _ in 0..rooms {
            load.push(tokio::spawn(bot_rooms(sh.clone(), game, strategy)));
        }
    }
    for lane in 0..SEEKER_LANES {
        load.push(tokio::spawn(seekers(sh.clone(), lane)));
        load.push(tokio::spawn(challengers(sh.clone(), lane)));
    }
    load.push(tokio::spawn(rated_players(sh.clone())));
    load.push(tokio::spawn(event_players(sh.clone())));
    // Let play begin before the first fault.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let chaos = {
        let sh = sh.clone();
        std::thread::spawn(move || faults(&sh, cycles))
    };
    let tally = tokio::task::spawn_blocking(move || chaos.join().unwrap())
        .await
        .unwrap();
    sh.calm.store(true, Ordering::SeqCst);
    let chaos_secs = t0.elapsed().as_secs();
    eprintln!("chaos: faults over after {chaos_secs} s ({tally:?}); games finish");
    let wound_down = tokio::time::timeout(WIND_DOWN, futures_util::future::join_all(load)).await;
    epochs_stop.store(true, Ordering::SeqCst);
    epochs.await.unwrap();
    let problems = lock(&sh.problems).clone();
    assert!(
        wound_down.is_ok(),
        "the games did not all finish within {WIND_DOWN:?} after the faults; problems: {problems:#?}"
    );
    for r in wound_down.unwrap() {
        r.unwrap();
    }

    // Read every log.
    let ids: Vec<String> = lock(&sh.rooms).keys().cloned().collect();
    let (mut ws, _, _) = connect(&sh).await;
    for id in &ids {
        let log = get_log(&mut ws, id).await.unwrap();
        lock(&sh.rooms).get_mut(id).unwrap().log = log;
    }
    drop(ws);
    // Every finished rated match has one ledger line, no other has one,
    // and the ledger folds to the ratings the players' pages show.
    let (_, url) = sh.pick().expect("a live node");
    let http = url
        .trim_start_matches("ws://")
        .trim_end_matches('/')
        .to_owned();
    let rated_rooms = lock(&sh.rated_rooms).clone();
    let (rated_finished, ledger_lines) =
        rated::check_ledger(&url, &http, &rated_rooms, &RATED).await;
    eprintln!(
        "chaos: {} rated matches begun, {rated_finished} finished, {ledger_lines} ledger lines, one for each",
        rated_rooms.len()
    );
    // The Swiss event finished, and re-checks from its logs and seed.
    let event = lock(&sh.event).clone();
    if lock(&sh.problems).is_empty() {
        let event = event.expect("the event was made");
        let games = event_lane::check_event(&url, &http, &event).await;
        eprintln!(
            "chaos: a Swiss event of {} players finished through the faults: {games} games, re-checked from the logs and its seed",
            EVENT_PLAYERS.len()
        );
    }
    drop(guard);

    // Checks.
    let rooms = lock(&sh.rooms);
    let mut acked = 0;
    let mut views = 0;
    let mut games = 0;
    let mut bots_only = 0;
    let mut steps = 0;
    for (id, r) in rooms.iter() {
        let log = r
            .log
            .as_ref()
            .unwrap_or_else(|| panic!("room {id} ({:?}) did not finish", r.game));
        assert!(log.outcome.is_some(), "room {id} closed without an outcome");
        games += 1;
        bots_only += usize::from(r.bots_only);
        steps += log.moves.len();
        acked += check_acked(id, log, &r.acked);
        // No viewer was shown two views at one seq.
        let mut shown: HashMap<(u64, String), (&Value, &str)> = HashMap::new();
        for (seq, viewer, view, node) in &r.seen {
            let key = (*seq, format!("{viewer:?}"));
            if let Some((other, other_node)) = shown.insert(key, (view, node)) {
                assert_eq!(
                    other, view,
                    "room {id} seq {seq}: {viewer:?} was shown two views ({other_node} and {node})"
                );
            }
        }
        let seen: Vec<(u64, Viewer, Value)> = r
            .seen
            .iter()
            .map(|(seq, viewer, view, _)| (*seq, *viewer, view.clone()))
            .collect();
        views += check_views(id, log, &seen);
    }
    // Epochs only grew.
    let epochs = lock(&sh.epochs);
    let mut takeovers = 0;
    for (room, seen) in epochs.iter() {
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "room {room}: its epoch went {seen:?}"
        );
        takeovers += seen.len().saturating_sub(1);
    }
    // The longest pause in a room's play across a fault.
    let faults = lock(&sh.faults).clone();
    let mut pause = Duration::ZERO;
    let mut pause_room = String::new();
    for (id, r) in rooms.iter() {
        let times: Vec<Instant> = r.times.values().copied().collect();
        for w in times.windows(2) {
            let (a, b) = (w[0], w[1]);
            if faults.iter().any(|f| a <= *f && *f <= b) && b - a > pause {
                pause = b - a;
                pause_room.clone_from(id);
            }
        }
    }
    eprintln!(
        "chaos: {games} games ({bots_only} of bots alone, {} never started because a fault hit their setting up), {steps} steps; {takeovers} epoch changes seen; reconnections: {:?}; longest pause in room {pause_room}",
        *lock(&sh.unstarted),
        lock(&sh.reconnects)
    );
    let finding = lock(&sh.finding).clone();
    let matched = finding.get("seek Matched").copied().unwrap_or(0);
    let accepted = finding.get("challenge Matched").copied().unwrap_or(0);
    eprintln!("chaos: finding opponents: {finding:?}");
    assert!(
        matched > 0 && accepted > 0,
        "seekers and challengers must meet across the faults: {finding:?}"
    );
    let mut restarted = Vec::new();
    if tally.redis {
        restarted.push("Redis");
    }
    if tally.postgres {
        restarted.push("PostgreSQL");
    }
    let restarted = if restarted.is_empty() {
        String::new()
    } else {
        format!(", {} restarted", restarted.join(" and "))
    };
    println!(
        "{} kills, {} stops{restarted}: {acked} acknowledged moves all in the log, {views} views replayed identically, all {games} games finished, longest failover pause {} ms; {matched} seeker pairs and {accepted} challenges met, none hung",
        tally.kills,
        tally.stops,
        pause.as_millis()
    );
    assert!(problems.is_empty(), "clients met problems: {problems:#?}");
    assert!(
        rated_finished >= RATED_WHEN_CALM,
        "rated matches must finish"
    );
}
