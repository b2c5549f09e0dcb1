//! Turn clocks.

use std::time::Duration;

use parlor_games::{Seat, SeatSet};
use parlor_protocol::Clock;
use tokio::time::Instant;

/// Each seat's time, running while the seat must act.
#[derive(Clone, Debug)]
pub struct Clocks {
    rule: Clock,
    left: Vec<Duration>,
    running_since: Vec<Option<Instant>>,
}

impl Clocks {
    /// Fresh clocks for `seats` seats (or as stored, in ms).
    pub fn new(rule: Clock, seats: u8, stored: Option<&[u64]>) -> Self {
        let start = match rule {
            Clock::PerMove { ms } => ms,
            Clock::Increment { main_ms, .. } => main_ms,
            // TODO(issue 24): on the wall clock.
            Clock::DaysPerMove(d) => u64::from(d) * 86_400_000,
        };
        let left = (0..usize::from(seats))
            .map(|i| Duration::from_millis(stored.and_then(|s| s.get(i).copied()).unwrap_or(start)))
            .collect();
        Clocks {
            rule,
            left,
            running_since: vec![None; usize::from(seats)],
        }
    }

    /// Starts the clocks of seats that have just become due to act and
    /// stops the others (a seat's time is charged in [`Clocks::charge`]).
    pub fn sync(&mut self, to_act: SeatSet, now: Instant) {
        for (i, since) in self.running_since.iter_mut().enumerate() {
            let due = u8::try_from(i).is_ok_and(|s| to_act.contains(Seat(s)));
            match (due, *since) {
                (true, None) => {
                    *since = Some(now);
                    if let Clock::PerMove { ms } = self.rule {
                        self.left[i] = Duration::from_millis(ms);
                    }
                }
                (false, Some(_)) => *since = None,
                _ => {}
            }
        }
    }

    /// Charges `seat` for its thinking time up to `now` and credits the
    /// increment; its clock then stops until it is due again.
    pub fn charge(&mut self, seat: Seat, now: Instant) {
        let i = seat.index();
        if let Some(since) = self.running_since.get_mut(i).and_then(Option::take) {
            let used = now.saturating_duration_since(since);
            self.left[i] = self.left[i].saturating_sub(used);
            if let Clock::Increment { increment_ms, .. } = self.rule {
                self.left[i] += Duration::from_millis(increment_ms);
            }
        }
    }

    /// Time left per seat at `now`, in ms.
    pub fn snapshot(&self, now: Instant) -> Vec<u64> {
        self.left
            .iter()
            .zip(&self.running_since)
            .map(|(left, since)| {
                let used = since.map_or(Duration::ZERO, |s| now.saturating_duration_since(s));
                u64::try_from(left.saturating_sub(used).as_millis()).unwrap_or(u64::MAX)
            })
            .collect()
    }

    /// When the first running clock runs out.
    pub fn deadline(&self) -> Option<Instant> {
        self.left
            .iter()
            .zip(&self.running_since)
            .filter_map(|(left, since)| since.map(|s| s + *left))
            .min()
    }

    /// Seats whose time is up at `now`.
    pub fn expired(&self, now: Instant) -> Vec<Seat> {
        self.left
            .iter()
            .zip(&self.running_since)
            .enumerate()
            .filter(|(_, (left, since))| since.is_some_and(|s| s + **left <= now))
            .filter_map(|(i, _)| u8::try_from(i).ok().map(Seat))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn increment_clock_charges_thinking_time_and_adds_the_increment() {
        let rule = Clock::Increment {
            main_ms: 10_000,
            increment_ms: 1_000,
        };
        let mut c = Clocks::new(rule, 2, None);
        let t0 = Instant::now();
        c.sync(SeatSet::single(Seat(0)), t0);
        assert_eq!(c.deadline(), Some(t0 + Duration::from_secs(10)));
        let t1 = t0 + Duration::from_secs(4);
        assert_eq!(c.snapshot(t1), vec![6_000, 10_000]);
        c.charge(Seat(0), t1);
        c.sync(SeatSet::single(Seat(1)), t1);
        assert_eq!(c.snapshot(t1), vec![7_000, 10_000]);
        assert!(c.expired(t1 + Duration::from_secs(10)).contains(&Seat(1)));
        assert!(c.expired(t1 + Duration::from_secs(9)).is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn per_move_clock_resets_for_each_move() {
        let mut c = Clocks::new(Clock::PerMove { ms: 5_000 }, 2, None);
        let t0 = Instant::now();
        c.sync(SeatSet::single(Seat(0)), t0);
        c.charge(Seat(0), t0 + Duration::from_secs(3));
        c.sync(SeatSet::single(Seat(1)), t0 + Duration::from_secs(3));
        c.charge(Seat(1), t0 + Duration::from_secs(4));
        c.sync(SeatSet::single(Seat(0)), t0 + Duration::from_secs(4));
        assert_eq!(c.snapshot(t0 + Duration::from_secs(4)), vec![5_000, 4_000]);
    }
}
