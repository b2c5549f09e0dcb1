//! Chaos in a cluster, run on purpose:
//! `cargo test -p parlor-server --test chaos -- --ignored --nocapture`
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

mod common;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::live::{check_acked, check_views, get_log, hello, recv_within, send, start_server, Ws};
use common::seekers;
use common::{event_lane, rated};
use parlor_games::rng::GameRng;
use parlor_games::{GameKind, Seat, Viewer};
use parlor_protocol::{ErrorCode, MatchLog, RoomStatus, ServerMsg, Update};
use parlor_server::testing::missing_service;
use rand::seq::SliceRandom;
use rand::Rng;
use serde_json::{json, Value};
use uuid::Uuid;

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

/// Where node `i` logs: `PARLOR_CHAOS_LOGS/node{i}.log` if that is set
/// (with `RUST_LOG`, e.g. `info`), else the test's stderr.
fn node_log(i: usize) -> Option<PathBuf> {
    let dir = std::env::var_os("PARLOR_CHAOS_LOGS")?;
    Some(PathBuf::from(dir).join(format!("node{i}.log")))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

// ---------------------------------------------------------------- services

/// The directory holding PostgreSQL's programs (Debian's
/// `/usr/lib/postgresql/VERSION/bin`, the newest), if any.
fn postgres_bin() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, b)| b)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A private PostgreSQL cluster in a directory of its own.
struct Postgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

impl Postgres {
    fn tool(&self, name: &str) -> Command {
        let exe = self.bin.join(name);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        }
    }

    /// Makes the cluster in `dir` (owned by the `postgres` user when run
    /// as root: PostgreSQL refuses to run as root).
    fn init(bin: PathBuf, dir: PathBuf) -> Result<Postgres, String> {
        let as_postgres = is_root();
        if as_postgres {
            let id = |flag: &str| -> Result<u32, String> {
                let out = Command::new("id")
                    .args([flag, "postgres"])
                    .output()
                    .map_err(|e| e.to_string())?;
                String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .map_err(|_| "no postgres user to run PostgreSQL as".to_string())
            };
            std::os::unix::fs::chown(&dir, Some(id("-u")?), Some(id("-g")?))
                .map_err(|e| e.to_string())?;
        }
        let pg = Postgres {
            bin,
            dir,
            port: free_port(),
            as_postgres,
        };
        let out = pg
            .tool("initdb")
            .arg("-D")
            .arg(pg.dir.join("data"))
            .args(["-A", "trust", "-U", "parlor", "-E", "UTF8", "--no-sync"])
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        pg.start()?;
        Ok(pg)
    }

    /// Starts the server (fsync on: a stop `immediate` is then a crash it
    /// recovers from honestly).
    fn start(&self) -> Result<(), String> {
        let out = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("postgres.log"))
            .arg("-w")
            .arg("-o")
            .arg(format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=200",
                self.port,
                self.dir.display()
            ))
            .arg("start")
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "pg_ctl start failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    }

    /// Stops the server at once, as a crash would.
    fn stop_immediate(&self) {
        let _ = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    fn url(&self) -> String {
        format!("postgres://parlor@127.0.0.1:{}/postgres", self.port)
    }
}

/// A private `redis-server`, a child of this test.
struct Redis {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl Redis {
    fn start(&mut self) -> Result<(), String> {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run redis-server: {e}"))?;
        self.child = Some(child);
        let t0 = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if t0.elapsed() > Duration::from_secs(10) {
                return Err("redis-server did not listen".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

/// One node of the cluster.
#[derive(Default)]
struct Node {
    child: Option<Child>,
    url: Option<String>,
    stopped: bool,
    /// How many times it was started.
    generation: usize,
}

/// Everything the test started; dropping it (also on a panic) kills the
/// nodes and stops the services.
struct Services {
    nodes: Vec<Node>,
    redis: Redis,
    pg: Postgres,
    bin: PathBuf,
    args: Vec<OsString>,
    dir: PathBuf,
}

impl Services {
    fn start_node(&mut self, i: usize) {
        let port_file = self.dir.join(format!("node{i}.addr"));
        let (child, url) = start_server(&self.bin, &self.args, &port_file, node_log(i).as_deref());
        let n = &mut self.nodes[i];
        n.child = Some(child);
        n.url = Some(url);
        n.stopped = false;
        n.generation += 1;
    }

    fn signal(&self, i: usize, sig: &str) {
        if let Some(c) = &self.nodes[i].child {
            let ok = Command::new("kill")
                .args([sig, &c.id().to_string()])
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "kill {sig} failed");
        }
    }

    fn kill_node(&mut self, i: usize) {
        let n = &mut self.nodes[i];
        n.url = None;
        if let Some(mut c) = n.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The URLs of the nodes a client may connect to now (a paused node
    /// is left out, as a load balancer's health check would).
    fn live(&self) -> Vec<(usize, String)> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.stopped)
            .filter_map(|(i, n)| n.url.clone().map(|u| (i, u)))
            .collect()
    }
}

impl Drop for Services {
    fn drop(&mut self) {
        for i in 0..self.nodes.len() {
            if self.nodes[i].stopped {
                self.signal(i, "-CONT");
            }
            self.kill_node(i);
        }
        self.redis.kill();
        self.pg.stop_immediate();
    }
}

/// Starts the services and the nodes; `None` (after [`missing_service`])
/// if Redis or PostgreSQL is not installed.
fn start_services(dir: &Path) -> Option<Services> {
    let Some(bin) = postgres_bin() else {
        missing_service(
            "PostgreSQL",
            "no /usr/lib/postgresql/*/bin/initdb (Debian's postgresql package)",
        );
        return None;
    };
    if Command::new("redis-server")
        .arg("--version")
        .output()
        .is_err()
    {
        missing_service("Redis", "no redis-server on the PATH");
        return None;
    }
    let pg_dir = dir.join("pg");
    std::fs::create_dir(&pg_dir).unwrap();
    let pg = match Postgres::init(bin, pg_dir) {
        Ok(pg) => pg,
        Err(why) => {
            missing_service("PostgreSQL", &why);
            return None;
        }
    };
    let redis_dir = dir.join("redis");
    std::fs::create_dir(&redis_dir).unwrap();
    let mut redis = Redis {
        port: free_port(),
        dir: redis_dir,
        child: None,
    };
    if let Err(why) = redis.start() {
        pg.stop_immediate();
        missing_service("Redis", &why);
        return None;
    }
    let args: Vec<OsString> = vec![
        "--cluster".into(),
        pg.url().into(),
        "--bus".into(),
        redis.url().into(),
        "--lease-ms".into(),
        LEASE.as_millis().to_string().into(),
        // Every client comes from 127.0.0.1, as behind a proxy.
        "--connects-per-address".into(),
        "0".into(),
        "--rooms-per-address".into(),
        "0".into(),
    ];
    let mut s = Services {
        nodes: (0..NODES).map(|_| Node::default()).collect(),
        redis,
        pg,
        bin: PathBuf::from(env!("CARGO_BIN_EXE_parlor-server")),
        args,
        dir: dir.to_path_buf(),
    };
    for i in 0..NODES {
        s.start_node(i);
    }
    Some(s)
}

// ---------------------------------------------------------------- records

/// What the clients of one room saw.
#[derive(Default)]
struct RoomRecord {
    game: Option<GameKind>,
    bots_only: bool,
    /// (seq, seat, move) of every move whose next update the mover saw.
    acked: Vec<(u64, u8, Value)>,
    /// (seq, viewer, view, node) of every update shown.
    seen: Vec<(u64, Viewer, Value, String)>,
    /// When each update with a new seq was first seen.
    times: BTreeMap<u64, Instant>,
    /// Its log, once read.
    log: Option<MatchLog>,
}

/// What the test shares between its clients and its fault thread.
struct Shared {
    services: Mutex<Option<Services>>,
    rooms: Mutex<HashMap<String, RoomRecord>>,
    /// When each fault happened.
    faults: Mutex<Vec<Instant>>,
    /// Set once the faults are over: no new rooms, no more thinking.
    calm: AtomicBool,
    /// Hangs and refusals a client did not expect.
    problems: Mutex<Vec<String>>,
    /// Rooms whose setting up a fault broke (never started).
    unstarted: Mutex<usize>,
    /// Reconnections, by why.
    reconnects: Mutex<BTreeMap<String, usize>>,
    /// (room, epoch) as read over time.
    epochs: Mutex<HashMap<String, Vec<i64>>>,
    /// How seekers' and challengers' attempts ended, by kind.
    finding: Mutex<BTreeMap<String, usize>>,
    /// Rooms rated matches were played in.
    rated_rooms: Mutex<Vec<String>>,
    /// The Swiss event's id, once made.
    event: Mutex<Option<String>>,
}

impl Shared {
    /// A random live node: its name (index and generation) and URL.
    fn pick(&self) -> Option<(String, String)> {
        let s = lock(&self.services);
        let s = s.as_ref()?;
        let live = s.live();
        let (i, url) = live.choose(&mut rand::thread_rng())?.clone();
        Some((format!("n{i}.{}", s.nodes[i].generation), url))
    }

    fn problem(&self, p: String) {
        eprintln!("chaos: {p}");
        lock(&self.problems).push(p);
    }

    fn reconnect(&self, why: &str) {
        *lock(&self.reconnects).entry(why.to_owned()).or_default() += 1;
    }

    fn calm(&self) -> bool {
        self.calm.load(Ordering::SeqCst)
    }

    fn record_update(&self, u: &Update, viewer: Viewer, node: &str) {
        if u.status == RoomStatus::Waiting {
            return;
        }
        let mut rooms = lock(&self.rooms);
        let r = rooms.entry(u.room.to_string()).or_default();
        r.seen
            .push((u.seq, viewer, u.view.clone(), node.to_owned()));
        r.times.entry(u.seq).or_insert_with(Instant::now);
    }
}

/// Connects to a random live node (waiting while none is up).
async fn connect(sh: &Shared) -> (Ws, Uuid, String) {
    loop {
        if let Some((node, url)) = sh.pick() {
            match hello(&url).await {
                Ok((ws, token)) => return (ws, token, node),
                Err(_) => sh.reconnect("connect failed"),
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Why a client's connection ended, from its receive error: 1012 (the
/// bus was lost, or a stalled node's frames came late) or any other close.
fn closed_why(e: &str) -> String {
    if e.contains("1012") {
        "closed 1012".into()
    } else {
        "closed".into()
    }
}

/// What a client does about an error about its room: carry on, retry the
/// move, or reconnect.
enum Next {
    Ignore,
    Retry,
    Reconnect(String),
}

fn on_error(code: ErrorCode) -> Next {
    match code {
        ErrorCode::ActionStaleSeq | ErrorCode::ActionNotYourTurn => Next::Ignore,
        ErrorCode::ServerStorage | ErrorCode::ServerBusy => Next::Retry,
        ErrorCode::RoomMoved
        | ErrorCode::ServerUnreachable
        | ErrorCode::SessionTakenOver
        | ErrorCode::ActionNotYourSeat
        | ErrorCode::ServerShuttingDown => Next::Reconnect(code.to_string()),
        other => Next::Reconnect(format!("unexpected {other}")),
    }
}

/// The move `seat` plays in `u`.
fn choose(game: GameKind, seat: Seat, u: &Update, rng: &mut GameRng) -> Value {
    if game == GameKind::Nimrod {
        // One rod at a time: long games.
        let piles: Vec<u64> = serde_json::from_value(u.view["piles"].clone()).unwrap();
        return if piles[1] > 0 {
            json!({"take": [0, 1]})
        } else {
            json!({"take": [1, 0]})
        };
    }
    let strategy = match game {
        GameKind::Cribbage => "random",
        _ => "greedy",
    };
    let mut bot = game.bot(strategy).unwrap();
    let view = game.parse_view(&u.view).unwrap();
    let mv = bot.choose(seat, &view, rng).unwrap();
    serde_json::to_value(&mv).unwrap()
}

/// A player's session: joins `seat` of `room`, then plays to the end,
/// reconnecting and resuming through every fault.
async fn player(sh: Arc<Shared>, room: String, game: GameKind, seat: u8) {
    let mut held: Option<Uuid> = None;
    // A token whose join was sent but not answered.
    // Tokens whose join was sent but not answered (the connection broke):
    // one of them may hold the seat, which a resume with it tells.
    let mut tried: Vec<Uuid> = Vec::new();
    let mut next_try = 0;
    let mut seat_taken = 0;
    // The move sent and the seq it answered, until its update is seen.
    let mut answered: Option<(u64, Value)> = None;
    // The move chosen for a seq.
    let mut decided: Option<(u64, Value)> = None;
    // The highest seq shown: a lower one later is a stale update.
    let mut highest = 0;
    let mut rng = GameRng::from_seed(rand::random());
    let viewer = Viewer::Seat(Seat(seat));
    // What this player did and heard lately, told with a hang.
    let mut trail: Vec<String> = Vec::new();
    let note = |trail: &mut Vec<String>, what: String| {
        if trail.len() >= 16 {
            trail.remove(0);
        }
        trail.push(what);
    };
    // When this player last saw the match move on: reconnecting over and
    // over without that is a hang too.
    let mut progress = Instant::now();
    loop {
        if progress.elapsed() > SILENCE {
            sh.problem(format!(
                "room {room} seat {seat}: no new position for {SILENCE:?} across reconnections (lately: {})",
                trail.join(", ")
            ));
            progress = Instant::now();
        }
        let (mut ws, token, node) = connect(&sh).await;
        note(&mut trail, format!("connected to {node}"));
        // Take the seat back, or find which token took it.
        let resume_with = held.or_else(|| tried.get(next_try % tried.len().max(1)).copied());
        let mut seated = false;
        if let Some(t) = resume_with {
            if send(&mut ws, json!({"type": "resume", "token": t}))
                .await
                .is_err()
            {
                continue;
            }
            match await_resumed(&mut ws, &room).await {
                Ok(Some(true)) => {
                    held = Some(t);
                    tried.clear();
                    seated = true;
                }
                Ok(Some(false)) => {
                    if held.is_some() {
                        // Our seat's room is not among the token's: the
                        // match is over and its room closed.
                        if finished_log(&mut ws, &room).await {
                            return;
                        }
                        sh.problem(format!(
                            "room {room} seat {seat}: resume lost the seat, the match is not over"
                        ));
                        return;
                    }
                    next_try += 1;
                    if next_try < tried.len() {
                        continue;
                    }
                    // None holds it (yet): join with this connection's.
                }
                Ok(None) => continue,
                Err(e) => {
                    if e == "timeout" {
                        sh.problem(format!(
                            "room {room} seat {seat}: resume unanswered for {SILENCE:?} on {node}"
                        ));
                    }
                    continue;
                }
            }
        }
        if !seated {
            next_try = 0;
            tried.push(token);
            if send(&mut ws, json!({"type": "join", "room": room, "seat": seat}))
                .await
                .is_err()
            {
                continue;
            }
            match await_joined(&mut ws, &room).await {
                Ok(Joined::Yes) => {
                    held = Some(token);
                    tried.clear();
                }
                Ok(Joined::Taken) => {
                    // An earlier join went through after all: find it.
                    tried.pop();
                    seat_taken += 1;
                    if seat_taken > 100 || tried.is_empty() {
                        sh.problem(format!(
                            "room {room} seat {seat}: taken, by none of this player's tokens"
                        ));
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
                Ok(Joined::Refused(why)) => {
                    sh.problem(format!("room {room} seat {seat}: join refused: {why}"));
                    return;
                }
                Err(e) => {
                    if e == "timeout" {
                        sh.problem(format!(
                            "room {room} seat {seat}: join unanswered for {SILENCE:?} on {node}"
                        ));
                    }
                    continue;
                }
            }
        }
        // Play. The first update is the room's position now: if it is
        // the one a move was sent for, that move was lost with the
        // connection (it is not acknowledged) and is chosen again.
        let mut last: Option<Update> = None;
        let mut first_update = true;
        // Other messages (presence) do not count: only updates do.
        let mut quiet_since = Instant::now();
        let why = loop {
            let wait = SILENCE.saturating_sub(quiet_since.elapsed());
            let msg = match recv_within(&mut ws, wait.max(Duration::from_millis(1))).await {
                Ok(m) => m,
                Err(e) if e == "timeout" => {
                    sh.problem(format!(
                        "room {room} seat {seat}: nothing heard for {SILENCE:?} on {node} at seq {:?} (lately: {})",
                        last.as_ref().map(|u| u.seq),
                        trail.join(", ")
                    ));
                    break "silence".to_string();
                }
                Err(e) => break closed_why(&e),
            };
            match msg {
                ServerMsg::Update(u) if u.room.as_str() == room => {
                    if u.status == RoomStatus::Waiting {
                        continue;
                    }
                    sh.record_update(&u, viewer, &node);
                    quiet_since = Instant::now();
                    note(
                        &mut trail,
                        format!("update {} to act {:?}", u.seq, u.to_act),
                    );
                    if u.seq < highest {
                        sh.problem(format!(
                            "room {room} seat {seat}: shown seq {} on {node} after seq {highest} (lately: {})",
                            u.seq,
                            trail.join(", ")
                        ));
                    }
                    if u.seq > highest {
                        progress = Instant::now();
                    }
                    highest = highest.max(u.seq);
                    if first_update && answered.as_ref().is_some_and(|(s, _)| *s == u.seq) {
                        answered = None;
                    }
                    first_update = false;
                    if let Some((s, mv)) = &answered {
                        if u.seq > *s {
                            let mut rooms = lock(&sh.rooms);
                            let r = rooms.entry(room.clone()).or_default();
                            r.acked.push((*s, seat, mv.clone()));
                            answered = None;
                        }
                    }
                    if u.outcome.is_some() || u.status == RoomStatus::Finished {
                        return;
                    }
                    if act(
                        &sh,
                        &mut ws,
                        &room,
                        game,
                        seat,
                        &u,
                        &mut answered,
                        &mut decided,
                        &mut rng,
                    )
                    .await
                    .is_err()
                    {
                        break "closed".into();
                    }
                    if let Some((s, _)) = &answered {
                        note(&mut trail, format!("played at {s}"));
                    }
                    last = Some(u);
                }
                ServerMsg::Error {
                    code,
                    room: Some(r),
                    ..
                } if r.as_str() == room => {
                    note(&mut trail, format!("error {code}"));
                    match on_error(code) {
                        Next::Ignore => {}
                        Next::Retry => {
                            answered = None;
                            tokio::time::sleep(Duration::from_millis(200)).await;
                            if let Some(u) = &last {
                                if act(
                                    &sh,
                                    &mut ws,
                                    &room,
                                    game,
                                    seat,
                                    u,
                                    &mut answered,
                                    &mut decided,
                                    &mut rng,
                                )
                                .await
                                .is_err()
                                {
                                    break "closed".into();
                                }
                            }
                        }
                        Next::Reconnect(why) => break why,
                    }
                }
                ServerMsg::Error { code, .. } => {
                    note(&mut trail, format!("error {code} (no room)"));
                    if let Next::Reconnect(why) = on_error(code) {
                        break why;
                    }
                }
                ServerMsg::Presence {
                    seat: who,
                    connected,
                    ..
                } => note(&mut trail, format!("presence {} {connected}", who.0)),
                _ => {}
            }
        };
        sh.reconnect(&why);
    }
}

/// Plays for `seat` if it is to act in `u` (and the lowest seat to act:
/// seats that act at once take turns, so that the update after a move
/// is that move's) and has not answered this seq yet.
#[allow(clippy::too_many_arguments)]
async fn act(
    sh: &Shared,
    ws: &mut Ws,
    room: &str,
    game: GameKind,
    seat: u8,
    u: &Update,
    answered: &mut Option<(u64, Value)>,
    decided: &mut Option<(u64, Value)>,
    rng: &mut GameRng,
) -> Result<(), String> {
    if u.to_act.iter().next() != Some(Seat(seat)) || u.status != RoomStatus::Playing {
        return Ok(());
    }
    if answered.as_ref().is_some_and(|(s, _)| *s == u.seq) {
        return Ok(());
    }
    if !sh.calm() {
        let ms = rand::thread_rng().gen_range(THINK_MS);
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    // A move sent again (its answer was lost, or it was refused
    // `server/storage`) is the same move: whichever attempt the room took,
    // the update after it is this move's.
    let mv = match decided {
        Some((s, mv)) if *s == u.seq => mv.clone(),
        _ => {
            let mv = choose(game, Seat(seat), u, rng);
            *decided = Some((u.seq, mv.clone()));
            mv
        }
    };
    *answered = Some((u.seq, mv.clone()));
    send(
        ws,
        json!({"type": "play", "room": room, "seat": seat, "seq": u.seq, "move": mv}),
    )
    .await
}

/// After a `resume`: `Some(true)` if the token holds a seat in `room`,
/// `Some(false)` if not (or the token holds nothing), `None` on a refusal
/// worth retrying.
async fn await_resumed(ws: &mut Ws, room: &str) -> Result<Option<bool>, String> {
    loop {
        match recv_within(ws, SILENCE).await? {
            ServerMsg::Resumed { seats, .. } => {
                return Ok(Some(seats.iter().any(|s| s.room.as_str() == room)))
            }
            ServerMsg::Error {
                code: ErrorCode::SessionUnknownToken,
                ..
            } => return Ok(Some(false)),
            ServerMsg::Error { .. } => return Ok(None),
            _ => {}
        }
    }
}

/// What became of a `join`.
enum Joined {
    Yes,
    /// `room/seat_taken`.
    Taken,
    /// Refused for another reason.
    Refused(String),
}

/// After a `join`: what became of it; `Err` to try again.
async fn await_joined(ws: &mut Ws, room: &str) -> Result<Joined, String> {
    loop {
        match recv_within(ws, SILENCE).await? {
            ServerMsg::Joined { room: r, .. } if r.as_str() == room => return Ok(Joined::Yes),
            ServerMsg::Error {
                code: ErrorCode::RoomSeatTaken,
                ..
            } => return Ok(Joined::Taken),
            ServerMsg::Error { code, message, .. } => {
                return match on_error(code) {
                    Next::Reconnect(why) if why.starts_with("unexpected") => {
                        Ok(Joined::Refused(format!("{code}: {message}")))
                    }
                    _ => Err(code.to_string()),
                }
            }
            _ => {}
        }
    }
}

/// Whether `room`'s match is over, by its log.
async fn finished_log(ws: &mut Ws, room: &str) -> bool {
    matches!(get_log(ws, room).await, Ok(Some(l)) if l.outcome.is_some())
}

/// A spectator of `room`, until its match is over.
async fn spectator(sh: Arc<Shared>, room: String) {
    // The highest seq shown: a lower one later is a stale update.
    let mut highest = 0;
    loop {
        let (mut ws, _, node) = connect(&sh).await;
        if send(&mut ws, json!({"type": "spectate", "room": room}))
            .await
            .is_err()
        {
            continue;
        }
        let why = loop {
            let msg = match recv_within(&mut ws, SILENCE).await {
                Ok(m) => m,
                Err(e) if e == "timeout" => {
                    sh.problem(format!(
                        "room {room} spectator: nothing heard for {SILENCE:?} on {node}"
                    ));
                    break "silence".to_string();
                }
                Err(e) => break closed_why(&e),
            };
            match msg {
                ServerMsg::Update(u) if u.room.as_str() == room => {
                    sh.record_update(&u, Viewer::Spectator, &node);
                    if u.seq < highest && u.status != RoomStatus::Waiting {
                        sh.problem(format!(
                            "room {room} spectator: shown seq {} on {node} after seq {highest}",
                            u.seq
                        ));
                    }
                    if u.status != RoomStatus::Waiting {
                        highest = highest.max(u.seq);
                    }
                    if u.outcome.is_some() || u.status == RoomStatus::Finished {
                        return;
                    }
                }
                ServerMsg::Error {
                    code: ErrorCode::RoomNotFound,
                    ..
                } => {
                    // Closed: over, if its log says so.
                    if finished_log(&mut ws, &room).await {
                        return;
                    }
                    break "room/not_found".into();
                }
                ServerMsg::Error { code, .. } => match on_error(code) {
                    Next::Reconnect(why) => break why,
                    Next::Ignore | Next::Retry => {}
                },
                _ => {}
            }
        };
        sh.reconnect(&why);
    }
}

/// Makes a room of `game` from a random node: its id.
async fn create(sh: &Shared, game: GameKind) -> (Ws, String) {
    loop {
        let (mut ws, _, _) = connect(sh).await;
        let options = if game == GameKind::Nimrod {
            json!({"piles": PILES})
        } else {
            Value::Null
        };
        if send(
            &mut ws,
            json!({"type": "create_room", "game": game.name(), "options": options}),
        )
        .await
        .is_err()
        {
            continue;
        }
        loop {
            match recv_within(&mut ws, SILENCE).await {
                Ok(ServerMsg::RoomCreated { room, .. }) => return (ws, room.to_string()),
                Ok(ServerMsg::Error { .. }) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }
}

/// Plays rooms of `game` with two players and spectators, one after
/// another, until the faults are over.
async fn played_rooms(sh: Arc<Shared>, game: GameKind) {
    loop {
        let (_, room) = create(&sh, game).await;
        lock(&sh.rooms).entry(room.clone()).or_default().game = Some(game);
        let mut tasks = Vec::new();
        for seat in 0..2 {
            tasks.push(tokio::spawn(player(sh.clone(), room.clone(), game, seat)));
        }
        let watchers = rand::thread_rng().gen_range(1..=2);
        for _ in 0..watchers {
            tasks.push(tokio::spawn(spectator(sh.clone(), room.clone())));
        }
        for t in tasks {
            t.await.unwrap();
        }
        if sh.calm() {
            return;
        }
    }
}

/// Pairs of players seek each other on random nodes, again and again
/// until the faults are over (each pair asks for piles of its own, so
/// that it pairs only with itself); every attempt must end, not hang.
async fn seekers(sh: Arc<Shared>, lane: u64) {
    let mut attempt = 0u64;
    while !sh.calm() {
        attempt += 1;
        let (Some((_, a)), Some((_, b))) = (sh.pick(), sh.pick()) else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let piles = [lane + 1, 1_000 + attempt];
        match seekers::seek_pair(&a, &b, piles).await {
            Ok(ended) => {
                *lock(&sh.finding)
                    .entry(format!("seek {ended:?}"))
                    .or_default() += 1
            }
            Err(e) => sh.problem(format!("seekers (lane {lane}, attempt {attempt}): {e}")),
        }
    }
}

/// A challenger and the player it names, each with an account, connect
/// to random nodes and play (the challenge accepted) again and again
/// until the faults are over.
async fn challengers(sh: Arc<Shared>, lane: u64) {
    let (from, to) = (format!("chaos-from-{lane}"), format!("chaos-to-{lane}"));
    let mut tokens = None;
    while tokens.is_none() && !sh.calm() {
        let Some((_, url)) = sh.pick() else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let http = url
            .trim_start_matches("ws://")
            .trim_end_matches('/')
            .to_owned();
        // Made once; a fault during the making is met by making them again
        // under the same names (a taken name means they were made).
        let made = async {
            let a = seekers::account_token(&http, &from).await?;
            let b = seekers::account_token(&http, &to).await?;
            Ok::<_, String>((a, b))
        };
        match made.await {
            Ok(t) => tokens = Some(t),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    let Some((ta, tb)) = tokens else { return };
    while !sh.calm() {
        let (Some((_, a)), Some((_, b))) = (sh.pick(), sh.pick()) else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        match seekers::challenge_pair(&a, &b, &ta, &tb, &to).await {
            Ok(seekers::Ended::Offline) => {
                *lock(&sh.finding)
                    .entry("challenge Offline".into())
                    .or_default() += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Ok(ended) => {
                *lock(&sh.finding)
                    .entry(format!("challenge {ended:?}"))
                    .or_default() += 1;
            }
            Err(e) => sh.problem(format!("challengers (lane {lane}): {e}")),
        }
    }
}

/// The accounts that play rated matches through the faults.
const RATED: [&str; 2] = ["chaos-rated-a", "chaos-rated-b"];

/// Rated matches played once the faults are over.
const RATED_WHEN_CALM: usize = 2;

/// Attempts those may take: just after the last fault a node may still be
/// taking rooms over, so one may be cut, but not most.
const RATED_CALM_ATTEMPTS: usize = 6;

/// Two accounts play short rated matches on random nodes again and again
/// until the faults are over (a fault may cut any of them), then a few
/// more; the ledger is checked against every room at the end.
async fn rated_players(sh: Arc<Shared>) {
    let mut tokens = None;
    while tokens.is_none() {
        let Some((_, url)) = sh.pick() else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let http = url
            .trim_start_matches("ws://")
            .trim_end_matches('/')
            .to_owned();
        let made = async {
            let a = seekers::account_token(&http, RATED[0]).await?;
            let b = seekers::account_token(&http, RATED[1]).await?;
            Ok::<_, String>((a, b))
        };
        match made.await {
            Ok(t) => tokens = Some(t),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    let Some((ta, tb)) = tokens else { return };
    let (mut calm_played, mut calm_tries) = (0, 0);
    while calm_played < RATED_WHEN_CALM {
        let calm = sh.calm();
        let (Some((_, a)), Some((_, b))) = (sh.pick(), sh.pick()) else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let mut rooms = Vec::new();
        let played = rated::rated_match(&a, &b, &ta, &tb, RATED[1], &mut rooms).await;
        lock(&sh.rated_rooms).extend(rooms);
        match played {
            Ok(_) => {
                *lock(&sh.finding).entry("rated Played".into()).or_default() += 1;
                calm_played += usize::from(calm);
            }
            Err(_) => *lock(&sh.finding).entry("rated Cut".into()).or_default() += 1,
        }
        calm_tries += usize::from(calm);
        if calm_tries >= RATED_CALM_ATTEMPTS && calm_played < RATED_WHEN_CALM {
            sh.problem(format!(
                "only {calm_played} of {calm_tries} rated matches after the faults finished"
            ));
            return;
        }
    }
}

/// The accounts that play a Swiss event through the faults.
const EVENT_PLAYERS: [&str; 4] = ["chaos-ev-a", "chaos-ev-b", "chaos-ev-c", "chaos-ev-d"];

/// The event's `host:port` of node `url`.
fn http_of(url: &str) -> String {
    url.trim_start_matches("ws://")
        .trim_end_matches('/')
        .to_owned()
}

/// Four bot accounts enter a Swiss event made on a random node and play
/// it on random nodes, reconnecting after every fault, until the faults
/// are over and the event has finished (checked at the end).
async fn event_players(sh: Arc<Shared>) {
    let made = loop {
        let Some((_, url)) = sh.pick() else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        match event_lane::make_event(&http_of(&url), &EVENT_PLAYERS).await {
            Ok(made) => break made,
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    };
    let (tokens, id) = made;
    *lock(&sh.event) = Some(id.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let players: Vec<_> = tokens
        .into_iter()
        .map(|t| {
            let sh = sh.clone();
            tokio::spawn(event_lane::roaming_player(
                move || sh.pick().map(|(_, url)| url),
                t,
                stop.clone(),
            ))
        })
        .collect();
    let finished = loop {
        if sh.calm() {
            let deadline = Instant::now() + event_lane::EVENT_FINISH_WITHIN;
            let mut done = false;
            while !done && Instant::now() < deadline {
                if let Some((_, url)) = sh.pick() {
                    done = event_lane::page(&http_of(&url), &id)
                        .await
                        .is_ok_and(|p| p.status == parlor_protocol::TournamentStatus::Finished);
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            break done;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    stop.store(true, Ordering::Relaxed);
    for p in players {
        let _ = p.await;
    }
    if !finished {
        sh.problem(format!(
            "the Swiss event {id} did not finish within {:?} after the faults",
            event_lane::EVENT_FINISH_WITHIN
        ));
    }
}

/// Makes rooms of `game` played by two built-in bots (`strategy`) and
/// nobody else, one after another, until the faults are over; watches
/// each end by its log.
async fn bot_rooms(sh: Arc<Shared>, game: GameKind, strategy: &'static str) {
    loop {
        let (mut ws, room) = create(&sh, game).await;
        let mut added = 0;
        for seat in 0..2 {
            let sent = send(
                &mut ws,
                json!({"type": "add_bot", "room": room, "seat": seat, "strategy": strategy}),
            )
            .await;
            if sent.is_err() {
                break;
            }
            loop {
                match recv_within(&mut ws, SILENCE).await {
                    Ok(ServerMsg::BotAdded { .. }) => {
                        added += 1;
                        break;
                    }
                    Ok(ServerMsg::Error { .. }) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        }
        drop(ws);
        if added < 2 {
            // A fault broke the setting up; only its creator could finish
            // it, and that connection is gone.
            *lock(&sh.unstarted) += 1;
        } else {
            {
                let mut rooms = lock(&sh.rooms);
                let r = rooms.entry(room.clone()).or_default();
                r.game = Some(game);
                r.bots_only = true;
            }
            // Nobody is connected: ask for its log now and then.
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let (mut ws, _, _) = connect(&sh).await;
                if let Ok(Some(log)) = get_log(&mut ws, &room).await {
                    if log.outcome.is_some() {
                        break;
                    }
                }
            }
        }
        if sh.calm() {
            return;
        }
    }
}

/// Reads every match's epoch now and then, until `stop`.
async fn watch_epochs(sh: Arc<Shared>, url: String, stop: Arc<AtomicBool>) {
    let mut client: Option<tokio_postgres::Client> = None;
    while !stop.load(Ordering::SeqCst) {
        if client
            .as_ref()
            .is_none_or(tokio_postgres::Client::is_closed)
        {
            client = match tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
                Ok((c, conn)) => {
                    tokio::spawn(conn);
                    Some(c)
                }
                Err(_) => None,
            };
        }
        if let Some(c) = &client {
            if let Ok(rows) = c.query("SELECT room, epoch FROM parlor.matches", &[]).await {
                let mut epochs = lock(&sh.epochs);
                for row in rows {
                    let (room, epoch): (String, i64) = (row.get(0), row.get(1));
                    let seen = epochs.entry(room).or_default();
                    if seen.last() != Some(&epoch) {
                        seen.push(epoch);
                    }
                }
            }
        }
        tokio::time::sleep(EPOCH_EVERY).await;
    }
}

// ---------------------------------------------------------------- faults

/// What the faults did, for the summary.
#[derive(Default, Debug)]
struct Tally {
    kills: usize,
    stops: usize,
    redis: bool,
    postgres: bool,
}

/// Runs `cycles` fault cycles on the services (on a thread of its own:
/// it blocks), unless the test is already over.
fn faults(sh: &Shared, cycles: usize) -> Tally {
    let mut tally = Tally::default();
    let mut rng = rand::thread_rng();
    let redis_at = cycles / 3;
    let pg_at = 2 * cycles / 3;
    let fault = |sh: &Shared| lock(&sh.faults).push(Instant::now());
    for cycle in 1..=cycles {
        let i = rng.gen_range(0..NODES);
        if cycle % STOP_EVERY == 0 {
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.signal(i, "-STOP");
                s.nodes[i].stopped = true;
            }
            fault(sh);
            std::thread::sleep(LEASE * 2);
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.signal(i, "-CONT");
                s.nodes[i].stopped = false;
            }
            tally.stops += 1;
        } else {
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.kill_node(i);
            }
            fault(sh);
            std::thread::sleep(DOWN_FOR);
            // Started outside the lock: clients pick nodes meanwhile.
            let (bin, args, dir) = {
                let s = lock(&sh.services);
                let Some(s) = s.as_ref() else { break };
                (s.bin.clone(), s.args.clone(), s.dir.clone())
            };
            let (child, url) = start_server(
                &bin,
                &args,
                &dir.join(format!("node{i}.addr")),
                node_log(i).as_deref(),
            );
            let mut s = lock(&sh.services);
            let Some(s) = s.as_mut() else { break };
            let n = &mut s.nodes[i];
            n.child = Some(child);
            n.url = Some(url);
            n.generation += 1;
            tally.kills += 1;
        }
        std::thread::sleep(REST);
        if cycle == redis_at {
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.redis.kill();
            }
            fault(sh);
            std::thread::sleep(SERVICE_DOWN_FOR);
            {
                let mut s = lock(&sh.services);
                let Some(s) = s.as_mut() else { break };
                s.redis.start().unwrap();
            }
            tally.redis = true;
            std::thread::sleep(REST);
        }
        if cycle == pg_at {
            {
                let s = lock(&sh.services);
                let Some(s) = s.as_ref() else { break };
                s.pg.stop_immediate();
            }
            fault(sh);
            std::thread::sleep(SERVICE_DOWN_FOR);
            {
                let s = lock(&sh.services);
                let Some(s) = s.as_ref() else { break };
                s.pg.start().unwrap();
            }
            tally.postgres = true;
            std::thread::sleep(REST);
        }
        eprintln!("chaos: cycle {cycle}/{cycles} done");
    }
    tally
}

/// Kills the nodes and stops the services when dropped (also when the
/// test panics).
struct Guard(Arc<Shared>);

impl Drop for Guard {
    fn drop(&mut self) {
        drop(lock(&self.0.services).take());
    }
}

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
