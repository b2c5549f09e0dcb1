//! Checkpoints: copying the write-ahead log into the database file so
//! that the log can start over instead of growing.

use std::sync::mpsc as std_mpsc;
use std::sync::Mutex;
use std::time::Instant;

use rusqlite::Connection;

use super::shards::locked;
use crate::metrics::{checkpoint_took, CheckpointStep};

/// How often the write-ahead log is checkpointed into the database file
/// (on a thread of its own, see `store::sqlite::checkpoint`), after which
/// the log starts over: often enough that the log stays a few megabytes
/// at thousands of moves a second, and a checkpoint's pause stays short.
pub(super) const CHECKPOINT_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// Copies committed WAL frames into the database file.
pub(super) fn checkpoint(conn: &Connection, mode: &str) {
    if let Err(e) = conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(())) {
        tracing::debug!(error = %e, "checkpoint failed; the next one will retry");
    }
}

/// Checkpoints every [`CHECKPOINT_INTERVAL`] in two steps on this
/// thread's own connection, so that neither stalls moves for long nor
/// lets the log grow. Stops when `stopped`'s sender is dropped.
///
/// 1. `copy`: the bulk of the log, while commits go on (measured: 10 to
///    20 ms a second at 2,500 moves/s, which when the writer did it was
///    the whole p99 latency).
/// 2. `finish`: holding the writer's lock, so that no commit comes in
///    between, the few frames committed during the copy. Once every frame
///    is copied, the next commit starts the log over from its beginning;
///    under steady load a checkpoint that let commits in would never get
///    there. Done at once, not by the writer at its next chance: on the
///    shards that chance came up to a second later, with a second's
///    frames to copy while every shard waited for the lock.
pub(super) fn checkpointer(
    conn: Connection,
    writer: &Mutex<Connection>,
    stopped: &std_mpsc::Receiver<()>,
) {
    while let Err(std_mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_INTERVAL) {
        let started = Instant::now();
        checkpoint(&conn, "PASSIVE");
        checkpoint_took(CheckpointStep::Copy, started.elapsed());
        let guard = locked(writer);
        let started = Instant::now();
        checkpoint(&conn, "PASSIVE");
        checkpoint_took(CheckpointStep::Finish, started.elapsed());
        drop(guard);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::store::sqlite::connect::{self, Throwaway};
    use crate::store::Sync;

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        match r {
            Ok(v) => v,
            Err(e) => panic!("{e:?}"),
        }
    }

    /// Frames in the log, and frames copied (`wal_checkpoint`'s columns).
    fn frames(conn: &Connection) -> (i64, i64) {
        ok(conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
            Ok((r.get(1)?, r.get(2)?))
        }))
    }

    fn write_rows(conn: &Connection, n: usize) {
        for i in 0..n {
            ok(conn.execute(
                "INSERT INTO filler (body) VALUES (?1)",
                [format!("row {i} {}", "x".repeat(200))],
            ));
        }
    }

    fn open(path: &Path) -> (Connection, Connection) {
        let w = ok(connect::writer(path, Some(Sync::Normal)));
        ok(w.execute_batch("CREATE TABLE filler (body TEXT NOT NULL)"));
        let c = ok(connect::checkpointer(path, Some(Sync::Normal)));
        (w, c)
    }

    /// The finish step runs on the checkpointer's connection, not the
    /// writer's: the writer's next commit must still start the log over,
    /// or the log would grow for ever.
    #[test]
    fn a_checkpoint_from_another_connection_lets_the_writer_start_the_log_over() {
        let t = Throwaway::new();
        let (w, c) = open(t.path());
        write_rows(&w, 200);
        let (before, _) = frames(&c);
        assert!(before > 100, "the log holds the writes: {before} frames");
        let (_, copied) = frames(&c);
        assert_eq!(copied, before, "every frame copied");
        write_rows(&w, 1);
        let (after, _) = frames(&c);
        assert!(
            after < 10,
            "the writer started the log over: {after} frames, {before} before"
        );
    }
}
