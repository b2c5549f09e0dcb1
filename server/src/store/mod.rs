//! The durable event log: matches, seats and every accepted step, in SQLite.
//!
//! One writer thread owns the connection. Jobs arrive on a channel; the
//! thread takes all that are waiting (up to [`STORE_BATCH`]), runs them in
//! one transaction and only then answers each, so a move is acknowledged
//! only once it is committed, and many rooms share one commit under load.
//! WAL mode with `synchronous=NORMAL`: a commit survives the process being
//! killed at any moment (what the crash tests check); only an OS crash or
//! power loss can lose the last commits. `--sync full` trades speed for that.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use parlor_games::{Outcome, Seat};
use parlor_protocol::{LogEntry, MatchHeader, MatchLog, RoomId};
use rusqlite::Connection;
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::limits::{
    CHECKPOINT_INTERVAL, STORE_BATCH, STORE_GATHER, STORE_GATHER_AFTER, STORE_QUEUE,
    WAL_SIZE_LIMIT_BYTES,
};

mod queries;
mod schema;

use queries::{append, create, log, set_seat, unfinished};

/// Page size of new databases. 2 KiB halves the log written per commit
/// against SQLite's 4 KiB default, while rows of up to ~480 bytes (every
/// move of the hosted games but the largest Rummikub rearrangements) still
/// fit in a page of the `WITHOUT ROWID` tables.
const PAGE_SIZE: i64 = 2048;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored value did not decode.
    #[error("corrupt record in the database: {0}")]
    Corrupt(String),
    /// The writer thread is gone (shutting down).
    #[error("the store is closed")]
    Closed,
}

/// How hard a commit is pushed to disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Sync {
    /// Survives the process dying (WAL, synchronous=NORMAL).
    #[default]
    Normal,
    /// Also survives power loss: fsync on every commit (synchronous=FULL).
    Full,
}

/// Who sits in a seat, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredSeat {
    /// A player, known by their resume token.
    Player {
        /// Resume token.
        token: Uuid,
        /// Display name.
        name: String,
    },
    /// A built-in bot.
    Bot {
        /// Strategy name.
        strategy: String,
    },
}

/// One step as the store files it: the action is already the JSON text
/// of a `LoggedAction` (a room writes it straight from its typed move,
/// which spares building a JSON tree per move only to print it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The position it was played from.
    pub seq: u64,
    /// Who acted.
    pub seat: Seat,
    /// The `LoggedAction`, as JSON.
    pub action: String,
}

impl Step {
    /// The step `seat` took from position `seq`; `action` serialises as a
    /// `LoggedAction`.
    pub fn new(seq: u64, seat: Seat, action: &impl serde::Serialize) -> Result<Step, StoreError> {
        let action = serde_json::to_string(action)
            .map_err(|e| StoreError::Corrupt(format!("a step did not encode: {e}")))?;
        Ok(Step { seq, seat, action })
    }
}

/// A match's number in the store: what its seats and moves are filed
/// under. Numbers grow with every match, which keeps a live match's rows
/// together at the end of the tables (see `schema`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchKey(i64);

/// A match's header as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// The room.
    pub room: RoomId,
    /// Game, options, seats, seed and clock.
    pub header: MatchHeader,
    /// Not listed in the lobby.
    pub private: bool,
}

/// A match restored at start-up.
#[derive(Clone, Debug)]
pub struct StoredMatch {
    /// Its number in the store.
    pub key: MatchKey,
    /// Its header.
    pub record: MatchRecord,
    /// Seats taken, by seat number.
    pub seats: Vec<(Seat, StoredSeat)>,
    /// Every step so far.
    pub moves: Vec<LogEntry>,
    /// Clocks (ms left per seat) after the last step, if the room has a clock.
    pub clocks: Option<Vec<u64>>,
}

type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

enum Job {
    Create(MatchRecord, Reply<MatchKey>),
    Seat(MatchKey, Seat, Option<StoredSeat>, Reply<()>),
    Append {
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
        reply: Reply<()>,
    },
    Unfinished(Reply<Vec<StoredMatch>>),
    Log(RoomId, Reply<Option<MatchLog>>),
}

/// A handle on the store; cheap to clone. The writer thread stops when the
/// last handle is dropped.
#[derive(Clone, Debug)]
pub struct Store {
    tx: std_mpsc::SyncSender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("store job")
    }
}

impl Store {
    /// Opens (or creates) the database at `path` (`None`: in memory, for
    /// tests and throwaway servers) and starts the writer thread.
    pub fn open(path: Option<&Path>, sync: Sync) -> Result<(Store, JoinHandle<()>), StoreError> {
        let mut conn = match path {
            Some(p) => Connection::open(p)?,
            None => Connection::open_in_memory()?,
        };
        // Set before anything is written (a database keeps the page size
        // it was created with): a commit writes whole pages to the log, and
        // a move's row is a few dozen bytes, so smaller pages mean less
        // log to write, checksum, sync and checkpoint per move.
        conn.pragma_update(None, "page_size", PAGE_SIZE)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        let level = match sync {
            Sync::Normal => "NORMAL",
            Sync::Full => "FULL",
        };
        conn.pragma_update(None, "synchronous", level)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // Checkpoints are run by `checkpointer` and the writer together.
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT_BYTES)?;
        schema::prepare(&mut conn)?;
        // In-memory databases have no log to checkpoint: `caught_up` then
        // never rises. The checkpointer stops when the writer does, which
        // drops `alive`.
        let caught_up = Arc::new(AtomicBool::new(false));
        let (alive, stopped) = std_mpsc::channel::<()>();
        if let Some(p) = path {
            let other = Connection::open(p)?;
            let flag = Arc::clone(&caught_up);
            std::thread::Builder::new()
                .name("parlor-checkpoint".into())
                .spawn(move || checkpointer(other, flag, stopped))
                .map_err(|e| {
                    StoreError::Corrupt(format!("cannot start the checkpoint thread: {e}"))
                })?;
        }
        let (tx, rx) = std_mpsc::sync_channel(STORE_QUEUE);
        let name: Option<PathBuf> = path.map(Path::to_path_buf);
        let handle = std::thread::Builder::new()
            .name("parlor-store".into())
            .spawn(move || {
                writer(conn, rx, name, caught_up);
                drop(alive);
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the store thread: {e}")))?;
        Ok((Store { tx }, handle))
    }

    async fn ask<T>(&self, job: impl FnOnce(Reply<T>) -> Job) -> Result<T, StoreError> {
        let (reply, rx) = oneshot::channel();
        let tx = self.tx.clone();
        let job = job(reply);
        // The queue is bounded; when it is full, wait on a blocking thread
        // rather than stall the async worker.
        match tx.try_send(job) {
            Ok(()) => {}
            Err(std_mpsc::TrySendError::Full(job)) => {
                tokio::task::spawn_blocking(move || tx.send(job))
                    .await
                    .map_err(|_| StoreError::Closed)?
                    .map_err(|_| StoreError::Closed)?;
            }
            Err(std_mpsc::TrySendError::Disconnected(_)) => return Err(StoreError::Closed),
        }
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// Records a new match; returns its number, under which its seats and
    /// moves are filed.
    pub async fn create_match(&self, record: MatchRecord) -> Result<MatchKey, StoreError> {
        self.ask(|r| Job::Create(record, r)).await
    }

    /// Records who sits in a seat (`None`: nobody).
    pub async fn set_seat(
        &self,
        key: MatchKey,
        seat: Seat,
        who: Option<StoredSeat>,
    ) -> Result<(), StoreError> {
        self.ask(|r| Job::Seat(key, seat, who, r)).await
    }

    /// Appends one log entry, with the clocks after it and, if it ended
    /// the match, the outcome. Returns once committed.
    pub async fn append(
        &self,
        key: MatchKey,
        entry: LogEntry,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
    ) -> Result<(), StoreError> {
        let step = Step::new(entry.seq, entry.seat, &entry.action)?;
        self.append_step(key, step, clocks, outcome).await
    }

    /// [`Store::append`] for a step whose action is already JSON.
    pub async fn append_step(
        &self,
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
    ) -> Result<(), StoreError> {
        self.ask(|reply| Job::Append {
            key,
            step,
            clocks,
            outcome,
            reply,
        })
        .await
    }

    /// Every match not yet finished, with its seats and steps.
    pub async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        self.ask(Job::Unfinished).await
    }

    /// The log of a finished match; `None` if there is no such room.
    /// `Err(Corrupt)` never hides an unfinished match: callers check the outcome.
    pub async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        self.ask(|r| Job::Log(room, r)).await
    }
}

/// Copies committed WAL frames into the database file.
fn checkpoint(conn: &Connection, mode: &str) {
    if let Err(e) = conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(())) {
        tracing::debug!(error = %e, "checkpoint failed; the next one will retry");
    }
}

/// Checkpoints in two steps, so that neither stalls moves nor lets the
/// log grow. This thread, on its own connection, copies the bulk of the
/// log into the database every [`CHECKPOINT_INTERVAL`] and syncs it
/// (measured: 10 to 20 ms a second at 2,500 moves/s, which on the writer
/// was the whole p99 latency) and then raises `caught_up`. The writer, between
/// batches, then checkpoints the few frames written since: only a
/// checkpoint by the connection that appends lets the log start over from
/// its beginning, and under steady load a checkpoint from elsewhere never
/// sees the writer pause.
fn checkpointer(conn: Connection, caught_up: Arc<AtomicBool>, stopped: std_mpsc::Receiver<()>) {
    while let Err(std_mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_INTERVAL) {
        checkpoint(&conn, "PASSIVE");
        caught_up.store(true, Ordering::Release);
    }
}

/// The writer's half of a checkpoint: once the checkpointer has copied
/// the bulk, copy the frames written since, so the log starts over.
fn finish_checkpoint(conn: &Connection, caught_up: &AtomicBool) {
    if caught_up.swap(false, Ordering::Acquire) {
        checkpoint(conn, "PASSIVE");
    }
}

fn writer(
    conn: Connection,
    rx: std_mpsc::Receiver<Job>,
    path: Option<PathBuf>,
    caught_up: Arc<AtomicBool>,
) {
    let mut last_batch = Instant::now();
    let mut last_len = 0;
    loop {
        let first = match rx.recv_timeout(CHECKPOINT_INTERVAL) {
            Ok(job) => job,
            Err(std_mpsc::RecvTimeoutError::Timeout) => {
                finish_checkpoint(&conn, &caught_up);
                continue;
            }
            Err(std_mpsc::RecvTimeoutError::Disconnected) => break,
        };
        // Jobs are streaming in faster than commits (the last batch held
        // several and ended moments ago): let more arrive before
        // committing. Senders do not wake a writer that sleeps instead of
        // waiting on the queue, and one commit serves many rooms. Jobs that
        // come a few at a time are committed at once.
        if last_len >= STORE_GATHER_AFTER && last_batch.elapsed() < STORE_GATHER {
            std::thread::sleep(STORE_GATHER);
        }
        let mut batch = vec![first];
        while batch.len() < STORE_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        last_len = batch.len();
        run_batch(&conn, batch);
        last_batch = Instant::now();
        finish_checkpoint(&conn, &caught_up);
    }
    if path.is_some() {
        checkpoint(&conn, "TRUNCATE");
    }
    let name = path.unwrap_or_default();
    tracing::debug!(db = %name.display(), "store closed");
}

/// Outcome of one job inside the transaction, answered after the commit.
enum Done {
    Unit(Reply<()>, Result<(), StoreError>),
    Key(Reply<MatchKey>, Result<MatchKey, StoreError>),
    Matches(
        Reply<Vec<StoredMatch>>,
        Result<Vec<StoredMatch>, StoreError>,
    ),
    Log(
        Reply<Option<MatchLog>>,
        Result<Option<MatchLog>, StoreError>,
    ),
}

impl Done {
    /// Sends the job's result, or the commit's failure.
    fn answer(self, commit: &Result<(), String>) {
        fn settle<T>(
            res: Result<T, StoreError>,
            commit: &Result<(), String>,
        ) -> Result<T, StoreError> {
            match commit {
                Ok(()) => res,
                Err(e) => Err(StoreError::Corrupt(format!("commit failed: {e}"))),
            }
        }
        // A caller that stopped waiting has nothing to be told.
        match self {
            Done::Unit(r, res) => drop(r.send(settle(res, commit))),
            Done::Key(r, res) => drop(r.send(settle(res, commit))),
            Done::Matches(r, res) => drop(r.send(settle(res, commit))),
            Done::Log(r, res) => drop(r.send(settle(res, commit))),
        }
    }
}

/// Runs `sql` (BEGIN, COMMIT, ROLLBACK) as a cached statement: compiling
/// them for every batch showed in profiles.
fn control(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

fn run_batch(conn: &Connection, batch: Vec<Job>) {
    if let Err(e) = control(conn, "BEGIN") {
        let msg = e.to_string();
        for job in batch {
            fail(job, &msg);
        }
        return;
    }
    let mut done = Vec::with_capacity(batch.len());
    for job in batch {
        done.push(match job {
            Job::Create(rec, r) => Done::Key(r, create(conn, &rec)),
            Job::Seat(key, seat, who, r) => Done::Unit(r, set_seat(conn, key, seat, who.as_ref())),
            Job::Append {
                key,
                step,
                clocks,
                outcome,
                reply,
            } => Done::Unit(reply, append(conn, key, &step, clocks.as_deref(), outcome)),
            Job::Unfinished(r) => Done::Matches(r, unfinished(conn)),
            Job::Log(room, r) => Done::Log(r, log(conn, &room)),
        });
    }
    let commit = control(conn, "COMMIT").map_err(|e| e.to_string());
    if commit.is_err() {
        // Nothing of the batch may stay half-applied for the next one.
        if let Err(e) = control(conn, "ROLLBACK") {
            tracing::debug!(error = %e, "rollback after a failed commit");
        }
    }
    for d in done {
        d.answer(&commit);
    }
}

fn fail(job: Job, msg: &str) {
    let err = || StoreError::Corrupt(format!("cannot start a transaction: {msg}"));
    match job {
        Job::Create(_, r) => drop(r.send(Err(err()))),
        Job::Seat(_, _, _, r) => drop(r.send(Err(err()))),
        Job::Append { reply, .. } => drop(reply.send(Err(err()))),
        Job::Unfinished(r) => drop(r.send(Err(err()))),
        Job::Log(_, r) => drop(r.send(Err(err()))),
    }
}
