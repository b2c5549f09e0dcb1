//! Per-connection rate limiting: a token bucket, and the message limit
//! built on it.

use std::time::Duration;

use tokio::time::Instant;

use crate::limits::{MAX_REFUSED_PER_SECOND, MESSAGES_PER_SECOND, MESSAGE_BURST};

/// A token bucket: at most `burst` tokens, refilled at `per_second`.
#[derive(Debug)]
pub struct Bucket {
    tokens: f64,
    burst: f64,
    per_second: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket of `burst` tokens refilled at `per_second`.
    pub fn full(burst: u32, per_second: f64, now: Instant) -> Self {
        Bucket {
            tokens: f64::from(burst),
            burst: f64::from(burst),
            per_second,
            last: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let dt = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.per_second).min(self.burst);
    }

    /// Takes a token at `now`; false if there is none.
    pub fn take(&mut self, now: Instant) -> bool {
        self.refill(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Returns a token taken for something that turned out not to count.
    pub fn give_back(&mut self) {
        self.tokens = (self.tokens + 1.0).min(self.burst);
    }

    /// How long after the last take until a token is there again.
    pub fn next_in(&self) -> Duration {
        if self.tokens >= 1.0 || self.per_second <= 0.0 {
            return Duration::ZERO;
        }
        Duration::from_secs_f64((1.0 - self.tokens) / self.per_second)
    }
}

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
    bucket: Bucket,
    /// Messages excused beyond the bucket: ones the server itself held
    /// back by not reading (see [`RateLimiter::excuse`]).
    credit: f64,
    /// When the credit lapses.
    credit_until: Instant,
    window: Instant,
    refused: u32,
}

impl RateLimiter {
    /// A full bucket.
    pub fn new(now: Instant) -> Self {
        RateLimiter {
            bucket: Bucket::full(MESSAGE_BURST, f64::from(MESSAGES_PER_SECOND), now),
            credit: 0.0,
            credit_until: now,
            window: now,
            refused: 0,
        }
    }

    /// Accounts for one message arriving at `now`.
    pub fn check(&mut self, now: Instant) -> Verdict {
        if now > self.credit_until {
            // The backlog has had as long to arrive as it took to build.
            self.credit = 0.0;
        }
        if now.saturating_duration_since(self.window) >= Duration::from_secs(1) {
            self.window = now;
            self.refused = 0;
        }
        if self.bucket.take(now) {
            return Verdict::Allow;
        }
        if self.credit >= 1.0 {
            self.credit -= 1.0;
            return Verdict::Allow;
        }
        self.refused += 1;
        if self.flooding() {
            Verdict::Disconnect
        } else {
            Verdict::Refuse
        }
    }

    /// The server stopped reading this connection for `held` (its replies
    /// did not fit): messages the client sent meanwhile, within the rate,
    /// now arrive at once. They are excused, up to what the rate allows
    /// over that time, so that backpressure never turns a paced client into
    /// a flooder. The credit lapses after as long again as it was held.
    pub fn excuse(&mut self, held: Duration, now: Instant) {
        self.credit += held.as_secs_f64() * f64::from(MESSAGES_PER_SECOND);
        self.credit_until = now + held;
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
    async fn messages_the_server_held_back_are_excused_but_a_flood_is_not() {
        let mut r = RateLimiter::new(Instant::now());
        // The client sent 300 messages over 3 s, within the rate, while the
        // server did not read; then they all arrive at once.
        tokio::time::advance(Duration::from_millis(10)).await;
        let now = Instant::now();
        r.excuse(Duration::from_secs(3), now);
        let verdicts: Vec<Verdict> = (0..300).map(|_| r.check(now)).collect();
        assert!(verdicts.iter().all(|v| *v == Verdict::Allow));
        // Without the excuse the same burst is refused past the bucket.
        let mut plain = RateLimiter::new(now);
        let refused = (0..300)
            .filter(|_| plain.check(now) != Verdict::Allow)
            .count();
        assert_eq!(refused, 300 - MESSAGE_BURST as usize);
        // At most what the rate allows over the 3 s is excused (and the
        // bucket): past that, more at once is refused again.
        let excused = 3 * MESSAGES_PER_SECOND as usize + MESSAGE_BURST as usize;
        let more = (300..excused)
            .filter(|_| r.check(now) == Verdict::Allow)
            .count();
        assert_eq!(more, excused - 300);
        assert_ne!(r.check(now), Verdict::Allow);
        // An unspent credit lapses.
        let mut idle = RateLimiter::new(now);
        idle.excuse(Duration::from_secs(1), now);
        tokio::time::advance(Duration::from_secs(2)).await;
        let later = Instant::now();
        let refused = (0..300)
            .filter(|_| idle.check(later) != Verdict::Allow)
            .count();
        assert_eq!(refused, 300 - MESSAGE_BURST as usize);
    }

    #[tokio::test(start_paused = true)]
    async fn a_bucket_refills_at_its_rate_up_to_its_burst_and_takes_back_a_token() {
        let t = Instant::now();
        let mut b = Bucket::full(3, 2.0, t);
        assert!((0..3).all(|_| b.take(t)));
        assert!(!b.take(t));
        assert_eq!(b.next_in(), Duration::from_millis(500));
        // Half a second makes one token; a long rest no more than the burst.
        assert!(b.take(t + Duration::from_millis(500)));
        assert!(!b.take(t + Duration::from_millis(500)));
        let rested = t + Duration::from_secs(60);
        assert_eq!((0..10).filter(|_| b.take(rested)).count(), 3);
        b.give_back();
        assert!(b.take(rested));
        assert!(!b.take(rested));
        // Given back past the burst, it still holds no more than the burst.
        let mut full = Bucket::full(2, 1.0, t);
        full.give_back();
        assert_eq!((0..5).filter(|_| full.take(t)).count(), 2);
    }

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
