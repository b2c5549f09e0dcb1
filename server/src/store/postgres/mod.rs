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
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::job::WriteJob;
use super::{Faults, Reply, StoreError, StoreTask, StoredMatch};
use crate::limits::STORE_QUEUE;

mod batch;
mod claim;
mod connect;
mod load;
mod lobby;
mod node;
mod pipeline;
mod reader;
mod routing;
mod schema;
mod statements;
mod writer;

pub(crate) use connect::redacted;
pub use connect::DEFAULT_SCHEMA;
pub use load::{Loaded, Loader};
pub use lobby::{Listing, LobbyQuery};
pub use node::NodeSettings;
pub use routing::{HeldSeat, Whereabouts};

use batch::Conn;
use connect::Target;
use node::Node;

/// Which orphans a claim takes.
#[derive(Debug)]
enum Claim {
    /// This node's share of them all (a sweep).
    Share,
    /// Those in which a resuming player holds a seat.
    Token(String),
    /// The one room a command was for.
    Room(String),
}

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
    unread: Arc<std::sync::Mutex<Vec<i64>>>,
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

    /// This node's id now (it changes when the node loses its lease).
    pub(super) fn node_id(&self) -> Arc<str> {
        self.node.id()
    }

    /// Sees the node's generation grow each time it lost its lease, and
    /// with it every room it held.
    pub(super) fn generations(&self) -> watch::Receiver<u64> {
        self.node.generations()
    }

    /// How many times the node has lost its lease so far.
    pub(super) fn generation(&self) -> u64 {
        self.node.generation()
    }

    /// Whether the lease is surely held now.
    pub(super) fn lease_left(&self) -> std::time::Duration {
        self.node.lease_left()
    }

    pub(super) fn lease_held(&self) -> bool {
        self.node.lease_held()
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

    /// This node's lease.
    pub(super) fn lease(&self) -> std::time::Duration {
        self.node.settings().lease
    }

    /// How often to look for orphaned rooms: as often as the lease is
    /// renewed, so that a dead node's rooms wait little past its lease.
    pub(super) fn claim_every(&self) -> std::time::Duration {
        self.node.settings().renew_every()
    }

    /// Claims this node's share of the orphaned rooms, at a bumped epoch,
    /// and reads each back whole, to be rebuilt.
    pub(super) async fn claim(&self) -> Result<Vec<StoredMatch>, StoreError> {
        self.claiming(Claim::Share).await.map(|(m, _)| m)
    }

    /// Claims room `room` if it is an orphan, and reads it back whole.
    pub(super) async fn claim_room(&self, room: &RoomId) -> Result<Vec<StoredMatch>, StoreError> {
        self.claiming(Claim::Room(room.as_str().to_owned()))
            .await
            .map(|(m, _)| m)
    }

    /// Claims every orphaned room in which `token` holds a seat, and
    /// reads each back whole; with how many unfinished rooms the token
    /// holds a seat in, whoever hosts them.
    pub(super) async fn claim_for(
        &self,
        token: uuid::Uuid,
    ) -> Result<(Vec<StoredMatch>, i64), StoreError> {
        self.claiming(Claim::Token(token.to_string())).await
    }

    async fn claiming(&self, which: Claim) -> Result<(Vec<StoredMatch>, i64), StoreError> {
        if !self.node.lease_held() {
            return Ok((Vec::new(), 0));
        }
        let me = self.node.id();
        let claiming = async {
            let mut client = self.pool.get().await.map_err(reader::pool_error)?;
            let tx = client.transaction().await?;
            let (taken, total) = match &which {
                Claim::Share => {
                    let share = claim::share(&*tx).await?;
                    (claim::take(&*tx, &me, share).await?, 0)
                }
                Claim::Token(token) => (
                    claim::take_for(&*tx, &me, token).await?,
                    claim::unfinished_for(&*tx, token).await?,
                ),
                Claim::Room(room) => (claim::take_room(&*tx, &me, room).await?, 0),
            };
            tx.commit().await?;
            Ok::<_, StoreError>((taken, total))
        };
        let (taken, total) = tokio::time::timeout(crate::limits::PG_BATCH_TIMEOUT, claiming)
            .await
            .map_err(|_| StoreError::Unavailable("claiming rooms took too long".into()))??;
        // Taken out of `unread` here: a sweep and a resume claiming at
        // once must never both read back (and host) the same room.
        let ids: Vec<i64> = {
            let mut unread = self
                .unread
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            unread.extend(taken.iter().map(|(id, _)| *id));
            std::mem::take(&mut *unread)
        };
        if ids.is_empty() {
            return Ok((Vec::new(), total));
        }
        if !taken.is_empty() {
            crate::metrics::rooms_claimed(taken.len() as u64);
            tracing::info!(node = %me, rooms = taken.len(), "claimed orphaned rooms");
        }
        let read = reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::by_id(tx, &ids).await
        })
        .await;
        match read {
            Ok(read) => Ok((read, total)),
            Err(e) => {
                // Read on the next claim.
                self.unread
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .extend(ids);
                Err(e)
            }
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

    /// Where `room` is, for a node that does not host it.
    pub(super) async fn whereabouts(&self, room: &RoomId) -> Result<Whereabouts, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            routing::whereabouts(&**tx, room.as_str()).await
        })
        .await
    }

    /// The seats `token` holds in unfinished matches, wherever they are.
    pub(super) async fn held_seats(&self, token: uuid::Uuid) -> Result<Vec<HeldSeat>, StoreError> {
        let token = token.to_string();
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            routing::seats_of(&**tx, &token).await
        })
        .await
    }

    /// Publishes room listings this node owns (fenced ones are skipped).
    pub(super) async fn publish_listings(
        &self,
        rows: &[Listing],
        forget_before_ms: Option<i64>,
    ) -> Result<u64, StoreError> {
        lobby::publish(&self.pool, &self.node.id(), rows, forget_before_ms).await
    }

    /// One page of the cluster's public rooms.
    pub(super) async fn lobby(
        &self,
        q: &LobbyQuery<'_>,
    ) -> Result<Vec<parlor_protocol::RoomSummary>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            lobby::page(&**tx, q).await
        })
        .await
    }

    /// The schema the tables live in: the cluster's name on the bus.
    pub(super) fn schema(&self) -> &str {
        &self.schema
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
