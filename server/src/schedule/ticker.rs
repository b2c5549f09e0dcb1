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
        let node = log
            .cluster()
            .map_or_else(|| LOCAL_NODE.to_owned(), |c| c.node_id().to_string());
        Leases::on(log.beside(), table, node, hold_ms)
    }

    fn on(db: Beside, table: LeasedTable, node: String, hold_ms: u64) -> Self {
        Leases {
            db,
            table,
            node,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::{Arc, Mutex};

    use rusqlite::Connection;

    use super::*;

    const TABLE: LeasedTable = LeasedTable {
        table: "things",
        key: "id",
    };

    /// How long the test's leases last: far longer than the test.
    const HOLD_MS: u64 = 60_000;

    /// Ticks it saw; each takes the lease on row `a`.
    #[derive(Debug, Default)]
    struct Counter(AtomicU32);

    impl Tick for Counter {
        async fn tick(&self, leases: &Leases) {
            let held = leases.take("a", 1_000).await.unwrap_or(false);
            assert!(held, "the only node takes the lease");
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn db() -> Beside {
        let conn = Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(
            "CREATE TABLE things (id TEXT PRIMARY KEY, lease_node TEXT, lease_until_ms INTEGER NOT NULL DEFAULT 0);
             INSERT INTO things (id) VALUES ('a');",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        Beside::Sqlite(Arc::new(Mutex::new(conn)))
    }

    #[tokio::test]
    async fn ticks_until_shutdown_then_gives_its_leases_up() {
        let db = db();
        let mine = Leases::on(db.clone(), TABLE, "n1".to_owned(), HOLD_MS);
        let other = Leases::on(db, TABLE, "n2".to_owned(), HOLD_MS);
        let work = Arc::new(Counter::default());
        let shutdown = CancellationToken::new();
        let ticker = LeasedTicker::new(Duration::from_millis(5), mine);
        let run = tokio::spawn({
            let (work, shutdown) = (Arc::clone(&work), shutdown.clone());
            async move { ticker.run(&*work, shutdown).await }
        });
        let three_ticks = async {
            while work.0.load(Ordering::SeqCst) < 3 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), three_ticks)
            .await
            .unwrap_or_else(|_| panic!("the ticker did not tick"));
        // Held while it runs: another node waits.
        assert!(!other.take("a", 2_000).await.unwrap_or(true));
        shutdown.cancel();
        run.await.unwrap_or_else(|e| panic!("{e}"));
        // Given up on the way out: taken at once, long before it ran out.
        assert!(other.take("a", 2_000).await.unwrap_or(false));
    }
}
