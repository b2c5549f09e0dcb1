//! The writer thread: the only connection that writes. Jobs arrive on a
//! bounded queue; the thread takes all that are waiting (up to
//! [`STORE_BATCH`]), runs them in one transaction and only then answers
//! each, so a step is acknowledged only once it is committed, and many
//! rooms share one commit under load.
//!
//! Each job runs in a savepoint of its own: a job that fails leaves
//! nothing behind (a room refuses a move whose append failed, so no part
//! of it may be stored), while the rest of its batch still commits.

use std::sync::mpsc as std_mpsc;
use std::sync::Mutex;
use std::time::Instant;

use rusqlite::Connection;

use super::super::health::CommitHealth;
use super::super::job::WriteJob;
use super::queries::{append, close, control, create, record_turn, set_seat};
use super::shards::locked;
use super::{Faults, MatchKey, Reply, StoreError};
use crate::metrics::{commit_took, StoreKind};
use crate::store::STORE_BATCH;

/// How long the store's writer lets jobs gather before a commit when they
/// stream in faster than it commits (the previous batch held at least
/// [`STORE_GATHER_AFTER`] and ended less than this ago). Measured in the
/// closed loop: store CPU per move 11 -> 7 µs, with no loss of latency
/// (the server is CPU-bound there).
pub(super) const STORE_GATHER: std::time::Duration = std::time::Duration::from_micros(1000);

/// Batch size from which the writer starts gathering. At 2,500 moves/s
/// commits keep up with one or two jobs each, and gathering there only
/// added a millisecond to every move (paced p50 0.35 -> 1.7 ms).
pub(super) const STORE_GATHER_AFTER: usize = 4;

/// Serves jobs until every sender is gone.
pub(super) fn run(
    conn: &Mutex<Connection>,
    rx: &std_mpsc::Receiver<WriteJob>,
    faults: &Faults,
    health: &CommitHealth,
) {
    let mut last_batch = Instant::now();
    let mut last_len = 0;
    loop {
        let Ok(first) = rx.recv() else {
            return;
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
        let started = Instant::now();
        let conn = locked(conn);
        run_batch(&conn, batch, faults, health);
        last_batch = Instant::now();
        commit_took(StoreKind::Sqlite, last_batch - started);
    }
}

/// A job's result, held until the commit decides whether it stands.
enum Done {
    Unit(Reply<()>, Result<(), StoreError>),
    Line(
        Reply<parlor_competition::LedgerLine>,
        Result<parlor_competition::LedgerLine, StoreError>,
    ),
    Key(Reply<MatchKey>, Result<MatchKey, StoreError>),
    Lines(
        Reply<Vec<parlor_competition::LedgerLine>>,
        Result<Vec<parlor_competition::LedgerLine>, StoreError>,
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
            Done::Line(r, res) => drop(r.send(settle(res, commit))),
            Done::Key(r, res) => drop(r.send(settle(res, commit))),
            Done::Lines(r, res) => drop(r.send(settle(res, commit))),
        }
    }
}

/// Runs `batch` in one transaction, each job in its own savepoint, and
/// answers every job once the commit succeeded or failed (recorded in
/// `health` first, so that whoever is answered sees it there).
pub(super) fn run_batch(
    conn: &Connection,
    batch: Vec<WriteJob>,
    faults: &Faults,
    health: &CommitHealth,
) {
    if let Err(e) = control(conn, "BEGIN") {
        let why = format!("cannot start a transaction: {e}");
        health.record(Err(&why));
        for job in batch {
            refuse(job, &why);
        }
        return;
    }
    // False once a job's savepoint could not be opened or closed: the
    // transaction may then hold part of a failed job, or SQLite may have
    // rolled it back (after a full disk, say), and whatever ran after
    // would commit on its own. Nothing more runs, nothing is committed.
    let mut intact = true;
    let mut done = Vec::with_capacity(batch.len());
    for job in batch {
        if !intact {
            refuse(job, "an earlier job of its batch failed beyond undoing");
            continue;
        }
        done.push(match job {
            WriteJob::Create(rec, r) => {
                Done::Key(r, isolated(conn, &mut intact, |c| create(c, &rec)))
            }
            WriteJob::Seat(key, seat, who, r) => Done::Unit(
                r,
                isolated(conn, &mut intact, |c| set_seat(c, key, seat, who.as_ref())),
            ),
            WriteJob::Close(key, why, r) => {
                Done::Unit(r, isolated(conn, &mut intact, |c| close(c, key, why)))
            }
            WriteJob::Turn(key, turn, r) => Done::Unit(
                r,
                isolated(conn, &mut intact, |c| record_turn(c, key, &turn)),
            ),
            WriteJob::Append {
                key,
                step,
                clocks,
                outcome,
                turn,
                reply,
            } => Done::Unit(
                reply,
                isolated(conn, &mut intact, |c| {
                    append(c, key, &step, clocks.as_deref(), outcome, turn.as_ref())?;
                    faults.check_append()
                }),
            ),
            WriteJob::Rated {
                key,
                step,
                clocks,
                outcome,
                end,
                reply,
            } => Done::Line(
                reply,
                isolated(conn, &mut intact, |c| {
                    append(c, key, &step, clocks.as_deref(), Some(outcome), None)?;
                    faults.check_append()?;
                    super::ratings::apply(c, &end)
                }),
            ),
            WriteJob::Void(void, reply) => Done::Lines(
                reply,
                isolated(conn, &mut intact, |c| super::ratings::void(c, &void)),
            ),
        });
    }
    let commit = if !intact {
        Err("a failed job could not be undone on its own".to_owned())
    } else if faults.commit_fails() {
        Err("injected fault".to_owned())
    } else {
        control(conn, "COMMIT").map_err(|e| e.to_string())
    };
    if commit.is_err() {
        // Nothing of the batch may stay half-applied for the next one.
        if let Err(e) = control(conn, "ROLLBACK") {
            tracing::debug!(error = %e, "rollback after a failed commit");
        }
    }
    health.record(commit.as_ref().map(|_| ()).map_err(String::as_str));
    for d in done {
        d.answer(&commit);
    }
}

/// Runs one job inside a savepoint: released if the job succeeded, rolled
/// back to (so nothing of the job stays) if it failed. Clears `intact`
/// (and runs nothing) if the batch's transaction is gone, and clears it
/// if the savepoint could not be opened or closed.
fn isolated<T>(
    conn: &Connection,
    intact: &mut bool,
    job: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    // Outside a transaction a savepoint would start one of its own, and
    // the job would commit alone while its batch fails.
    if conn.is_autocommit() {
        *intact = false;
        return Err(StoreError::Corrupt(
            "the batch's transaction was lost".into(),
        ));
    }
    if let Err(e) = control(conn, "SAVEPOINT job") {
        *intact = false;
        return Err(e.into());
    }
    let res = job(conn);
    let closed = match res {
        Ok(_) => control(conn, "RELEASE job"),
        Err(_) => control(conn, "ROLLBACK TO job").and_then(|()| control(conn, "RELEASE job")),
    };
    if let Err(e) = closed {
        *intact = false;
        return Err(e.into());
    }
    res
}

/// Answers a job that could not run.
fn refuse(job: WriteJob, why: &str) {
    job.refuse(StoreError::Corrupt(why.to_owned()));
}

#[cfg(test)]
mod tests {
    // Test helpers fail the test by panicking.
    #![allow(clippy::panic)]

    use parlor_games::{GameKind, Outcome, Seat};
    use parlor_protocol::{MatchHeader, RoomId};
    use rusqlite::params;
    use serde_json::json;
    use tokio::sync::oneshot;

    use super::super::schema;
    use super::super::{MatchRecord, Step};
    use super::*;

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A fresh database holding one match.
    fn db() -> (Connection, MatchKey) {
        let mut conn = ok(Connection::open_in_memory());
        ok(schema::prepare(&mut conn));
        let record = MatchRecord {
            room: RoomId::new("aaaaaaaaaaaa").unwrap_or_else(|| panic!("room id")),
            header: MatchHeader {
                game: GameKind::Nimrod,
                options: json!({"piles": [3, 5]}),
                seats: 2,
                seed: Some(1),
                deal: None,
                clock: None,
                rated: false,
                event: None,
                ladder: None,
                matched: None,
            },
            private: false,
            origin: crate::store::Origin::default(),
        };
        let key = ok(create(&conn, &record));
        (conn, key)
    }

    type Answer = oneshot::Receiver<Result<(), StoreError>>;

    /// An append of `seq` by `seat`, and where its answer arrives.
    fn append_job(
        key: MatchKey,
        seq: u64,
        seat: u8,
        outcome: Option<Outcome>,
    ) -> (WriteJob, Answer) {
        let (reply, answer) = oneshot::channel();
        let step = ok(Step::new(
            seq,
            Seat(seat),
            &json!({ "move": { "take": [seq, seat] } }),
        ));
        let job = WriteJob::Append {
            key,
            step,
            clocks: None,
            outcome,
            turn: None,
            reply,
        };
        (job, answer)
    }

    /// Runs the jobs as one batch; returns their answers in order.
    fn batch(
        conn: &Connection,
        faults: &Faults,
        jobs: Vec<(WriteJob, Answer)>,
    ) -> Vec<Result<(), StoreError>> {
        let (jobs, answers): (Vec<_>, Vec<_>) = jobs.into_iter().unzip();
        run_batch(conn, jobs, faults, &CommitHealth::default());
        answers.into_iter().map(|mut a| ok(a.try_recv())).collect()
    }

    /// (seq, seat) of every stored step of `key`.
    fn stored(conn: &Connection, key: MatchKey) -> Vec<(i64, u8)> {
        let mut stmt =
            ok(conn.prepare("SELECT seq, seat FROM moves WHERE match_id = ?1 ORDER BY seq"));
        let rows = ok(stmt.query_map(params![key.id], |r| Ok((r.get(0)?, r.get(1)?))));
        rows.map(ok).collect()
    }

    fn finished(conn: &Connection, key: MatchKey) -> bool {
        ok(conn.query_row(
            "SELECT finished FROM matches WHERE id = ?1",
            params![key.id],
            |r| r.get(0),
        ))
    }

    #[test]
    fn a_failed_job_leaves_nothing_while_the_rest_of_its_batch_commits() {
        let (conn, key) = db();
        let faults = Faults::new();
        // The first append fails after both its statements ran (the step
        // and the outcome that ends the match).
        faults.fail_next_appends(1);
        let answers = batch(
            &conn,
            &faults,
            vec![
                append_job(key, 0, 1, Some(Outcome::Draw)),
                // Only takes its place if the failed one left nothing.
                append_job(key, 0, 0, None),
                append_job(key, 1, 1, None),
                // A duplicate (match, seq): the insert itself is refused.
                append_job(key, 1, 0, None),
                append_job(key, 2, 0, None),
            ],
        );
        assert!(
            matches!(answers[0], Err(StoreError::Injected(_))),
            "{:?}",
            answers[0]
        );
        assert!(answers[1].is_ok(), "{:?}", answers[1]);
        assert!(answers[2].is_ok(), "{:?}", answers[2]);
        assert!(
            matches!(answers[3], Err(StoreError::Sqlite(_))),
            "{:?}",
            answers[3]
        );
        assert!(answers[4].is_ok(), "{:?}", answers[4]);
        assert_eq!(stored(&conn, key), vec![(0, 0), (1, 1), (2, 0)]);
        assert!(
            !finished(&conn, key),
            "the failed append's outcome was undone"
        );
        assert!(conn.is_autocommit(), "the batch's transaction is over");
    }

    #[test]
    fn a_job_whose_failure_ended_the_transaction_stops_the_batch() {
        let (conn, key) = db();
        ok(control(&conn, "BEGIN"));
        let mut intact = true;
        let (job, _) = append_job(key, 0, 0, None);
        let WriteJob::Append { step, .. } = job else {
            panic!("an append")
        };
        ok(isolated(&conn, &mut intact, |c| {
            append(c, key, &step, None, None, None)
        }));
        assert!(intact);
        // As SQLite does on some errors (a full disk): the whole
        // transaction is rolled back, not just the failed statement.
        let res: Result<(), StoreError> = isolated(&conn, &mut intact, |c| {
            control(c, "ROLLBACK")?;
            Err(StoreError::Injected("full disk"))
        });
        assert!(res.is_err());
        assert!(!intact, "the batch must not commit");
        assert!(conn.is_autocommit());
        assert_eq!(stored(&conn, key), vec![], "the earlier job is gone too");
        // Even if asked to, no job runs outside the batch's transaction.
        intact = true;
        let res = isolated(&conn, &mut intact, |c| {
            append(c, key, &step, None, None, None)
        });
        assert!(res.is_err());
        assert!(!intact);
        assert_eq!(stored(&conn, key), vec![]);
    }

    #[test]
    fn a_failed_commit_answers_every_job_with_an_error_and_keeps_nothing() {
        let (conn, key) = db();
        let faults = Faults::new();
        faults.fail_next_commits(1);
        let answers = batch(
            &conn,
            &faults,
            vec![
                append_job(key, 0, 0, None),
                append_job(key, 1, 1, Some(Outcome::Draw)),
            ],
        );
        for a in &answers {
            assert!(
                matches!(a, Err(StoreError::Corrupt(why)) if why.contains("commit failed")),
                "{a:?}"
            );
        }
        assert_eq!(stored(&conn, key), vec![]);
        assert!(!finished(&conn, key));
        assert!(conn.is_autocommit(), "the failed batch was rolled back");
        // The fault is spent: the same steps now commit.
        let answers = batch(
            &conn,
            &faults,
            vec![
                append_job(key, 0, 0, None),
                append_job(key, 1, 1, Some(Outcome::Draw)),
            ],
        );
        assert!(answers.iter().all(Result::is_ok), "{answers:?}");
        assert_eq!(stored(&conn, key), vec![(0, 0), (1, 1)]);
        assert!(finished(&conn, key));
    }
}
