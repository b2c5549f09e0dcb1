//! The server's connection slots (`--max-connections`): taken by the
//! listener for every connection, and watched by the health check, which
//! must say "unavailable" while newcomers are turned away for want of
//! one (a load balancer seeing "ok" then sends players to be refused).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The connection slots of one server.
#[derive(Debug)]
pub struct Slots {
    free: Arc<Semaphore>,
    max: usize,
    /// How long a refusal keeps the health check unavailable.
    reported_for: Duration,
    /// When a newcomer was last turned away for want of a slot.
    last_refusal: Mutex<Option<Instant>>,
}

impl Slots {
    /// `max` slots, all free; a refusal is reported for `reported_for`.
    pub fn new(max: usize, reported_for: Duration) -> Slots {
        Slots {
            free: Arc::new(Semaphore::new(max)),
            max,
            reported_for,
            last_refusal: Mutex::new(None),
        }
    }

    /// A slot for a connection arriving at `now`, held until the permit
    /// is dropped; `None` (and the refusal noted) if every slot is taken.
    pub fn take(&self, now: Instant) -> Option<OwnedSemaphorePermit> {
        let permit = Arc::clone(&self.free).try_acquire_owned().ok();
        if permit.is_none() {
            *self
                .last_refusal
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(now);
        }
        permit
    }

    /// Why newcomers are being turned away at `now`, if they are: every
    /// slot is taken, or one was turned away within the time a refusal
    /// is reported for (slots held by slow clients free up and fill
    /// again; a health check must not see "ok" in between).
    pub fn refusing(&self, now: Instant) -> Option<String> {
        if self.free.available_permits() == 0 {
            return Some(format!(
                "every connection slot is taken ({} of {}): newcomers are turned away",
                self.max, self.max
            ));
        }
        let last = *self
            .last_refusal
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let ago = now.saturating_duration_since(last?);
        (ago < self.reported_for).then(|| {
            format!(
                "newcomers were turned away {} ms ago: all {} connection slots were taken",
                ago.as_millis(),
                self.max
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_refusal_is_reported_while_full_and_for_a_while_after() {
        let slots = Slots::new(2, Duration::from_secs(10));
        let t = Instant::now();
        assert_eq!(slots.refusing(t), None);
        let a = slots.take(t);
        let b = slots.take(t);
        assert!(a.is_some() && b.is_some());
        // Full: the next newcomer would be refused.
        assert!(slots.refusing(t).is_some());
        assert!(slots.take(t).is_none());
        drop(a);
        // A slot is free again, but one was just refused.
        let soon = t + Duration::from_secs(9);
        assert!(slots
            .refusing(soon)
            .is_some_and(|why| why.contains("turned away")));
        assert_eq!(slots.refusing(t + Duration::from_secs(10)), None);
        drop(b);
    }
}
