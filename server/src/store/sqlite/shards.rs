//! Committing on the shards: each shard thread runs a writer task that
//! commits, on the shard's own thread, every job its rooms queued in one
//! scheduler turn, and answers them after COMMIT.
//!
//! Why: with the writer on a thread of its own, every move woke that
//! thread and then woke the room back (two futex round trips), which at a
//! paced load cost more CPU than SQLite's work (issue 15's measurements:
//! ~55 of ~85 µs a move). Here a room's append, the commit and the
//! acknowledgement stay on one thread. The shards share the writer's
//! connection behind a mutex (SQLite has one writer anyway): a commit in
//! WAL mode with `synchronous=NORMAL` writes the log without syncing, so
//! the lock is held for tens of microseconds. With `--sync full` every
//! commit syncs the disk, which must not freeze a shard's connections:
//! jobs then go to the writer thread as before (see `SqliteStore::open`).

use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rusqlite::Connection;
use tokio::sync::mpsc;

use super::super::health::CommitHealth;
use super::super::job::WriteJob;
use super::writer::run_batch;
use super::Faults;
use crate::metrics::{commit_took, StoreKind};
use crate::shard::Shards;
use crate::store::{STORE_BATCH, STORE_QUEUE};

/// The writer connection, shared by the writer thread and the shards.
pub(super) type SharedConn = Arc<Mutex<Connection>>;

/// Locks the writer connection. A panic while it was held (only a bug)
/// left no transaction open that matters: every batch starts with BEGIN,
/// and a batch whose transaction was lost commits nothing.
pub(super) fn locked(conn: &Mutex<Connection>) -> std::sync::MutexGuard<'_, Connection> {
    conn.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One queue per shard, to that shard's writer task.
#[derive(Debug)]
pub(super) struct ShardWriters {
    shards: Arc<Shards>,
    queues: Vec<mpsc::Sender<WriteJob>>,
}

impl ShardWriters {
    /// Starts a writer task on every shard of `shards`.
    pub(super) fn start(
        shards: &Arc<Shards>,
        conn: &SharedConn,
        faults: &Faults,
        health: &Arc<CommitHealth>,
        running: &std_mpsc::Sender<()>,
    ) -> ShardWriters {
        let mut queues = Vec::with_capacity(shards.len());
        for i in 0..shards.len() {
            // Bounded like the writer thread's queue: a room whose append
            // finds it full waits (asynchronously) for the next commit.
            let (tx, rx) = mpsc::channel(STORE_QUEUE);
            if let Some(handle) = shards.handle(i) {
                handle.spawn(serve(
                    Arc::clone(conn),
                    rx,
                    faults.clone(),
                    Arc::clone(health),
                    running.clone(),
                ));
            }
            queues.push(tx);
        }
        ShardWriters {
            shards: Arc::clone(shards),
            queues,
        }
    }

    /// The queue of the shard the caller runs on, if it runs on one.
    pub(super) fn here(&self) -> Option<&mpsc::Sender<WriteJob>> {
        self.shards.here().and_then(|i| self.queues.get(i))
    }
}

/// A shard's writer: takes the first job, lets every task already woken
/// in this turn of the scheduler run (and queue its own job), then
/// commits all that is queued in one transaction on this thread. Ends
/// once every sender is gone.
async fn serve(
    conn: SharedConn,
    mut rx: mpsc::Receiver<WriteJob>,
    faults: Faults,
    health: Arc<CommitHealth>,
    // Dropped when this ends, however it ends (see `SqliteStore::open`).
    _running: std_mpsc::Sender<()>,
) {
    let mut batch = Vec::new();
    while let Some(first) = rx.recv().await {
        batch.push(first);
        // The rest of this turn: other rooms on this shard that were woken
        // by the same poll of the sockets append before the commit.
        tokio::task::yield_now().await;
        while batch.len() < STORE_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let started = Instant::now();
        {
            let conn = locked(&conn);
            run_batch(&conn, std::mem::take(&mut batch), &faults, &health);
        }
        commit_took(StoreKind::Sqlite, started.elapsed());
    }
}
