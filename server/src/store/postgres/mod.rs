//! The Postgres backend (`--cluster postgres://...`): the same log as
//! SQLite's, in a database that several nodes can share.
//!
//! A writer task owns the only connection that writes (`writer`): it takes
//! every queued job, runs them in one transaction, each in a savepoint of
//! its own (`batch`), and answers each only after `COMMIT`, so a move is
//! acknowledged only once the database has it. Reads run on a small pool
//! of other connections (`reader`). The tables live in a schema of their
//! own (`connect`), created and migrated at start-up (`schema`). How
//! durable a commit is, is the database's setting (`synchronous_commit`,
//! replication), not the server's.

use deadpool_postgres::Pool;
use parlor_protocol::{MatchLog, RoomId};
use tokio::sync::{mpsc, oneshot};

use super::job::WriteJob;
use super::{Faults, Reply, StoreError, StoreTask, StoredMatch};
use crate::limits::STORE_QUEUE;

mod batch;
mod connect;
mod pipeline;
mod reader;
mod schema;
mod statements;
mod writer;

pub(crate) use connect::redacted;
pub use connect::DEFAULT_SCHEMA;

use batch::Conn;
use connect::Target;

/// A handle on a Postgres store; cheap to clone. The writer task ends
/// once the last handle is dropped and the jobs queued before are
/// committed.
#[derive(Clone, Debug)]
pub(super) struct PgStore {
    writes: mpsc::Sender<WriteJob>,
    pool: Pool,
    faults: Faults,
}

impl PgStore {
    /// Connects to the database at `url`, brings its schema to the
    /// current layout and starts the writer task.
    pub(super) async fn open(
        url: &str,
        faults: Faults,
    ) -> Result<(PgStore, StoreTask), StoreError> {
        let target = Target::parse(url)?;
        let mut client = target.connect().await?;
        schema::prepare(&mut client, &target.schema).await?;
        let statements = statements::Statements::prepare(&client).await?;
        let pool = target.pool()?;
        let (writes, jobs) = mpsc::channel(STORE_QUEUE);
        let conn = Conn { client, statements };
        let task = tokio::spawn(writer::run(target, jobs, faults.clone(), conn));
        Ok((
            PgStore {
                writes,
                pool,
                faults,
            },
            StoreTask::task(task),
        ))
    }

    /// Queues a job for the writer and waits for its answer.
    pub(super) async fn write<T>(
        &self,
        job: impl FnOnce(Reply<T>) -> WriteJob,
    ) -> Result<T, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.writes
            .send(job(reply))
            .await
            .map_err(|_| StoreError::Closed)?;
        answer.await.map_err(|_| StoreError::Closed)?
    }

    pub(super) async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::unfinished(tx).await
        })
        .await
    }

    pub(super) async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::log(tx, &room).await
        })
        .await
    }
}
