//! The durable event log: matches, seats and every accepted step, in SQLite.
//!
//! One writer thread owns the only connection that writes (`writer`):
//! it commits jobs in batches and answers each only once committed, so a
//! move is acknowledged only once it is stored, and a job that fails
//! leaves nothing behind. Reads run on their own threads and read-only
//! connections (`reader`), so no client's read delays a commit. WAL mode
//! with `synchronous=NORMAL`: a commit survives the process being killed
//! at any moment (what the crash tests check); only an OS crash or power
//! loss can lose the last commits. `--sync full` trades speed for that.
//! [`Faults`] makes commits, appends and reads fail or stall on purpose,
//! for tests.

use std::net::IpAddr;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;

use parlor_games::{Outcome, Seat};
use parlor_protocol::{Closed, LogEntry, MatchHeader, MatchLog, RoomId};
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::limits::STORE_QUEUE;

mod checkpoint;
mod connect;
mod faults;
mod queries;
mod reader;
mod schema;
mod writer;

pub use faults::{Faults, ReadHold};

use connect::Throwaway;
use reader::ReadJob;
use writer::WriteJob;

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
    /// A fault armed through [`Faults`] (tests only).
    #[error("injected fault: {0}")]
    Injected(&'static str),
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
        /// What they added to the deal.
        client_seed: Option<String>,
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
    /// Who made it, and when.
    pub origin: Origin,
}

/// Who made a match and when: what the caps and lifetimes need after a
/// restart (absent for matches stored by older servers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The creator's resume token.
    pub creator: Option<Uuid>,
    /// The creator's address, as the caps count it (IPv6 by /64).
    pub addr: Option<IpAddr>,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_ms: Option<u64>,
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

/// A handle on the store; cheap to clone. The store's threads stop when
/// the last handle is dropped.
#[derive(Clone, Debug)]
pub struct Store {
    writes: std_mpsc::SyncSender<WriteJob>,
    reads: std_mpsc::SyncSender<ReadJob>,
}

/// The threads that serve the writer, stopped by it when it closes.
struct Helpers {
    readers: Vec<JoinHandle<()>>,
    checkpointer: JoinHandle<()>,
    /// Dropping it stops the checkpointer.
    alive: std_mpsc::Sender<()>,
}

impl Helpers {
    /// Waits for the readers (they stop once every handle is gone, which
    /// is also why the writer stopped) and stops the checkpointer, so that
    /// the writer's connection is the last one open.
    fn stop(self) {
        for r in self.readers {
            if r.join().is_err() {
                tracing::error!("a store reader panicked");
            }
        }
        drop(self.alive);
        if self.checkpointer.join().is_err() {
            tracing::error!("the checkpoint thread panicked");
        }
    }
}

impl Store {
    /// Opens (or creates) the database at `path` (`None`: a throwaway
    /// database, for tests and throwaway servers, in a temporary file that
    /// vanishes with the store; see `connect`) and starts its threads. The
    /// handle returned is the writer's: it ends once every `Store` is
    /// dropped, the last reads are served and the last commits done.
    pub fn open(path: Option<&Path>, sync: Sync) -> Result<(Store, JoinHandle<()>), StoreError> {
        Store::open_with_faults(path, sync, Faults::new())
    }

    /// [`Store::open`] with faults that a test arms through its own clone
    /// of `faults`. A testing hook.
    pub fn open_with_faults(
        path: Option<&Path>,
        sync: Sync,
        faults: Faults,
    ) -> Result<(Store, JoinHandle<()>), StoreError> {
        let (file, throwaway) = match path {
            Some(p) => (p.to_path_buf(), None),
            None => {
                let t = Throwaway::new();
                (t.path().to_path_buf(), Some(t))
            }
        };
        // Declared after `throwaway`, so dropped before it if a step below
        // fails: the file is removed once no connection is left on it.
        let conn = connect::writer(&file, throwaway.is_none().then_some(sync))?;
        let (reads, readers) = reader::start(&file, &faults)?;
        // Raised by the checkpointer, used by the writer (see `checkpoint`).
        let caught_up = Arc::new(AtomicBool::new(false));
        let (alive, stopped) = std_mpsc::channel::<()>();
        let other = connect::checkpointer(&file)?;
        let flag = Arc::clone(&caught_up);
        let checkpointer = std::thread::Builder::new()
            .name("parlor-checkpoint".into())
            .spawn(move || checkpoint::checkpointer(other, flag, stopped))
            .map_err(|e| StoreError::Corrupt(format!("cannot start the checkpoint thread: {e}")))?;
        if let Some(t) = &throwaway {
            // Every connection is open: the names are no longer needed.
            t.unlink();
        }
        let helpers = Helpers {
            readers,
            checkpointer,
            alive,
        };
        let (writes, rx) = std_mpsc::sync_channel(STORE_QUEUE);
        let handle = std::thread::Builder::new()
            .name("parlor-store".into())
            .spawn(move || {
                writer::run(&conn, &rx, &faults, &caught_up);
                helpers.stop();
                checkpoint::checkpoint(&conn, "TRUNCATE");
                drop(conn);
                drop(throwaway);
                tracing::debug!(db = %file.display(), "store closed");
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the store thread: {e}")))?;
        Ok((Store { writes, reads }, handle))
    }

    /// Queues a job for the writer and waits for its answer.
    async fn write<T>(&self, job: impl FnOnce(Reply<T>) -> WriteJob) -> Result<T, StoreError> {
        ask(&self.writes, job).await
    }

    /// Queues a job for the readers and waits for its answer.
    async fn read<T>(&self, job: impl FnOnce(Reply<T>) -> ReadJob) -> Result<T, StoreError> {
        ask(&self.reads, job).await
    }

    /// Records a new match; returns its number, under which its seats and
    /// moves are filed.
    pub async fn create_match(&self, record: MatchRecord) -> Result<MatchKey, StoreError> {
        self.write(|r| WriteJob::Create(record, r)).await
    }

    /// Records who sits in a seat (`None`: nobody).
    pub async fn set_seat(
        &self,
        key: MatchKey,
        seat: Seat,
        who: Option<StoredSeat>,
    ) -> Result<(), StoreError> {
        self.write(|r| WriteJob::Seat(key, seat, who, r)).await
    }

    /// Appends one log entry, with the clocks after it and, if it ended
    /// the match, the outcome. Returns once committed; on `Err` nothing of
    /// it is stored.
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
        self.write(|reply| WriteJob::Append {
            key,
            step,
            clocks,
            outcome,
            reply,
        })
        .await
    }

    /// Records that a match closed without an outcome: it is not
    /// restored again, and its log says why it ended.
    pub async fn close_match(&self, key: MatchKey, why: Closed) -> Result<(), StoreError> {
        self.write(|r| WriteJob::Close(key, why, r)).await
    }

    /// Every match not yet finished, with its seats and steps.
    pub async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        self.read(ReadJob::Unfinished).await
    }

    /// The log of a finished match; `None` if there is no such room.
    /// `Err(Corrupt)` never hides an unfinished match: callers check the outcome.
    pub async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        self.read(|r| ReadJob::Log(room, r)).await
    }
}

/// Sends a job on a bounded queue and waits for its answer. When the
/// queue is full, the job waits on a blocking thread rather than stall
/// the async worker.
async fn ask<J: Send + 'static, T>(
    queue: &std_mpsc::SyncSender<J>,
    job: impl FnOnce(Reply<T>) -> J,
) -> Result<T, StoreError> {
    let (reply, answer) = oneshot::channel();
    match queue.try_send(job(reply)) {
        Ok(()) => {}
        Err(std_mpsc::TrySendError::Full(job)) => {
            let queue = queue.clone();
            tokio::task::spawn_blocking(move || queue.send(job))
                .await
                .map_err(|_| StoreError::Closed)?
                .map_err(|_| StoreError::Closed)?;
        }
        Err(std_mpsc::TrySendError::Disconnected(_)) => return Err(StoreError::Closed),
    }
    answer.await.map_err(|_| StoreError::Closed)?
}
