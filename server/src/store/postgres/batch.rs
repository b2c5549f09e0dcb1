//! One batch of writes: every job in one transaction, each in a savepoint
//! of its own, pipelined so that a batch costs two round trips however
//! many jobs it holds (one for the jobs, one for `COMMIT`).
//!
//! The jobs go out as `BEGIN`, then per job `SAVEPOINT job`, its
//! statements, `RELEASE SAVEPOINT job`. If a job's statement fails, the
//! transaction refuses everything after it until it is rolled back to
//! that job's savepoint: the job is answered with its error, rolled back
//! (so nothing of it stays), and the jobs sent after it are sent again.
//! A job that an armed [`Faults`] fails is sent without its `RELEASE` and
//! ends its round, then is rolled back the same way: its statements ran
//! and are undone, as if the last had failed. `COMMIT` is sent only once
//! every job is settled: sent behind a failed job, it would roll the
//! whole transaction back and still report success.

use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Error, Row, Statement};

use super::super::job::WriteJob;
use super::super::rows::{account_key, to_json, NewHeader};
use super::super::{with_causes, Faults, StoreError, StoredSeat};
use super::cluster::node::Node;
use super::payload::{split, Answer, Payload};
use super::pipeline::in_order;
use super::statements::Statements;

/// The writer's connection and its prepared statements.
#[derive(Debug)]
pub(super) struct Conn {
    pub client: Client,
    pub statements: Statements,
}

/// A job's statement parameters, encoded. `epoch` is the epoch the
/// writing room holds its match at (the guard's token).
enum Params<'a> {
    Create(NewHeader<'a>, i16),
    Player {
        key: i64,
        epoch: i64,
        seat: i16,
        token: String,
        name: &'a str,
        client_seed: Option<&'a str>,
        account_key: Option<String>,
    },
    Bot {
        key: i64,
        epoch: i64,
        seat: i16,
        strategy: &'a str,
        name: Option<&'a str>,
    },
    Clear {
        key: i64,
        epoch: i64,
        seat: i16,
    },
    Close {
        key: i64,
        epoch: i64,
        why: String,
    },
    Turn {
        key: i64,
        epoch: i64,
        turn: String,
    },
    Append {
        key: i64,
        epoch: i64,
        seq: i64,
        seat: i16,
        action: &'a str,
        clocks: Option<String>,
        outcome: Option<String>,
        turn: Option<String>,
    },
}

type Param<'a> = &'a (dyn ToSql + Sync);

/// One statement to send.
struct Call<'a> {
    statement: &'a Statement,
    params: Vec<Param<'a>>,
    /// Writes only while the match is this node's (one row back if so).
    guarded: bool,
}

impl<'a> Call<'a> {
    fn bare(statement: &'a Statement) -> Call<'a> {
        Call {
            statement,
            params: Vec::new(),
            guarded: false,
        }
    }
}

impl<'a> Params<'a> {
    fn encode(p: &'a Payload) -> Result<Params<'a>, StoreError> {
        Ok(match p {
            Payload::Create(rec) => {
                Params::Create(NewHeader::encode(rec)?, i16::from(rec.header.seats))
            }
            Payload::Seat(key, seat, None) => Params::Clear {
                key: key.id,
                epoch: key.epoch,
                seat: i16::from(seat.0),
            },
            Payload::Seat(
                key,
                seat,
                Some(
                    who @ StoredSeat::Player {
                        token,
                        name,
                        client_seed,
                        ..
                    },
                ),
            ) => Params::Player {
                key: key.id,
                epoch: key.epoch,
                seat: i16::from(seat.0),
                token: token.to_string(),
                name,
                client_seed: client_seed.as_deref(),
                account_key: account_key(who),
            },
            Payload::Seat(key, seat, Some(StoredSeat::Bot { strategy, account })) => Params::Bot {
                key: key.id,
                epoch: key.epoch,
                seat: i16::from(seat.0),
                strategy,
                name: account.as_deref(),
            },
            Payload::Close(key, why) => Params::Close {
                key: key.id,
                epoch: key.epoch,
                why: to_json(why)?,
            },
            Payload::Turn(key, turn) => Params::Turn {
                key: key.id,
                epoch: key.epoch,
                turn: to_json(turn)?,
            },
            Payload::Append {
                key,
                step,
                clocks,
                outcome,
                turn,
            } => Params::Append {
                key: key.id,
                epoch: key.epoch,
                seq: step.seq as i64,
                seat: i16::from(step.seat.0),
                action: &step.action,
                clocks: clocks.as_deref().map(to_json).transpose()?,
                outcome: outcome.as_ref().map(to_json).transpose()?,
                turn: turn.as_ref().map(to_json).transpose()?,
            },
        })
    }

    fn is_append(&self) -> bool {
        matches!(self, Params::Append { .. })
    }

    /// The job's statements, in order; `owner` is this node's id.
    fn calls(&'a self, s: &'a Statements, owner: &'a String, out: &mut Vec<Call<'a>>) {
        let guarded = |statement, params| Call {
            statement,
            params,
            guarded: true,
        };
        match self {
            Params::Create(h, seats) => out.push(Call {
                statement: &s.create,
                params: vec![
                    &h.room,
                    &h.game,
                    &h.options,
                    seats,
                    &h.seed,
                    &h.clock,
                    &h.private,
                    &h.deal,
                    &h.creator,
                    &h.creator_addr,
                    &h.created_ms,
                    owner,
                    &h.rated,
                ],
                guarded: false,
            }),
            Params::Player {
                key,
                epoch,
                seat,
                token,
                name,
                client_seed,
                account_key,
            } => out.push(guarded(
                &s.seat_player,
                vec![
                    key,
                    seat,
                    token,
                    name,
                    client_seed,
                    owner,
                    epoch,
                    account_key,
                ],
            )),
            Params::Bot {
                key,
                epoch,
                seat,
                strategy,
                name,
            } => out.push(guarded(
                &s.seat_bot,
                vec![key, seat, strategy, owner, epoch, name],
            )),
            Params::Clear { key, epoch, seat } => {
                out.push(guarded(&s.seat_clear, vec![key, seat, owner, epoch]))
            }
            Params::Close { key, epoch, why } => {
                out.push(guarded(&s.close, vec![key, why, owner, epoch]))
            }
            Params::Turn { key, epoch, turn } => {
                out.push(guarded(&s.turn, vec![key, turn, owner, epoch]))
            }
            Params::Append {
                key,
                epoch,
                seq,
                seat,
                action,
                clocks,
                outcome,
                turn,
            } => {
                out.push(guarded(
                    &s.append,
                    vec![key, seq, seat, action, clocks, owner, epoch],
                ));
                if let Some(outcome) = outcome {
                    out.push(guarded(&s.finish, vec![key, outcome, owner, epoch]));
                } else if let Some(turn) = turn {
                    out.push(guarded(&s.turn, vec![key, turn, owner, epoch]));
                }
            }
        }
    }
}

/// Where one job's statements are among those sent together.
struct Span {
    job: usize,
    /// Index of its `SAVEPOINT`.
    start: usize,
    /// Its statements, savepoint and release included.
    len: usize,
    /// Failed on purpose (sent without its `RELEASE`).
    injected: bool,
}

/// Why the batch did not commit.
enum Broken {
    /// It surely did not: nothing of it is stored.
    Refused(String),
    /// `COMMIT` was sent but not answered: it may have committed.
    Unconfirmed(String),
}

/// The batch surely did not commit.
fn refused(why: String) -> Broken {
    Broken::Refused(why)
}

/// Runs `jobs` as one transaction and answers each once it committed (or
/// not). Returns false if the connection can no longer be trusted (it
/// broke, or the transaction could not be ended), so the writer opens a
/// new one.
pub(super) async fn run(conn: &Conn, jobs: Vec<WriteJob>, faults: &Faults, node: &Node) -> bool {
    if !node.lease_held() {
        // Its rooms may be another node's by now (or soon): write nothing
        // until a renewal confirms the lease.
        for job in jobs {
            job.refuse(StoreError::Unavailable(
                "this server's lease on its rooms is not confirmed; try again shortly".into(),
            ));
        }
        return true;
    }
    let owner = node.id().to_string();
    let (payloads, answers): (Vec<Payload>, Vec<Answer>) = jobs
        .into_iter()
        .filter_map(|job| match split(job) {
            Ok(parts) => Some(parts),
            Err(job) => {
                job.refuse(StoreError::Corrupt(
                    "a rated end cannot run inside a batch".into(),
                ));
                None
            }
        })
        .unzip();
    let mut results: Vec<Option<Result<Vec<Row>, StoreError>>> =
        payloads.iter().map(|_| None).collect();
    let started = tokio::time::Instant::now();
    let ran = tokio::time::timeout(
        crate::store::postgres::PG_BATCH_TIMEOUT,
        transaction(conn, &payloads, faults, &owner, &mut results),
    )
    .await;
    crate::metrics::commit_took(crate::metrics::StoreKind::Postgres, started.elapsed());
    let (commit, usable) = match ran {
        Ok(Ok(())) => (Ok(()), true),
        Ok(Err(why @ Broken::Refused(_))) => {
            // Nothing of the batch may stay half-applied for the next one.
            let rolled_back = rollback(conn).await;
            (Err(why), rolled_back)
        }
        Ok(Err(why)) => (Err(why), false),
        // It may have timed out waiting for `COMMIT`'s answer.
        Err(_) => (
            Err(Broken::Unconfirmed(format!(
                "no answer from the database within {:?}",
                crate::store::postgres::PG_BATCH_TIMEOUT
            ))),
            false,
        ),
    };
    node.commits.record(match &commit {
        Ok(()) => Ok(()),
        Err(Broken::Refused(why) | Broken::Unconfirmed(why)) => Err(why),
    });
    for (answer, res) in answers.into_iter().zip(results) {
        let res = match &commit {
            Ok(()) => res.unwrap_or_else(|| Err(StoreError::Corrupt("a job was not run".into()))),
            Err(Broken::Refused(why)) => Err(StoreError::Corrupt(format!("commit failed: {why}"))),
            Err(Broken::Unconfirmed(why)) => Err(StoreError::Unconfirmed(why.clone())),
        };
        answer.send(res);
    }
    usable && !conn.client.is_closed()
}

async fn rollback(conn: &Conn) -> bool {
    match conn.client.execute(&conn.statements.rollback, &[]).await {
        Ok(_) => true,
        Err(e) => {
            tracing::debug!(error = %e, "rollback after a failed batch");
            false
        }
    }
}

/// Runs every job inside one transaction and commits it, filling in each
/// job's result; `Err` if the transaction cannot commit.
async fn transaction(
    conn: &Conn,
    payloads: &[Payload],
    faults: &Faults,
    owner: &String,
    results: &mut [Option<Result<Vec<Row>, StoreError>>],
) -> Result<(), Broken> {
    let s = &conn.statements;
    let params: Vec<Result<Params<'_>, StoreError>> = payloads.iter().map(Params::encode).collect();
    // Whether each append fails on purpose, decided once: a job sent again
    // (after a neighbour failed) must not count against the faults twice.
    let mut fails_on_purpose: Vec<Option<bool>> = params.iter().map(|_| None).collect();
    let mut begun = false;
    let mut next = 0;
    while next < params.len() {
        // One round: the jobs from `next` on, up to one failed on purpose.
        let mut calls = Vec::new();
        if !begun {
            calls.push(Call::bare(&s.begin));
        }
        let mut spans = Vec::new();
        let mut end = next;
        while end < params.len() {
            let job = end;
            end += 1;
            let p = match &params[job] {
                Ok(p) => p,
                Err(e) => {
                    // Nothing was sent: nothing to undo.
                    results[job] = Some(Err(StoreError::Corrupt(e.to_string())));
                    continue;
                }
            };
            let injected = *fails_on_purpose[job]
                .get_or_insert_with(|| p.is_append() && faults.check_append().is_err());
            let start = calls.len();
            calls.push(Call::bare(&s.savepoint));
            p.calls(s, owner, &mut calls);
            if !injected {
                calls.push(Call::bare(&s.release));
            }
            spans.push(Span {
                job,
                start,
                len: calls.len() - start,
                injected,
            });
            if injected {
                break;
            }
        }
        let sent: Vec<_> = calls
            .iter()
            .map(|c| conn.client.query(c.statement, &c.params))
            .collect();
        let mut answers: Vec<Option<Result<Vec<Row>, Error>>> =
            in_order(sent).await.into_iter().map(Some).collect();
        if !begun {
            if let Some(Some(Err(e))) = answers.first_mut().map(Option::take) {
                return Err(refused(format!(
                    "cannot start a transaction: {}",
                    with_causes(&e)
                )));
            }
            begun = true;
        }
        next = end;
        for span in spans {
            let mut taken = answers[span.start..span.start + span.len]
                .iter_mut()
                .zip(&calls[span.start..])
                .map(|(a, call)| (a.take().unwrap_or_else(|| Ok(Vec::new())), call.guarded));
            if let Some((Err(e), _)) = taken.next() {
                // The savepoint is missing: whatever ran after this job's
                // start cannot be undone on its own.
                return Err(refused(format!(
                    "cannot open a savepoint: {}",
                    with_causes(&e)
                )));
            }
            let mut first_rows = None;
            let mut failure = None;
            let mut fenced = false;
            for (res, guarded) in taken {
                match res {
                    Ok(rows) => {
                        // A guarded write that found the match no longer
                        // this node's wrote nothing, nor did the rest of
                        // its job (the same guard, under the same lock).
                        fenced |= guarded && rows.is_empty();
                        first_rows.get_or_insert(rows);
                    }
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            match (failure, span.injected) {
                (None, false) if fenced => {
                    crate::metrics::write_fenced();
                    results[span.job] = Some(Err(StoreError::Fenced(
                        "another server has taken the room over".into(),
                    )))
                }
                (None, false) => results[span.job] = Some(Ok(first_rows.unwrap_or_default())),
                (None, true) => {
                    undo(conn).await?;
                    results[span.job] = Some(Err(StoreError::Injected("append")));
                }
                (Some(e), _) => {
                    undo(conn).await?;
                    results[span.job] = Some(Err(e.into()));
                    // The jobs sent after it were refused unrun: again.
                    next = span.job + 1;
                    break;
                }
            }
        }
    }
    if faults.commit_fails() {
        return Err(refused("injected fault".into()));
    }
    if begun {
        conn.client.execute(&s.commit, &[]).await.map_err(|e| {
            // The database answered with a refusal: nothing committed.
            // Without an answer (the connection broke) it may have.
            if e.code().is_some() {
                refused(with_causes(&e))
            } else {
                Broken::Unconfirmed(with_causes(&e))
            }
        })?;
    }
    Ok(())
}

/// Rolls back to the savepoint of the job that just failed and drops it.
async fn undo(conn: &Conn) -> Result<(), Broken> {
    let s = &conn.statements;
    let sent = vec![
        conn.client.query(&s.rollback_to, &[]),
        conn.client.query(&s.release, &[]),
    ];
    for res in in_order(sent).await {
        res.map_err(|e| refused(format!("cannot undo a failed job: {}", with_causes(&e))))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    // Test helpers fail the test by panicking.
    #![allow(clippy::panic)]

    use parlor_games::{GameKind, Outcome, Seat};
    use parlor_protocol::{MatchHeader, RoomId};
    use serde_json::json;
    use tokio::sync::oneshot;

    use super::super::connect::Target;
    use super::super::schema;
    use super::*;
    use crate::store::{MatchKey, MatchRecord, Step};
    use crate::testing::ScratchSchema;

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// The writer's connection and its node.
    struct Db {
        conn: Conn,
        node: Node,
    }

    impl std::ops::Deref for Db {
        type Target = Conn;
        fn deref(&self) -> &Conn {
            &self.conn
        }
    }

    /// The writer's connection on a fresh schema holding one match, and
    /// another connection to look at what was committed.
    async fn db(scratch: &ScratchSchema) -> (Db, Client, MatchKey) {
        let target = ok(Target::parse(&scratch.url()));
        let mut client = ok(target.connect().await);
        ok(schema::prepare(&mut client, &target.schema).await);
        let statements = ok(Statements::prepare(&client).await);
        let node = ok(Node::register(&client, super::super::NodeSettings::default()).await);
        let conn = Db {
            conn: Conn { client, statements },
            node,
        };
        let (reply, answer) = oneshot::channel();
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
            origin: super::super::super::Origin::default(),
        };
        assert!(
            run(
                &conn,
                vec![WriteJob::Create(Box::new(record), reply)],
                &Faults::new(),
                &conn.node
            )
            .await
        );
        let key = ok(ok(answer.await));
        (conn, ok(target.connect().await), key)
    }

    type Answered = oneshot::Receiver<Result<(), StoreError>>;

    fn append_job(
        key: MatchKey,
        seq: u64,
        seat: u8,
        outcome: Option<Outcome>,
    ) -> (WriteJob, Answered) {
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

    /// Runs the jobs as one batch; whether the connection is still usable,
    /// and the jobs' answers in order.
    async fn batch(
        conn: &Db,
        faults: &Faults,
        jobs: Vec<(WriteJob, Answered)>,
    ) -> (bool, Vec<Result<(), StoreError>>) {
        let (jobs, answers): (Vec<_>, Vec<_>) = jobs.into_iter().unzip();
        let usable = run(conn, jobs, faults, &conn.node).await;
        let mut out = Vec::new();
        for a in answers {
            out.push(ok(a.await));
        }
        (usable, out)
    }

    /// (seq, seat) of every committed step of `key`, as another connection sees them.
    async fn stored(other: &Client, key: MatchKey) -> Vec<(i64, i16)> {
        let rows = ok(other
            .query(
                "SELECT seq, seat FROM moves WHERE match_id = $1 ORDER BY seq",
                &[&key.id],
            )
            .await);
        rows.iter().map(|r| (r.get(0), r.get(1))).collect()
    }

    async fn finished(other: &Client, key: MatchKey) -> bool {
        ok(other
            .query_one("SELECT finished FROM matches WHERE id = $1", &[&key.id])
            .await)
        .get(0)
    }

    #[tokio::test]
    async fn a_failed_job_leaves_nothing_while_the_rest_of_its_batch_commits() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let (conn, other, key) = db(&scratch).await;
        let faults = Faults::new();
        // The first append fails after both its statements ran (the step
        // and the outcome that ends the match).
        faults.fail_next_appends(1);
        let (usable, answers) = batch(
            &conn,
            &faults,
            vec![
                append_job(key, 0, 1, Some(Outcome::Draw)),
                // Only takes its place if the failed one left nothing.
                append_job(key, 0, 0, None),
                append_job(key, 1, 1, None),
                // A duplicate (match, seq): the insert itself is refused,
                // and the job sent behind it runs again.
                append_job(key, 1, 0, None),
                append_job(key, 2, 0, None),
            ],
        )
        .await;
        assert!(usable);
        assert!(
            matches!(answers[0], Err(StoreError::Injected(_))),
            "{:?}",
            answers[0]
        );
        assert!(answers[1].is_ok(), "{:?}", answers[1]);
        assert!(answers[2].is_ok(), "{:?}", answers[2]);
        assert!(
            answers[3].as_ref().is_err_and(StoreError::is_duplicate),
            "{:?}",
            answers[3]
        );
        assert!(answers[4].is_ok(), "{:?}", answers[4]);
        assert_eq!(stored(&other, key).await, vec![(0, 0), (1, 1), (2, 0)]);
        assert!(
            !finished(&other, key).await,
            "the failed append's outcome was undone"
        );
        // The connection is out of its transaction: the next batch works.
        let (usable, answers) = batch(&conn, &faults, vec![append_job(key, 3, 1, None)]).await;
        assert!(usable && answers[0].is_ok(), "{answers:?}");
    }

    #[tokio::test]
    async fn a_failed_commit_answers_every_job_with_an_error_and_keeps_nothing() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let (conn, other, key) = db(&scratch).await;
        let faults = Faults::new();
        faults.fail_next_commits(1);
        let jobs = || {
            vec![
                append_job(key, 0, 0, None),
                append_job(key, 1, 1, Some(Outcome::Draw)),
            ]
        };
        let (usable, answers) = batch(&conn, &faults, jobs()).await;
        assert!(
            usable,
            "a refused commit is rolled back, the connection kept"
        );
        for a in &answers {
            assert!(
                matches!(a, Err(StoreError::Corrupt(why)) if why.contains("commit failed")),
                "{a:?}"
            );
        }
        assert_eq!(stored(&other, key).await, vec![]);
        assert!(!finished(&other, key).await);
        // The fault is spent: the same steps now commit.
        let (_, answers) = batch(&conn, &faults, jobs()).await;
        assert!(answers.iter().all(Result::is_ok), "{answers:?}");
        assert_eq!(stored(&other, key).await, vec![(0, 0), (1, 1)]);
        assert!(finished(&other, key).await);
    }

    #[tokio::test]
    async fn a_broken_connection_refuses_the_batch_and_asks_for_a_new_one() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let (conn, other, key) = db(&scratch).await;
        let pid: i32 = ok(conn.client.query_one("SELECT pg_backend_pid()", &[]).await).get(0);
        ok(other
            .execute("SELECT pg_terminate_backend($1)", &[&pid])
            .await);
        let (usable, answers) = batch(
            &conn,
            &Faults::new(),
            vec![append_job(key, 0, 0, None), append_job(key, 1, 1, None)],
        )
        .await;
        assert!(!usable);
        assert!(answers.iter().all(Result::is_err), "{answers:?}");
        assert_eq!(stored(&other, key).await, vec![]);
    }
}
