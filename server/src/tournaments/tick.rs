//! The tournaments' tick, run by every node on the shared
//! [`LeasedTicker`]: each tick it takes the lease of each event with work
//! to do that no other node holds, and steps it.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::store::EVENTS;
use super::{now_ms, Tournaments};
use crate::schedule::{LeasedTicker, Leases, Tick};

/// How often events are stepped: a finished game's next round is paired
/// within about this long.
pub const EVENT_TICK: Duration = Duration::from_secs(1);

/// How long a node's hold on an event lasts unrenewed: several ticks, so
/// that a busy node keeps it, and short enough that another node carries
/// on soon after one dies.
pub const EVENT_LEASE_MS: u64 = 10_000;

impl Tournaments {
    /// Starts the tournaments' tick on `tracker` until `shutdown`.
    pub fn start(self: &Arc<Self>, tracker: &TaskTracker, shutdown: CancellationToken) {
        let ticker = LeasedTicker::new(EVENT_TICK, Leases::new(&self.log, EVENTS, EVENT_LEASE_MS));
        let tournaments = Arc::clone(self);
        tracker.spawn(async move { ticker.run(&*tournaments, shutdown).await });
    }
}

impl Tick for Tournaments {
    async fn tick(&self, leases: &Leases) {
        let now = now_ms();
        let due = match self.store.due(now).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "the events due could not be read");
                return;
            }
        };
        for id in due {
            match leases.take(&id, now).await {
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
