//! Keeping a client within the server's message rate limit (500 a second
//! on average, bursts of 100): a request the server drops as rate-limited
//! would be measured as a lost reply, not as the cost of answering it.

use std::time::Duration;

use tokio::time::Instant;

/// A token bucket on the client's side: `take` says how long to wait
/// before the next message may go.
#[derive(Clone, Debug)]
pub struct Pacer {
    per_second: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl Pacer {
    /// A full bucket of `burst` messages, refilled at `per_second`.
    pub fn new(per_second: f64, burst: f64, now: Instant) -> Self {
        Pacer {
            per_second: per_second.max(f64::MIN_POSITIVE),
            burst: burst.max(1.0),
            tokens: burst.max(1.0),
            last: now,
        }
    }

    /// Takes one message's place and returns how long after `now` it may
    /// be sent (zero while the burst lasts).
    pub fn take(&mut self, now: Instant) -> Duration {
        let refill = now.saturating_duration_since(self.last).as_secs_f64() * self.per_second;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.tokens / self.per_second)
        }
    }

    /// Waits for the next message's place.
    pub async fn wait(&mut self) {
        let delay = self.take(Instant::now());
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
    }
}

/// How a sender spreads `requests` over `window` in bursts of at most
/// `burst`: the number of bursts and the time between their starts, never
/// less than `min_interval` (so that the average stays within the rate
/// limit; the sending then takes longer than `window`).
pub fn burst_schedule(
    requests: usize,
    burst: usize,
    window: Duration,
    min_interval: Duration,
) -> (usize, Duration) {
    let bursts = requests.div_ceil(burst.max(1));
    let spread = u32::try_from(bursts.max(1)).map_or(Duration::ZERO, |b| window / b);
    (bursts, spread.max(min_interval))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_burst_is_free_then_the_rate_holds() {
        let t0 = Instant::now();
        let mut p = Pacer::new(100.0, 3.0, t0);
        for _ in 0..3 {
            assert_eq!(p.take(t0), Duration::ZERO);
        }
        // The fourth waits one token's time, the fifth two.
        let d4 = p.take(t0).as_secs_f64();
        let d5 = p.take(t0).as_secs_f64();
        assert!((d4 - 0.01).abs() < 1e-9, "{d4}");
        assert!((d5 - 0.02).abs() < 1e-9, "{d5}");
        // After a long pause the bucket is full again, and no fuller.
        let later = t0 + Duration::from_secs(10);
        for _ in 0..3 {
            assert_eq!(p.take(later), Duration::ZERO);
        }
        assert!(p.take(later) > Duration::ZERO);
    }

    #[test]
    fn bursts_spread_over_the_window_but_not_faster_than_allowed() {
        let ms = Duration::from_millis;
        let plan = |r| {
            let (n, every) = burst_schedule(r, 50, ms(4000), ms(150));
            (n, every.as_millis())
        };
        assert_eq!(plan(300), (6, 666));
        assert_eq!(plan(2000), (40, 150));
        assert_eq!(plan(1), (1, 4000));
        assert_eq!(plan(0), (0, 4000));
    }
}
