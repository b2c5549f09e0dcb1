//! The writer thread: the only connection that writes. Jobs arrive on a
//! bounded queue; the thread takes all that are waiting (up to
//! [`STORE_BATCH`]), runs them in one transaction and only then answers
//! each, so a step is acknowledged only once it is committed, and many
//! rooms share one commit under load.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc as std_mpsc;
use std::time::Instant;

use parlor_games::{Outcome, Seat};
use rusqlite::Connection;

use super::checkpoint::finish_checkpoint;
use super::queries::{append, control, create, set_seat};
use super::{MatchKey, MatchRecord, Reply, Step, StoreError, StoredSeat};
use crate::limits::{CHECKPOINT_INTERVAL, STORE_BATCH, STORE_GATHER, STORE_GATHER_AFTER};

/// What the writer does.
pub(super) enum WriteJob {
    Create(MatchRecord, Reply<MatchKey>),
    Seat(MatchKey, Seat, Option<StoredSeat>, Reply<()>),
    Append {
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
        reply: Reply<()>,
    },
}

/// Serves jobs until every sender is gone, checkpointing between batches.
pub(super) fn run(conn: &Connection, rx: &std_mpsc::Receiver<WriteJob>, caught_up: &AtomicBool) {
    let mut last_batch = Instant::now();
    let mut last_len = 0;
    loop {
        let first = match rx.recv_timeout(CHECKPOINT_INTERVAL) {
            Ok(job) => job,
            Err(std_mpsc::RecvTimeoutError::Timeout) => {
                finish_checkpoint(conn, caught_up);
                continue;
            }
            Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
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
        run_batch(conn, batch);
        last_batch = Instant::now();
        finish_checkpoint(conn, caught_up);
    }
}

/// A job's result, held until the commit decides whether it stands.
enum Done {
    Unit(Reply<()>, Result<(), StoreError>),
    Key(Reply<MatchKey>, Result<MatchKey, StoreError>),
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
        }
    }
}

/// Runs `batch` in one transaction and answers every job once the commit
/// succeeded or failed.
fn run_batch(conn: &Connection, batch: Vec<WriteJob>) {
    if let Err(e) = control(conn, "BEGIN") {
        let why = format!("cannot start a transaction: {e}");
        for job in batch {
            refuse(job, &why);
        }
        return;
    }
    let mut done = Vec::with_capacity(batch.len());
    for job in batch {
        done.push(match job {
            WriteJob::Create(rec, r) => Done::Key(r, create(conn, &rec)),
            WriteJob::Seat(key, seat, who, r) => {
                Done::Unit(r, set_seat(conn, key, seat, who.as_ref()))
            }
            WriteJob::Append {
                key,
                step,
                clocks,
                outcome,
                reply,
            } => Done::Unit(reply, append(conn, key, &step, clocks.as_deref(), outcome)),
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

/// Answers a job that could not run.
fn refuse(job: WriteJob, why: &str) {
    let err = || StoreError::Corrupt(why.to_owned());
    match job {
        WriteJob::Create(_, r) => drop(r.send(Err(err()))),
        WriteJob::Seat(_, _, _, r) => drop(r.send(Err(err()))),
        WriteJob::Append { reply, .. } => drop(reply.send(Err(err()))),
    }
}
