//! The readers: a few threads, each with its own read-only connection,
//! serving the jobs that only read (a finished match's log, the matches
//! to restore). They never enter the writer's batch, so a long read
//! delays no commit; in WAL mode they read the last committed state while
//! the writer writes.

use std::path::Path;
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use parlor_protocol::{MatchLog, RoomId};
use rusqlite::Connection;

use super::queries::{control, games_of, log, unfinished};
use super::{connect, AccountGame, Faults, Reply, StoreError, StoredMatch};

/// Threads serving the store's reads (`get_log`, the restore at start-up),
/// each on its own read-only connection. Reads are rare next to moves;
/// two keep one long read from queueing every other without taking more
/// cores from the rooms on a small machine.
pub const STORE_READERS: usize = 2;

/// Reads waiting for a reader before callers wait their turn (on a
/// blocking thread, never an async worker). Each waiting read holds only
/// its request; a burst of `get_log`s beyond this is slowed, not refused.
pub const STORE_READ_QUEUE: usize = 256;

/// What the readers do.
pub(super) enum ReadJob {
    Unfinished(Reply<Vec<StoredMatch>>),
    Log(RoomId, Reply<Option<MatchLog>>),
    Games(String, usize, Reply<Vec<AccountGame>>),
    Played(String, Reply<Vec<crate::store::PlayedMatch>>),
    /// Any other read: it answers by itself (see `SqliteStore::snapshot`).
    Run(Read),
}

/// A read that answers by itself, run on a reader's connection.
pub(super) type Read = Box<dyn FnOnce(&Connection, &Faults) + Send>;

/// The readers' queue, shared: whichever reader is free takes the next
/// job, so one long read holds up no other.
type Queue = Arc<Mutex<std_mpsc::Receiver<ReadJob>>>;

/// Opens [`STORE_READERS`] connections to the database at `path` and
/// starts a thread on each. They stop once the returned sender (and every
/// clone) is dropped and the jobs queued before are served.
pub(super) fn start(
    path: &Path,
    faults: &Faults,
) -> Result<(std_mpsc::SyncSender<ReadJob>, Vec<JoinHandle<()>>), StoreError> {
    let (tx, rx) = std_mpsc::sync_channel(STORE_READ_QUEUE);
    let queue: Queue = Arc::new(Mutex::new(rx));
    let mut threads = Vec::with_capacity(STORE_READERS);
    for i in 0..STORE_READERS {
        let conn = connect::reader(path)?;
        let queue = Arc::clone(&queue);
        let faults = faults.clone();
        let thread = std::thread::Builder::new()
            .name(format!("parlor-read-{i}"))
            .spawn(move || serve(&conn, &queue, &faults))
            .map_err(|e| StoreError::Corrupt(format!("cannot start a reader thread: {e}")))?;
        threads.push(thread);
    }
    Ok((tx, threads))
}

fn serve(conn: &Connection, queue: &Queue, faults: &Faults) {
    loop {
        // One free reader waits on the queue, the others on the lock; the
        // lock is released before the job runs. A reader that panicked
        // held no job of the queue's, so its poison is harmless.
        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = next else { return };
        // A caller that stopped waiting has nothing to be told.
        match job {
            ReadJob::Unfinished(r) => drop(r.send(snapshot(conn, faults, unfinished))),
            ReadJob::Log(room, r) => drop(r.send(snapshot(conn, faults, |c| log(c, &room)))),
            ReadJob::Games(key, limit, r) => {
                drop(r.send(snapshot(conn, faults, |c| games_of(c, &key, limit))))
            }
            ReadJob::Played(key, r) => drop(r.send(snapshot(conn, faults, |c| {
                super::queries::played_by(c, &key)
            }))),
            ReadJob::Run(read) => read(conn, faults),
        }
    }
}

/// Runs `read` in one read transaction, so its several queries see one
/// committed state (steps appended between them would otherwise make a
/// restored match's seats and steps disagree).
pub(super) fn snapshot<T>(
    conn: &Connection,
    faults: &Faults,
    read: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    control(conn, "BEGIN")?;
    let out = read(conn);
    // Testing hook: a held read keeps its transaction open here.
    faults.wait_while_reads_held();
    if let Err(e) = control(conn, "COMMIT") {
        // What was read is still one committed state; the transaction must
        // end all the same, or the next read could not begin.
        tracing::debug!(error = %e, "ending a read transaction");
        if let Err(e) = control(conn, "ROLLBACK") {
            tracing::debug!(error = %e, "rolling back a read transaction");
        }
    }
    out
}
