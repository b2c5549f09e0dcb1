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

use super::super::job::WriteJob;
use super::super::{Faults, StoreError};
use super::batch::{self, Conn};
use super::connect::Target;
use super::statements::Statements;
use crate::limits::STORE_BATCH;

impl Conn {
    /// Opens the writer's connection and prepares its statements.
    pub(super) async fn open(target: &Target) -> Result<Conn, StoreError> {
        let client = target.connect().await?;
        let statements = Statements::prepare(&client).await?;
        Ok(Conn { client, statements })
    }
}

/// Serves jobs until every sender is gone; `conn` is the connection the
/// store was opened with.
pub(super) async fn run(
    target: Target,
    mut jobs: mpsc::Receiver<WriteJob>,
    faults: Faults,
    conn: Conn,
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
                if batch::run(&c, jobs, &faults).await {
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
    tracing::debug!(schema = %target.schema, "store closed");
}
