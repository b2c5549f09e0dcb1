//! The store under injected faults, as test bodies that take the backend
//! to run on (`store_faults.rs` runs them on SQLite, `store_pg.rs` on
//! Postgres): a move whose commit or append failed is answered with an
//! error and leaves no trace, the same move can then be stored, a room
//! refuses such a move with `server/storage` and keeps its state, and
//! reads held open or queued up do not keep moves from being acknowledged.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parlor_games::{GameKind, Outcome, Seat, SeatSet};
use parlor_protocol::{
    ErrorCode, LogEntry, LoggedAction, MatchHeader, MatchLog, RoomId, ServerMsg,
};
use parlor_server::limits::Limits;
use parlor_server::room::{RoomCmd, RoomRequest};
use parlor_server::store::{Faults, MatchKey, MatchRecord, Origin, Store, StoreError};
use parlor_server::store::{STORE_READERS, STORE_READ_QUEUE};
use serde_json::{json, Value};

use super::backend::{close, Backend};
use super::{directory_on, nimrod_room, seat_all, Player};

/// A safety net for any wait: a store that hangs fails the test instead.
const PATIENCE: Duration = Duration::from_secs(30);

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e:?}"))
}

fn room(id: &str) -> RoomId {
    RoomId::new(id).unwrap_or_else(|| panic!("bad room id {id}"))
}

fn step(seq: u64, take: [u64; 2]) -> LogEntry {
    LogEntry {
        seq,
        seat: Seat((seq % 2) as u8),
        action: LoggedAction::Move(json!({ "take": take })),
    }
}

fn win() -> Outcome {
    Outcome::Win {
        winners: SeatSet::single(Seat(0)),
    }
}

async fn new_match(store: &Store, id: &str) -> MatchKey {
    let record = MatchRecord {
        room: room(id),
        header: MatchHeader {
            game: GameKind::Nimrod,
            options: json!({"piles": [30, 30]}),
            seats: 2,
            seed: Some(7),
            deal: None,
            clock: None,
            rated: false,
            event: None,
            ladder: None,
            matched: None,
        },
        private: false,
        origin: Origin::default(),
    };
    ok(store.create_match(record).await)
}

async fn log_of(store: &Store, id: &str) -> MatchLog {
    ok(store.log(room(id)).await).unwrap_or_else(|| panic!("no log for {id}"))
}

/// The steps of `id` as a restart would restore them; `None` if the match
/// is not among the unfinished ones.
async fn restored(store: &Store, id: &str) -> Option<Vec<LogEntry>> {
    let all = ok(store.unfinished().await);
    all.into_iter()
        .find(|m| m.record.room == room(id))
        .map(|m| m.moves)
}

/// Waits until `n` reads are held at `faults`' hold.
async fn until_reads_held(faults: &Faults, n: usize) {
    let deadline = Instant::now() + PATIENCE;
    while faults.reads_held() < n {
        assert!(Instant::now() < deadline, "reads never reached the hold");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Appends `entry`, failing the test if it is not answered in time.
async fn append_in_time(store: &Store, key: MatchKey, entry: LogEntry) -> Result<(), StoreError> {
    ok(tokio::time::timeout(PATIENCE, store.append(key, entry, None, None)).await)
}

pub async fn a_failed_commit_refuses_the_move_and_the_same_move_is_stored_after(backend: &Backend) {
    let faults = Faults::new();
    let (store, thread) = backend.open_with(&faults).await;
    let key = new_match(&store, "aaaaaaaaaaaa").await;
    ok(store.append(key, step(0, [1, 0]), None, None).await);

    faults.fail_next_commits(1);
    let refused = store.append(key, step(1, [0, 2]), None, None).await;
    assert!(
        matches!(refused, Err(StoreError::Corrupt(_))),
        "{refused:?}"
    );
    assert_eq!(
        restored(&store, "aaaaaaaaaaaa").await,
        Some(vec![step(0, [1, 0])])
    );
    assert_eq!(
        log_of(&store, "aaaaaaaaaaaa").await.moves,
        vec![step(0, [1, 0])]
    );

    // A refused move that would have ended the match does not end it.
    faults.fail_next_commits(1);
    let refused = store.append(key, step(1, [0, 30]), None, Some(win())).await;
    assert!(refused.is_err());
    assert_eq!(log_of(&store, "aaaaaaaaaaaa").await.outcome, None);
    // `/healthz` says so, until a commit succeeds.
    let health = store.health();
    assert!(
        health
            .as_ref()
            .is_err_and(|why| why.contains("commit failed")),
        "{health:?}"
    );

    // The room kept its state, so it offers seq 1 again: it is stored.
    ok(store.append(key, step(1, [0, 3]), None, None).await);
    assert_eq!(store.health(), Ok(()));
    close(store, thread).await;

    // And what is on disk is what was acknowledged, nothing else.
    let (store, thread) = backend.open().await;
    assert_eq!(
        restored(&store, "aaaaaaaaaaaa").await,
        Some(vec![step(0, [1, 0]), step(1, [0, 3])])
    );
    close(store, thread).await;
}

pub async fn a_failed_append_leaves_no_trace_while_its_neighbours_are_stored(backend: &Backend) {
    let faults = Faults::new();
    let (store, thread) = backend.open_with(&faults).await;
    let ids = ["aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"];
    let mut keys = Vec::new();
    for id in ids {
        let key = new_match(&store, id).await;
        ok(store.append(key, step(0, [1, 0]), None, None).await);
        keys.push(key);
    }

    // Sent together, in this order (one poll each): they share a batch
    // unless the writer is between batches, and the first one fails after
    // its statements ran, its outcome included.
    faults.fail_next_appends(1);
    let (a, b, c) = tokio::join!(
        store.append(keys[0], step(1, [0, 30]), None, Some(win())),
        store.append(keys[1], step(1, [0, 2]), None, None),
        store.append(keys[2], step(1, [0, 3]), None, None),
    );
    assert!(matches!(a, Err(StoreError::Injected(_))), "{a:?}");
    ok(b);
    ok(c);
    assert_eq!(restored(&store, ids[0]).await, Some(vec![step(0, [1, 0])]));
    assert_eq!(log_of(&store, ids[0]).await.outcome, None);
    assert_eq!(
        restored(&store, ids[1]).await,
        Some(vec![step(0, [1, 0]), step(1, [0, 2])])
    );
    assert_eq!(
        restored(&store, ids[2]).await,
        Some(vec![step(0, [1, 0]), step(1, [0, 3])])
    );

    // Offered again, the move is stored and ends the match.
    ok(store
        .append(keys[0], step(1, [0, 30]), None, Some(win()))
        .await);
    assert_eq!(restored(&store, ids[0]).await, None);
    let log = log_of(&store, ids[0]).await;
    assert_eq!(log.moves, vec![step(0, [1, 0]), step(1, [0, 30])]);
    assert_eq!(log.outcome, Some(win()));
    close(store, thread).await;
}

pub async fn a_room_refuses_a_move_whose_commit_fails_and_keeps_its_state(backend: &Backend) {
    let faults = Faults::new();
    let (store, _thread) = backend.open_with(&faults).await;
    let lobby = directory_on(store, Limits::default());
    let room = nimrod_room(&lobby, [3, 5], None).await;
    let (mut a, mut b) = (Player::new(&lobby, "a"), Player::new(&lobby, "b"));
    seat_all(&lobby, &room, &[&a, &b]);
    let start = a.update_at(0).await;
    assert_eq!((start.seq, start.to_act), (0, SeatSet::single(Seat(0))));
    let who = a.member.clone();
    let play = |mv: Value| {
        RoomCmd::request(
            who.clone(),
            RoomRequest::Play {
                seat: Seat(0),
                seq: 0,
                mv,
            },
        )
    };

    faults.fail_next_commits(1);
    ok(lobby.route(&room, play(json!({"take": [0, 1]}))));
    let code = loop {
        match a.next().await {
            ServerMsg::Error { code, .. } => break code,
            ServerMsg::Update(u) => assert_eq!(u.seq, 0, "the refused move was played"),
            _ => {}
        }
    };
    assert_eq!(code, ErrorCode::ServerStorage);

    // Still position 0 with the piles untouched: the same seq is played.
    ok(lobby.route(&room, play(json!({"take": [1, 0]}))));
    let after = b.update_at(1).await;
    assert_eq!(after.seq, 1);
    assert_eq!(after.view["piles"], json!([2, 5]));
    let log = ok(lobby.store().log(room).await).unwrap_or_else(|| panic!("no log"));
    assert_eq!(
        log.moves,
        vec![LogEntry {
            seq: 0,
            seat: Seat(0),
            action: LoggedAction::Move(json!({"take": [1, 0]})),
        }]
    );
}

pub async fn reads_held_open_do_not_keep_moves_from_being_acknowledged(backend: &Backend) {
    let faults = Faults::new();
    let (store, thread) = backend.open_with(&faults).await;
    let key = new_match(&store, "aaaaaaaaaaaa").await;
    ok(store.append(key, step(0, [1, 0]), None, None).await);

    // Every reader ends up inside a read transaction it cannot finish.
    let hold = faults.hold_reads();
    let reads: Vec<_> = (0..STORE_READERS)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.log(room("aaaaaaaaaaaa")).await })
        })
        .collect();
    until_reads_held(&faults, STORE_READERS).await;

    for seq in 1..=20 {
        ok(append_in_time(&store, key, step(seq, [0, 1])).await);
    }
    drop(hold);

    // The held reads answer with what they read before the appends: they
    // were in flight all the while the writer committed.
    for r in reads {
        let log = ok(ok(r.await)).unwrap_or_else(|| panic!("no log"));
        assert_eq!(log.moves, vec![step(0, [1, 0])]);
    }
    assert_eq!(log_of(&store, "aaaaaaaaaaaa").await.moves.len(), 21);
    close(store, thread).await;
}

/// Runs `test` on a runtime with a single worker thread, in a thread of
/// its own: if the test blocked that worker, it fails after [`PATIENCE`]
/// instead of hanging.
pub fn on_one_worker(test: impl AsyncFnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = ok(tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build());
        rt.block_on(test());
        // The test thread may have given up already.
        let _ = done.send(());
    });
    match finished.recv_timeout(PATIENCE) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("the worker was blocked"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("the test failed"),
    }
}

/// Run through [`on_one_worker`], with the backend made there.
pub async fn a_full_read_queue_blocks_neither_the_async_worker_nor_moves(backend: Backend) {
    let faults = Faults::new();
    let (store, thread) = backend.open_with(&faults).await;
    let key = new_match(&store, "aaaaaaaaaaaa").await;
    let hold = faults.hold_reads();
    // Held by the readers, queued, and waiting for room in the queue.
    let total = STORE_READERS + STORE_READ_QUEUE + 16;
    let asked = Arc::new(AtomicUsize::new(0));
    let reads: Vec<_> = (0..total)
        .map(|_| {
            let store = store.clone();
            let asked = Arc::clone(&asked);
            tokio::spawn(async move {
                // Counted in the same poll as the read is queued (or
                // handed to a blocking thread when the queue is full).
                asked.fetch_add(1, Ordering::Relaxed);
                store.log(room("aaaaaaaaaaaa")).await
            })
        })
        .collect();
    until_reads_held(&faults, STORE_READERS).await;
    while asked.load(Ordering::Relaxed) < total {
        tokio::task::yield_now().await;
    }
    // Every read has been asked for, so the queue is full.
    for seq in 0..10 {
        ok(append_in_time(&store, key, step(seq, [0, 1])).await);
    }
    drop(hold);
    for r in reads {
        assert!(ok(ok(r.await)).is_some());
    }
    close(store, thread).await;
}
