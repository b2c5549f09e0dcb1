//! The writer task: the only connection that writes. Jobs arrive on a
//! bounded queue; the task takes all that are waiting (up to
//! [`STORE_BATCH`]), runs them as one transaction (`batch`) and only then
//! answers each, so a step is acknowledged only once it is committed, and
//! many rooms share one commit under load.
//!
//! Unlike SQLite's writer it does not wait for jobs to gather: a commit is
//! a round trip to another process, during which the next batch queues up
//! by itself.
//!
//! A connection that broke (the database restarted, a batch timed out) is
//! dropped, and the next batch opens a new one: while the database is
//! down every job is answered with an error at once, and writes resume by
//! themselves when it is back.

use tokio::sync::mpsc;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::super::job::WriteJob;
use super::super::{Faults, StoreError};
use super::batch::{self, Conn};
use super::cluster::claim;
use super::cluster::node::Node;
use super::connect::Target;
use super::connect::PG_CONNECT_TIMEOUT;
use super::statements::Statements;
use crate::store::STORE_BATCH;

impl Conn {
    /// Opens the writer's connection and prepares its statements, within
    /// [`PG_CONNECT_TIMEOUT`] in all: a database that accepts connections
    /// but does not answer must not hold the writer.
    pub(super) async fn open(target: &Target) -> Result<Conn, StoreError> {
        let opening = async {
            let client = target.connect().await?;
            let statements = Statements::prepare(&client).await?;
            Ok(Conn { client, statements })
        };
        tokio::time::timeout(PG_CONNECT_TIMEOUT, opening)
            .await
            .map_err(|_| {
                StoreError::Unavailable(format!(
                    "no answer from the database within {PG_CONNECT_TIMEOUT:?}"
                ))
            })?
    }
}

/// Serves jobs until every sender is gone; `conn` is the connection the
/// store was opened with. Then, the server stopping cleanly (its rooms
/// have stopped), hands the node's rooms over and ends its lease (and the
/// task renewing it, through `lease`).
pub(super) async fn run(
    target: Target,
    mut jobs: mpsc::Receiver<WriteJob>,
    faults: Faults,
    conn: Conn,
    node: Arc<Node>,
    lease: CancellationToken,
) {
    let mut conn = Some(conn);
    let mut batch = Vec::with_capacity(STORE_BATCH);
    while jobs.recv_many(&mut batch, STORE_BATCH).await > 0 {
        let jobs = std::mem::replace(&mut batch, Vec::with_capacity(STORE_BATCH));
        let open = match conn.take() {
            Some(c) if !c.client.is_closed() => Ok(c),
            _ => Conn::open(&target).await,
        };
        match open {
            Ok(c) => {
                if run_in_order(&c, jobs, &faults, &node).await {
                    conn = Some(c);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "the database cannot be reached; refusing writes");
                let why = e.to_string();
                for job in jobs {
                    job.refuse(StoreError::Unavailable(why.clone()));
                }
            }
        }
    }
    lease.cancel();
    let handing_over = async {
        let c = match conn.take() {
            Some(c) if !c.client.is_closed() => c,
            _ => Conn::open(&target).await?,
        };
        let released = claim::release(&c.client, &node.id()).await?;
        node.retire(&c.client).await?;
        Ok::<u64, StoreError>(released)
    };
    match tokio::time::timeout(PG_CONNECT_TIMEOUT, handing_over).await {
        Ok(Ok(released)) => tracing::info!(node = %node.id(), released, "rooms handed over"),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "cannot hand the rooms over; they are claimed once the lease runs out")
        }
        Err(_) => tracing::warn!(
            "handing the rooms over took too long; they are claimed once the lease runs out"
        ),
    }
    tracing::debug!(schema = %target.schema, "store closed");
}

/// Runs `jobs` in order: those a batch takes together, and each rated
/// end or void as a transaction of its own between them. Returns false if the
/// connection can no longer be trusted (the jobs after it are refused).
async fn run_in_order(c: &Conn, jobs: Vec<WriteJob>, faults: &Faults, node: &Node) -> bool {
    let mut plain = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter();
    while let Some(job) = jobs.next() {
        if !matches!(job, WriteJob::Rated { .. } | WriteJob::Void(..)) {
            plain.push(job);
            continue;
        }
        let usable = (plain.is_empty()
            || batch::run(c, std::mem::take(&mut plain), faults, node).await)
            && match job {
                WriteJob::Void(void, reply) => super::ratings::run_void(c, &void, reply).await,
                rated => super::ratings::run(c, rated, faults, node).await,
            };
        if !usable {
            for rest in plain.into_iter().chain(jobs) {
                rest.refuse(StoreError::Unavailable(
                    "the connection to the database broke; try again".into(),
                ));
            }
            return false;
        }
    }
    plain.is_empty() || batch::run(c, plain, faults, node).await
}

#[cfg(test)]
mod tests {
    // Test helpers fail the test by panicking.
    #![allow(clippy::panic)]

    use parlor_games::Seat;
    use parlor_protocol::{LogEntry, LoggedAction, RoomId};
    use serde_json::json;

    use super::super::super::Store;
    use crate::testing::{nimrod_record, ScratchSchema};

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn step(seq: u64) -> LogEntry {
        LogEntry {
            seq,
            seat: Seat((seq % 2) as u8),
            action: LoggedAction::Move(json!({ "take": [0, 1] })),
        }
    }

    /// Ends every connection the store has open, as a database restart would.
    async fn kill_connections(scratch: &ScratchSchema) {
        let (admin, conn) = ok(tokio_postgres::connect(
            &crate::testing::postgres_url(),
            tokio_postgres::NoTls,
        )
        .await);
        tokio::spawn(conn);
        let killed = ok(admin
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                &[&scratch.name()],
            )
            .await);
        assert!(!killed.is_empty(), "the store had connections");
    }

    #[tokio::test]
    async fn lost_connections_refuse_moves_until_new_ones_are_opened() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let (store, task) = ok(Store::open(&scratch.config()).await);
        let room = RoomId::new("aaaaaaaaaaaa").unwrap_or_else(|| panic!("room id"));
        let key = ok(store.create_match(nimrod_record(room.clone())).await);
        ok(store.append(key, step(0), None, None).await);
        ok(store.log(room.clone()).await);
        kill_connections(&scratch).await;
        // A move whose connection broke is refused; the next batch opens a
        // new connection and the same move is stored.
        let mut refused = 0;
        while store.append(key, step(1), None, None).await.is_err() {
            refused += 1;
            assert!(refused < 3, "the writer did not reconnect");
        }
        let mut log = store.log(room.clone()).await;
        if log.is_err() {
            // The pool noticed its connection was gone; the next read gets a new one.
            log = store.log(room.clone()).await;
        }
        let log = ok(log).unwrap_or_else(|| panic!("no log"));
        assert_eq!(log.moves, vec![step(0), step(1)]);
        drop(store);
        ok(task.finished().await);
    }
}
