//! This node's place in the cluster: its row in `nodes`, and the lease
//! that row holds.
//!
//! A node owns rooms only while its lease is fresh. The lease is renewed
//! on a connection of its own, with the database's clock (`now()`), so
//! the nodes' clocks never have to agree. Renewal only extends a lease
//! that has not run out: a node that was paused or cut off past its
//! lease finds its row expired, and then never re-arms it. It takes a new
//! id ([`Node::id`] changes, [`Node::generation`] grows), so every room it
//! held is fenced (their rows name the old id) and can be claimed, by the
//! others or by itself, at a higher epoch.
//!
//! The node also keeps a deadline of its own, on its monotonic clock: the
//! time of the last renewal it sent and got an answer to, plus the lease,
//! less a margin. Past it ([`Node::lease_held`] false) it writes and
//! claims nothing until a renewal succeeds: a node cut off from the
//! database stops before the others can have claimed its rooms.

use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use tokio_postgres::Client;
use uuid::Uuid;

use super::super::connect::Target;
use crate::limits::DEFAULT_LEASE;
use crate::store::health::CommitHealth;
use crate::store::StoreError;

/// The shortest lease allowed: below this, a renewal's round trip and
/// the database's own pauses are a real part of the lease.
pub(super) const MIN_LEASE: std::time::Duration = std::time::Duration::from_millis(200);

/// Renewals per lease: one that fails still leaves several more before
/// the lease runs out.
pub(super) const LEASE_RENEWALS: u32 = 5;

/// A node stops writing `1 / LEASE_MARGIN_PARTS` of a lease before its
/// own reckoning of the deadline, so that it stops before the database's
/// clock lets another node claim its rooms.
pub(super) const LEASE_MARGIN_PARTS: u32 = 5;

/// How a node takes part in a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSettings {
    /// How long a node's rooms stay its own without a renewal: after a
    /// crash, its rooms are claimed by the others this long after its last
    /// renewal. Renewed `LEASE_RENEWALS` times per lease.
    pub lease: Duration,
    /// The address clients can reach this node at (`ws://host:port`),
    /// kept in `nodes.url` for operators and smart clients.
    pub advertise: String,
}

impl Default for NodeSettings {
    fn default() -> Self {
        NodeSettings {
            lease: DEFAULT_LEASE,
            advertise: String::new(),
        }
    }
}

impl NodeSettings {
    /// Refuses a lease too short to renew over a real network.
    pub fn check(&self) -> Result<(), StoreError> {
        if self.lease < MIN_LEASE {
            return Err(StoreError::Settings(format!(
                "the lease must be at least {MIN_LEASE:?}"
            )));
        }
        Ok(())
    }

    /// How often the lease is renewed.
    pub fn renew_every(&self) -> Duration {
        self.lease / LEASE_RENEWALS
    }

    /// How long before the database's deadline the node stops by itself.
    fn margin(&self) -> Duration {
        self.lease / LEASE_MARGIN_PARTS
    }

    fn lease_ms(&self) -> i64 {
        i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX)
    }
}

/// The node as the rest of the store sees it.
#[derive(Debug)]
pub(crate) struct Node {
    settings: NodeSettings,
    id: RwLock<Arc<str>>,
    /// When the lease is no longer surely held (see the module doc).
    held_until: Mutex<Instant>,
    /// Grows each time the node loses its lease and takes a new id.
    generation: watch::Sender<u64>,
    /// How the writer's last commit went (for `/healthz`).
    pub(in crate::store::postgres) commits: CommitHealth,
}

fn fresh_id() -> Arc<str> {
    Arc::from(Uuid::new_v4().simple().to_string())
}

impl Node {
    /// Registers a new node on `client` with a fresh lease.
    pub(in crate::store::postgres) async fn register(
        client: &Client,
        settings: NodeSettings,
    ) -> Result<Node, StoreError> {
        settings.check()?;
        let node = Node {
            id: RwLock::new(fresh_id()),
            held_until: Mutex::new(Instant::now()),
            generation: watch::Sender::new(0),
            commits: CommitHealth::default(),
            settings,
        };
        node.insert(client).await?;
        Ok(node)
    }

    /// This node's id now.
    pub(crate) fn id(&self) -> Arc<str> {
        Arc::clone(&self.id.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Its settings.
    pub(crate) fn settings(&self) -> &NodeSettings {
        &self.settings
    }

    /// How long the lease is surely held from now (zero: not surely).
    pub(crate) fn lease_left(&self) -> std::time::Duration {
        self.held_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .saturating_duration_since(Instant::now())
    }

    /// Whether the lease is surely still held.
    pub(crate) fn lease_held(&self) -> bool {
        Instant::now()
            < *self
                .held_until
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
    }

    /// This node's id now and the lease generation it belongs to, read
    /// together: a claim made under that id holds its rooms for that
    /// generation only.
    pub(crate) fn id_and_generation(&self) -> (Arc<str>, u64) {
        let id = self.id.read().unwrap_or_else(PoisonError::into_inner);
        (Arc::clone(&id), *self.generation.borrow())
    }

    /// How many times the node has lost its lease so far.
    pub(crate) fn generation(&self) -> u64 {
        *self.generation.borrow()
    }

    /// A receiver that sees the generation grow each time the node lost
    /// its lease (and so every room it held).
    pub(crate) fn generations(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    fn held_from(&self, sent: Instant) {
        let until = sent + self.settings.lease - self.settings.margin();
        let mut held = self
            .held_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if until > *held {
            *held = until;
        }
    }

    /// Writes this node's row under its current id.
    async fn insert(&self, client: &Client) -> Result<(), StoreError> {
        crate::logs::set_node(self.id());
        let sent = Instant::now();
        client
            .execute(
                "INSERT INTO nodes (id, url, lease_until) \
                 VALUES ($1, $2, now() + $3::bigint * interval '1 millisecond')",
                &[
                    &&*self.id(),
                    &self.settings.advertise,
                    &self.settings.lease_ms(),
                ],
            )
            .await?;
        self.held_from(sent);
        Ok(())
    }

    /// Extends the lease if it has not run out. `Ok(false)`: it had, and
    /// the node has given up its old id for a new one.
    pub(in crate::store::postgres) async fn renew(
        &self,
        client: &Client,
    ) -> Result<bool, StoreError> {
        let sent = Instant::now();
        let renewed = client
            .query_opt(
                "UPDATE nodes SET lease_until = now() + $2::bigint * interval '1 millisecond' \
                 WHERE id = $1 AND lease_until > now() RETURNING id",
                &[&&*self.id(), &self.settings.lease_ms()],
            )
            .await?;
        if renewed.is_some() {
            self.held_from(sent);
            return Ok(true);
        }
        let old = {
            // The id and its generation change together (see
            // `id_and_generation`).
            let mut id = self.id.write().unwrap_or_else(PoisonError::into_inner);
            let old = std::mem::replace(&mut *id, fresh_id());
            *self
                .held_until
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Instant::now();
            self.generation.send_modify(|g| *g += 1);
            old
        };
        tracing::warn!(old = %old, new = %self.id(), "this node's lease ran out; its rooms are given up");
        self.insert(client).await?;
        Ok(false)
    }

    /// Gives up the lease at once (a clean stop): the node's rooms can be
    /// claimed without waiting for it to run out.
    pub(in crate::store::postgres) async fn retire(
        &self,
        client: &Client,
    ) -> Result<(), StoreError> {
        *self
            .held_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
        client
            .execute(
                "UPDATE nodes SET lease_until = now() WHERE id = $1",
                &[&&*self.id()],
            )
            .await?;
        Ok(())
    }
}

/// Renews `node`'s lease until `stop`, on a connection of its own
/// (reopened when it breaks).
pub(in crate::store::postgres) async fn keep_lease(
    node: Arc<Node>,
    target: Target,
    mut client: Option<Client>,
    stop: tokio_util::sync::CancellationToken,
) {
    let every = node.settings.renew_every();
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
        let c = match client.take() {
            Some(c) if !c.is_closed() => c,
            _ => match target.connect().await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot reach the database to renew the lease");
                    continue;
                }
            },
        };
        match tokio::time::timeout(every, node.renew(&c)).await {
            Ok(Ok(_)) => client = Some(c),
            Ok(Err(e)) => tracing::warn!(error = %e, "renewing the lease failed"),
            Err(_) => tracing::warn!("renewing the lease took longer than {every:?}"),
        }
    }
}
