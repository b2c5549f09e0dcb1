//! What the test shares between its clients and its fault thread: what
//! each room's clients saw, the problems met, the reconnections, and a
//! random live node to connect to.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::services::Services;
use crate::common::live::{hello, Ws};
use parlor_games::{GameKind, Viewer};
use parlor_protocol::{MatchLog, RoomStatus, Update};
use rand::seq::SliceRandom;
use serde_json::Value;
use uuid::Uuid;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What the clients of one room saw.
#[derive(Default)]
pub(crate) struct RoomRecord {
    pub(crate) game: Option<GameKind>,
    pub(crate) bots_only: bool,
    /// (seq, seat, move) of every move whose next update the mover saw.
    pub(crate) acked: Vec<(u64, u8, Value)>,
    /// (seq, viewer, view, node) of every update shown.
    pub(crate) seen: Vec<(u64, Viewer, Value, String)>,
    /// When each update with a new seq was first seen.
    pub(crate) times: BTreeMap<u64, Instant>,
    /// Its log, once read.
    pub(crate) log: Option<MatchLog>,
}

/// What the test shares between its clients and its fault thread.
pub(crate) struct Shared {
    pub(crate) services: Mutex<Option<Services>>,
    pub(crate) rooms: Mutex<HashMap<String, RoomRecord>>,
    /// When each fault happened.
    pub(crate) faults: Mutex<Vec<Instant>>,
    /// Set once the faults are over: no new rooms, no more thinking.
    pub(crate) calm: AtomicBool,
    /// Hangs and refusals a client did not expect.
    pub(crate) problems: Mutex<Vec<String>>,
    /// Rooms whose setting up a fault broke (never started).
    pub(crate) unstarted: Mutex<usize>,
    /// Reconnections, by why.
    pub(crate) reconnects: Mutex<BTreeMap<String, usize>>,
    /// (room, epoch) as read over time.
    pub(crate) epochs: Mutex<HashMap<String, Vec<i64>>>,
    /// How seekers' and challengers' attempts ended, by kind.
    pub(crate) finding: Mutex<BTreeMap<String, usize>>,
    /// Rooms rated matches were played in.
    pub(crate) rated_rooms: Mutex<Vec<String>>,
    /// The Swiss event's id, once made.
    pub(crate) event: Mutex<Option<String>>,
    /// What each seated player did and heard lately, by room and seat:
    /// told with a hang, the other seat's beside the one that hung.
    pub(crate) trails: Mutex<HashMap<(String, u8), String>>,
}

impl Shared {
    /// A random live node: its name (index and generation) and URL.
    pub(crate) fn pick(&self) -> Option<(String, String)> {
        let s = lock(&self.services);
        let s = s.as_ref()?;
        let live = s.live();
        let (i, url) = live.choose(&mut rand::thread_rng())?.clone();
        Some((format!("n{i}.{}", s.nodes[i].generation), url))
    }

    pub(crate) fn problem(&self, p: String) {
        eprintln!("chaos: {p}");
        lock(&self.problems).push(p);
    }

    /// Keeps `trail` as what `room`'s `seat` did and heard lately.
    pub(crate) fn trail(&self, room: &str, seat: u8, trail: &[String]) {
        lock(&self.trails).insert((room.to_owned(), seat), trail.join(", "));
    }

    /// The trails of `room`'s seats other than `seat`, for a hang's report.
    pub(crate) fn other_trails(&self, room: &str, seat: u8) -> String {
        let trails = lock(&self.trails);
        let mut others: Vec<String> = trails
            .iter()
            .filter(|((r, s), _)| r == room && *s != seat)
            .map(|((_, s), t)| format!("seat {s}: {t}"))
            .collect();
        others.sort();
        others.join("; ")
    }

    pub(crate) fn reconnect(&self, why: &str) {
        *lock(&self.reconnects).entry(why.to_owned()).or_default() += 1;
    }

    pub(crate) fn calm(&self) -> bool {
        self.calm.load(Ordering::SeqCst)
    }

    pub(crate) fn record_update(&self, u: &Update, viewer: Viewer, node: &str) {
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
pub(crate) async fn connect(sh: &Shared) -> (Ws, Uuid, String) {
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
