//! The scheduler every node runs: each tick it takes the lease of each
//! event with work to do that no other node holds, and steps it. The
//! ladder's own tick starts beside it.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{now_ms, Events};

/// How often events are stepped: a finished game's next round is paired
/// within about this long.
pub const EVENT_TICK: Duration = Duration::from_secs(1);

/// How long a node's hold on an event lasts unrenewed: several ticks, so
/// that a busy node keeps it, and short enough that another node carries
/// on soon after one dies.
pub const EVENT_LEASE_MS: u64 = 10_000;

impl Events {
    /// Starts the scheduler on `tracker` until `shutdown`.
    pub fn start(self: &Arc<Self>, tracker: &TaskTracker, shutdown: CancellationToken) {
        self.ladder.start(tracker, shutdown.clone());
        let events = Arc::clone(self);
        tracker.spawn(async move {
            let mut tick = tokio::time::interval(EVENT_TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tick.tick() => events.tick().await,
                }
            }
            // A node stopping in order lets another carry its events on at
            // once, rather than after the lease runs out.
            if let Err(e) = events.store.release(&events.node()).await {
                tracing::warn!(error = %e, "the events' leases could not be released");
            }
        });
    }

    /// This node's name for leases: its cluster name, or the one
    /// process on a SQLite file.
    fn node(&self) -> String {
        self.log
            .cluster()
            .map_or_else(|| "local".to_owned(), |c| c.node_id().to_string())
    }

    async fn tick(&self) {
        let now = now_ms();
        let due = match self.store.due(now).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "the events due could not be read");
                return;
            }
        };
        let node = self.node();
        for id in due {
            match self
                .store
                .lease(&id, &node, now, now.saturating_add(EVENT_LEASE_MS))
                .await
            {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(event = %id, error = %e, "an event's lease could not be taken");
                    continue;
                }
            }
            let stepped = match self.store.get(&id).await {
                Ok(Some(stored)) => self.advance(stored, now).await,
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            };
            if let Err(e) = stepped {
                tracing::warn!(event = %id, error = %e, "an event could not be stepped");
            }
        }
    }
}
