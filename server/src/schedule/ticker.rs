//! The leased ticker tournaments and the ladder both run, one per
//! service on every node: a tick at a fixed period (a tick that comes
//! late is delayed, not bunched up), in which the service steps the rows
//! of its leased table that this node holds or can take; when the server
//! stops, the node gives its leases up, so that another node carries on
//! at once rather than after they run out.

use std::future::Future;
use std::time::Duration;

use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use super::lease::LeasedTable;
use crate::store::{Beside, Store, StoreError};

/// The name a node takes leases under when it is the one process on a
/// SQLite file (in a cluster it is the node's id).
pub const LOCAL_NODE: &str = "local";

/// One node's leases on the rows of one table: what a tick takes a row
/// with before stepping it.
#[derive(Clone, Debug)]
pub struct Leases {
    db: Beside,
    table: LeasedTable,
    node: String,
    hold_ms: u64,
}

impl Leases {
    /// This node's leases on `table` in `log`'s database, each lasting
    /// `hold_ms` unrenewed.
    pub fn new(log: &Store, table: LeasedTable, hold_ms: u64) -> Self {
        Leases {
            db: log.beside(),
            table,
            node: log
                .cluster()
                .map_or_else(|| LOCAL_NODE.to_owned(), |c| c.node_id().to_string()),
            hold_ms,
        }
    }

    /// This node's name for leases: its cluster id, or [`LOCAL_NODE`].
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Takes (or keeps) the lease on row `id` at `now_ms` for this node,
    /// unless another node holds one; whether this node holds it now.
    pub async fn take(&self, id: &str, now_ms: u64) -> Result<bool, StoreError> {
        self.table
            .take(
                &self.db,
                id,
                &self.node,
                now_ms,
                now_ms.saturating_add(self.hold_ms),
            )
            .await
    }

    /// Gives up every lease this node holds on the table.
    pub async fn release(&self) -> Result<(), StoreError> {
        self.table.release_all(&self.db, &self.node).await
    }
}

/// The work a service does on each tick.
pub trait Tick: Send + Sync {
    /// One tick: step the rows with work to do whose lease `leases` takes.
    fn tick(&self, leases: &Leases) -> impl Future<Output = ()> + Send;
}

/// A tick every `period` under one table's leases (see the module docs).
#[derive(Debug)]
pub struct LeasedTicker {
    period: Duration,
    leases: Leases,
}

impl LeasedTicker {
    /// Ticks every `period`, taking rows with `leases`.
    pub fn new(period: Duration, leases: Leases) -> Self {
        LeasedTicker { period, leases }
    }

    /// Ticks `work` until `shutdown`, then releases the leases.
    pub async fn run(self, work: &impl Tick, shutdown: CancellationToken) {
        let mut tick = tokio::time::interval(self.period);
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tick.tick() => work.tick(&self.leases).await,
            }
        }
        // A node stopping in order lets another carry its rows on at once,
        // rather than after the leases run out.
        if let Err(e) = self.leases.release().await {
            tracing::warn!(table = self.leases.table.table, error = %e, "the leases could not be released");
        }
    }
}
