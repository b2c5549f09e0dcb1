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

use std::sync::Arc;

use deadpool_postgres::Pool;
use parlor_protocol::{MatchLog, RoomId};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::job::WriteJob;
use super::{Faults, Reply, StoreError, StoreTask, StoredMatch};
use crate::store::STORE_QUEUE;

mod batch;
mod cluster;
mod connect;
mod load;
mod payload;
mod pipeline;
pub(super) mod ratings;
mod reader;
mod schema;
mod statements;
mod writer;

pub use cluster::{HeldSeat, Listing, LobbyQuery, NodeSettings, Whereabouts};
pub(crate) use connect::redacted;
pub use connect::DEFAULT_SCHEMA;
pub use load::{Loaded, Loader};

use batch::Conn;
use cluster::node::{self, Node};
use connect::Target;

/// How long one batch of writes may take, from `BEGIN` to `COMMIT`. Commits
/// take milliseconds; a database that stops answering must not hold every
/// room's moves for ever: past this the batch is answered with errors and
/// its connection dropped (the next batch opens a new one).
pub(super) const PG_BATCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A handle on a Postgres store; cheap to clone. The writer task ends
/// once the last handle is dropped and the jobs queued before are
/// committed.
#[derive(Clone, Debug)]
pub(super) struct PgStore {
    writes: mpsc::Sender<WriteJob>,
    pool: Pool,
    faults: Faults,
    node: Arc<Node>,
    /// Matches claimed but not yet read back (the read failed): read on
    /// the next claim, so that no claimed room is left unhosted.
    unread: Arc<std::sync::Mutex<Vec<(i64, u64)>>>,
    /// The schema the tables live in.
    schema: Arc<str>,
}

impl PgStore {
    /// Connects to the database at `url`, brings its schema to the
    /// current layout, registers this node with a fresh lease, and starts
    /// the writer task and the task that renews the lease.
    pub(super) async fn open(
        url: &str,
        settings: &NodeSettings,
        faults: Faults,
    ) -> Result<(PgStore, StoreTask), StoreError> {
        settings.check()?;
        let target = Target::parse(url)?;
        let mut client = target.connect().await?;
        schema::prepare(&mut client, &target.schema).await?;
        let statements = statements::Statements::prepare(&client).await?;
        let lease_client = target.connect().await?;
        let node = Arc::new(Node::register(&lease_client, settings.clone()).await?);
        let pool = target.pool()?;
        let schema: Arc<str> = Arc::from(target.schema.as_str());
        let (writes, jobs) = mpsc::channel(STORE_QUEUE);
        let conn = Conn { client, statements };
        let lease = CancellationToken::new();
        tokio::spawn(node::keep_lease(
            Arc::clone(&node),
            target.clone(),
            Some(lease_client),
            lease.clone(),
        ));
        let task = tokio::spawn(writer::run(
            target,
            jobs,
            faults.clone(),
            conn,
            Arc::clone(&node),
            lease,
        ));
        tracing::info!(node = %node.id(), lease = ?settings.lease, "joined the cluster");
        Ok((
            PgStore {
                writes,
                pool,
                faults,
                node,
                unread: Arc::default(),
                schema,
            },
            StoreTask::task(task),
        ))
    }

    /// Why the node cannot serve now, if it cannot (see `Store::health`).
    pub(super) fn health(&self) -> Result<(), String> {
        if !self.node.lease_held() {
            return Err(format!(
                "node {} does not hold its lease (it was not renewed in time, or ran out)",
                self.node.id()
            ));
        }
        match self.node.commits.failure() {
            Some(why) => Err(format!("the last commit failed: {why}")),
            None => Ok(()),
        }
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

    /// The connection pool (the account tables use it too).
    pub(super) fn pool(&self) -> Pool {
        self.pool.clone()
    }

    pub(super) async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::unfinished(tx).await
        })
        .await
    }

    /// Runs `read` in a read-only snapshot on a pooled connection.
    pub(super) async fn snapshot<T>(
        &self,
        read: impl AsyncFnOnce(&deadpool_postgres::Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        reader::snapshot(&self.pool, &self.faults, read).await
    }

    pub(super) async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::log(tx, &room).await
        })
        .await
    }

    pub(super) async fn played_by(
        &self,
        account_key: String,
    ) -> Result<Vec<super::PlayedMatch>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::played_by(tx, &account_key).await
        })
        .await
    }

    pub(super) async fn games_of(
        &self,
        account_key: String,
        limit: usize,
    ) -> Result<Vec<super::AccountGame>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::games_of(tx, &account_key, limit).await
        })
        .await
    }
}

/// A pool on the cluster's database at `url` (as given to `--cluster`),
/// its schema brought to this server's layout as a node would: for the
/// server's tools (`parlor-server accounts role`), which run beside the
/// nodes with plain statements.
pub(super) async fn tool_pool(url: &str) -> Result<Pool, StoreError> {
    let target = Target::parse(url)?;
    let mut client = target.connect().await?;
    schema::prepare(&mut client, &target.schema).await?;
    target.pool()
}
