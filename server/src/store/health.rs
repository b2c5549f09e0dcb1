//! How the writer's last commit went, for `/healthz`: known without a
//! round trip to the database, since every batch already makes one.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// How long a failed commit keeps the node reported as unable to serve
/// when no later commit succeeded: long enough for a load balancer
/// polling every few seconds to see it, short enough that a node whose
/// database recovered while nobody wrote is not kept out for long.
pub const FAILURE_SHOWN_FOR: Duration = Duration::from_secs(10);

/// The last failed commit, cleared by the next one that succeeds.
#[derive(Debug, Default)]
pub(crate) struct CommitHealth {
    failed: Mutex<Option<(Instant, String)>>,
}

impl CommitHealth {
    /// Records how a batch's commit went (`Err`: why it failed).
    pub(crate) fn record(&self, commit: Result<(), &str>) {
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        *failed = commit.err().map(|why| (Instant::now(), why.to_owned()));
    }

    /// Why the last commit failed, if it did within
    /// [`FAILURE_SHOWN_FOR`] and none succeeded since.
    pub(crate) fn failure(&self) -> Option<String> {
        let failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        failed
            .as_ref()
            .filter(|(at, _)| at.elapsed() < FAILURE_SHOWN_FOR)
            .map(|(_, why)| why.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_failure_shows_until_a_success_or_for_a_while() {
        let h = CommitHealth::default();
        assert_eq!(h.failure(), None);
        h.record(Err("disk full"));
        assert_eq!(h.failure().as_deref(), Some("disk full"));
        h.record(Ok(()));
        assert_eq!(h.failure(), None);
        h.record(Err("disk full"));
        tokio::time::advance(FAILURE_SHOWN_FOR).await;
        assert_eq!(h.failure(), None);
    }
}
