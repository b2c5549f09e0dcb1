//! Per-connection message rate limiting (a token bucket).

use std::time::Duration;

use tokio::time::Instant;

use crate::limits::{MAX_REFUSED_PER_SECOND, MESSAGES_PER_SECOND, MESSAGE_BURST};

/// What to do with a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Handle it.
    Allow,
    /// Drop it and say so.
    Refuse,
    /// Drop it and close the connection: it keeps flooding.
    Disconnect,
}

/// A token bucket refilled at [`MESSAGES_PER_SECOND`] up to
/// [`MESSAGE_BURST`], plus a count of refusals per second.
#[derive(Debug)]
pub struct RateLimiter {
    tokens: f64,
    last: Instant,
    window: Instant,
    refused: u32,
}

impl RateLimiter {
    /// A full bucket.
    pub fn new(now: Instant) -> Self {
        RateLimiter {
            tokens: f64::from(MESSAGE_BURST),
            last: now,
            window: now,
            refused: 0,
        }
    }

    /// Accounts for one message arriving at `now`.
    pub fn check(&mut self, now: Instant) -> Verdict {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens =
            (self.tokens + dt * f64::from(MESSAGES_PER_SECOND)).min(f64::from(MESSAGE_BURST));
        if now.saturating_duration_since(self.window) >= Duration::from_secs(1) {
            self.window = now;
            self.refused = 0;
        }
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return Verdict::Allow;
        }
        self.refused += 1;
        if self.flooding() {
            Verdict::Disconnect
        } else {
            Verdict::Refuse
        }
    }

    /// Whether the last refusal was the first in its one-second window:
    /// only that one is answered, so that a flood does not also make the
    /// server write an error per dropped message.
    pub fn first_refusal(&self) -> bool {
        self.refused == 1
    }

    /// Whether refusals this second passed [`MAX_REFUSED_PER_SECOND`].
    pub fn flooding(&self) -> bool {
        self.refused > MAX_REFUSED_PER_SECOND
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_burst_passes_then_floods_are_refused_then_disconnected() {
        let t = Instant::now();
        let mut r = RateLimiter::new(t);
        for _ in 0..MESSAGE_BURST {
            assert_eq!(r.check(t), Verdict::Allow);
        }
        for _ in 0..MAX_REFUSED_PER_SECOND {
            assert_eq!(r.check(t), Verdict::Refuse);
        }
        assert_eq!(r.check(t), Verdict::Disconnect);
        // A well-behaved client later is fine again.
        let later = t + Duration::from_secs(2);
        assert_eq!(r.check(later), Verdict::Allow);
    }
}
