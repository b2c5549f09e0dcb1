//! The SQLite backend: the event log in one file, the default store.
//!
//! One writer thread owns the only connection that writes (`writer`):
//! it commits jobs in batches and answers each only once committed, so a
//! move is acknowledged only once it is stored, and a job that fails
//! leaves nothing behind. Reads run on their own threads and read-only
//! connections (`reader`), so no client's read delays a commit. WAL mode
//! with `synchronous=NORMAL`: a commit survives the process being killed
//! at any moment (what the crash tests check); only an OS crash or power
//! loss can lose the last commits. `--sync full` trades speed for that.

use std::path::Path;
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use parlor_protocol::{MatchLog, RoomId};
use tokio::sync::oneshot;

use super::{
    AccountGame, Faults, MatchKey, MatchRecord, Reply, Step, StoreError, StoredMatch, StoredSeat,
    Sync,
};
use crate::shard::Shards;
use crate::store::STORE_QUEUE;

pub mod backup;
mod checkpoint;
mod connect;
mod dump;
mod queries;
pub(super) mod ratings;
mod reader;
mod schema;
mod shards;
mod writer;

pub use reader::{STORE_READERS, STORE_READ_QUEUE};

use super::health::CommitHealth;
use super::job::WriteJob;
use connect::Throwaway;
pub(super) use dump::dump;
use reader::ReadJob;
use shards::{locked, ShardWriters, SharedConn};

/// A handle on a SQLite store; cheap to clone. The store's threads stop
/// when the last handle is dropped.
#[derive(Clone, Debug)]
pub(super) struct SqliteStore {
    writes: std_mpsc::SyncSender<WriteJob>,
    reads: std_mpsc::SyncSender<ReadJob>,
    health: Arc<CommitHealth>,
    /// What the shards' writers need, and once started, their queues.
    shared: Arc<OnShards>,
    /// The connection for tables beside the log (see `store::beside`).
    beside: Arc<Mutex<rusqlite::Connection>>,
}

/// The shards' writers (see `shards`): how to start them, and their
/// queues once started.
#[derive(Debug)]
struct OnShards {
    conn: SharedConn,
    faults: Faults,
    /// Whether commits may run on the shards: not with `--sync full`,
    /// whose every commit waits for the disk.
    allowed: bool,
    writers: OnceLock<ShardWriters>,
    /// Held by each shard writer while it runs: the writer thread waits
    /// for every one to be gone before it closes the connection.
    running: std_mpsc::Sender<()>,
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

impl SqliteStore {
    /// Opens (or creates) the database at `path` (`None`: a throwaway
    /// database in a temporary file that vanishes with the store; see
    /// `connect`) and starts its threads. The handle returned is the
    /// writer's: it ends once every `SqliteStore` is dropped, the last
    /// reads are served and the last commits done.
    pub(super) fn open(
        path: Option<&Path>,
        sync: Sync,
        faults: Faults,
    ) -> Result<(SqliteStore, JoinHandle<()>), StoreError> {
        let (file, throwaway) = match path {
            Some(p) => (p.to_path_buf(), None),
            None => {
                let t = Throwaway::new();
                (t.path().to_path_buf(), Some(t))
            }
        };
        // Declared after `throwaway`, so dropped before it if a step below
        // fails: the file is removed once no connection is left on it.
        let sync = throwaway.is_none().then_some(sync);
        let conn: SharedConn = Arc::new(Mutex::new(connect::writer(&file, sync)?));
        let (reads, readers) = reader::start(&file, &faults)?;
        let (alive, stopped) = std_mpsc::channel::<()>();
        let other = connect::checkpointer(&file, sync)?;
        let writer_conn = Arc::clone(&conn);
        let beside = Arc::new(Mutex::new(super::beside::open_sqlite(&file)?));
        let checkpointer = std::thread::Builder::new()
            .name("parlor-checkpoint".into())
            .spawn(move || checkpoint::checkpointer(other, &writer_conn, &stopped))
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
        let health = Arc::new(CommitHealth::default());
        let commits = Arc::clone(&health);
        let (running, shard_writers_gone) = std_mpsc::channel::<()>();
        let shared = Arc::new(OnShards {
            conn: Arc::clone(&conn),
            faults: faults.clone(),
            allowed: sync != Some(Sync::Full),
            writers: OnceLock::new(),
            running,
        });
        let handle = std::thread::Builder::new()
            .name("parlor-store".into())
            .spawn(move || {
                writer::run(&conn, &rx, &faults, &commits);
                // Every handle is gone; the shards' writers finish what
                // they hold and end.
                while shard_writers_gone.recv().is_ok() {}
                helpers.stop();
                checkpoint::checkpoint(&locked(&conn), "TRUNCATE");
                drop(conn);
                drop(throwaway);
                tracing::debug!(db = %file.display(), "store closed");
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the store thread: {e}")))?;
        Ok((
            SqliteStore {
                writes,
                reads,
                health,
                shared,
                beside,
            },
            handle,
        ))
    }

    /// Commits the jobs of tasks running on `shards` on their own shard
    /// threads from now on (unless the store syncs every commit to disk:
    /// then they still go to the writer thread). Once only: later calls
    /// change nothing.
    pub(super) fn commit_on(&self, shards: &Arc<Shards>) {
        let on = &self.shared;
        if !on.allowed || shards.is_empty() {
            return;
        }
        let _ = on.writers.get_or_init(|| {
            ShardWriters::start(shards, &on.conn, &on.faults, &self.health, &on.running)
        });
    }

    /// Why the node cannot serve now, if it cannot: the writer's last
    /// commit failed.
    pub(super) fn health(&self) -> Result<(), String> {
        match self.health.failure() {
            Some(why) => Err(format!("the last commit failed: {why}")),
            None => Ok(()),
        }
    }

    /// Queues a job for the writer and waits for its answer.
    pub(super) async fn write<T>(
        &self,
        job: impl FnOnce(Reply<T>) -> WriteJob,
    ) -> Result<T, StoreError> {
        if let Some(queue) = self.shared.writers.get().and_then(ShardWriters::here) {
            let (reply, answer) = oneshot::channel();
            queue
                .send(job(reply))
                .await
                .map_err(|_| StoreError::Closed)?;
            return answer.await.map_err(|_| StoreError::Closed)?;
        }
        ask(&self.writes, job).await
    }

    /// The account tables' connection.
    pub(super) fn beside(&self) -> Arc<Mutex<rusqlite::Connection>> {
        Arc::clone(&self.beside)
    }

    /// Queues a job for the readers and waits for its answer.
    async fn read<T>(&self, job: impl FnOnce(Reply<T>) -> ReadJob) -> Result<T, StoreError> {
        ask(&self.reads, job).await
    }

    /// Runs `read` on a reader, in one read transaction.
    pub(super) async fn snapshot<T: Send + 'static>(
        &self,
        read: impl FnOnce(&rusqlite::Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.read(|reply| {
            ReadJob::Run(Box::new(move |conn, faults| {
                // A caller that stopped waiting has nothing to be told.
                drop(reply.send(reader::snapshot(conn, faults, read)));
            }))
        })
        .await
    }

    pub(super) async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        self.read(ReadJob::Unfinished).await
    }

    pub(super) async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        self.read(|r| ReadJob::Log(room, r)).await
    }

    pub(super) async fn games_of(
        &self,
        account_key: String,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError> {
        self.read(|r| ReadJob::Games(account_key, limit, r)).await
    }

    pub(super) async fn played_by(
        &self,
        account_key: String,
    ) -> Result<Vec<super::PlayedMatch>, StoreError> {
        self.read(|r| ReadJob::Played(account_key, r)).await
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
