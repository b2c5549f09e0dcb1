//! Turn clocks.
//!
//! Real-time clocks are counted in the room's monotonic time and stored as
//! the milliseconds left per seat: a restart stops them. A correspondence
//! clock (days per move) runs on the wall clock: its store keeps each
//! running seat's absolute deadline (see `store::Turn`), and a restored
//! room counts down to that deadline, the downtime included.

use std::time::Duration;

use parlor_games::{Seat, SeatSet};
use parlor_protocol::Clock;
use tokio::time::Instant;

use crate::store::{Turn, TurnSeat};

/// One day of a correspondence clock.
pub const DAY_MS: u64 = 86_400_000;

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
            Clock::DaysPerMove(d) => u64::from(d) * DAY_MS,
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
                    match self.rule {
                        Clock::PerMove { ms } => self.left[i] = Duration::from_millis(ms),
                        Clock::DaysPerMove(d) => {
                            self.left[i] = Duration::from_millis(u64::from(d) * DAY_MS)
                        }
                        Clock::Increment { .. } => {}
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

    /// A restored correspondence clock: each seat of `turn` (the seats to
    /// act when it was stored) runs from `now` until its stored deadline,
    /// `now_ms` being the wall clock now (a deadline passed while the
    /// server was down is due at once). Other clocks keep the time left
    /// as stored.
    pub fn restore_deadlines(&mut self, turn: &Turn, now: Instant, now_ms: u64) {
        if !self.rule.is_correspondence() {
            return;
        }
        for due in &turn.due {
            let Some(deadline) = due.deadline_ms else {
                continue;
            };
            let i = due.seat.index();
            if let (Some(left), Some(since)) = (self.left.get_mut(i), self.running_since.get_mut(i))
            {
                *left = Duration::from_millis(deadline.saturating_sub(now_ms));
                *since = Some(now);
            }
        }
    }

    /// The seats in `to_act`, each with when its time runs out on the wall
    /// clock (`now_ms` is the wall clock at `now`).
    pub fn turn(&self, to_act: SeatSet, now: Instant, now_ms: u64) -> Turn {
        let left = self.snapshot(now);
        Turn {
            due: to_act
                .iter()
                .map(|seat| TurnSeat {
                    seat,
                    deadline_ms: left.get(seat.index()).map(|l| now_ms.saturating_add(*l)),
                })
                .collect(),
        }
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
    async fn days_per_move_gives_each_move_its_days() {
        let mut c = Clocks::new(Clock::DaysPerMove(2), 2, None);
        let t0 = Instant::now();
        c.sync(SeatSet::single(Seat(0)), t0);
        assert_eq!(c.deadline(), Some(t0 + Duration::from_millis(2 * DAY_MS)));
        let t1 = t0 + Duration::from_millis(DAY_MS);
        c.charge(Seat(0), t1);
        c.sync(SeatSet::single(Seat(1)), t1);
        assert_eq!(c.deadline(), Some(t1 + Duration::from_millis(2 * DAY_MS)));
        // Seat 0's next move gets its full days again.
        let t2 = t1 + Duration::from_millis(DAY_MS / 2);
        c.charge(Seat(1), t2);
        c.sync(SeatSet::single(Seat(0)), t2);
        assert_eq!(c.snapshot(t2), vec![2 * DAY_MS, 2 * DAY_MS - DAY_MS / 2]);
        assert!(c
            .expired(t2 + Duration::from_millis(2 * DAY_MS - 1))
            .is_empty());
        assert_eq!(
            c.expired(t2 + Duration::from_millis(2 * DAY_MS)),
            vec![Seat(0)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_restored_correspondence_clock_keeps_its_wall_clock_deadline() {
        let now_ms = 1_000_000_000_000;
        let t0 = Instant::now();
        let mut c = Clocks::new(Clock::DaysPerMove(3), 2, Some(&[3 * DAY_MS, 3 * DAY_MS]));
        c.sync(SeatSet::single(Seat(1)), t0);
        let turn = c.turn(SeatSet::single(Seat(1)), t0, now_ms);
        assert_eq!(turn.of(Seat(1)), Some(Some(now_ms + 3 * DAY_MS)));
        assert_eq!(turn.of(Seat(0)), None);
        // The server comes back ten hours later.
        let later_ms = now_ms + 10 * 3_600_000;
        let t1 = t0 + Duration::from_secs(1);
        let mut restored = Clocks::new(Clock::DaysPerMove(3), 2, Some(&[3 * DAY_MS, 3 * DAY_MS]));
        restored.restore_deadlines(&turn, t1, later_ms);
        // The room's own first sync leaves a restored clock as it is.
        restored.sync(SeatSet::single(Seat(1)), t1);
        let left = 3 * DAY_MS - 10 * 3_600_000;
        assert_eq!(restored.deadline(), Some(t1 + Duration::from_millis(left)));
        assert_eq!(
            restored
                .turn(SeatSet::single(Seat(1)), t1, later_ms)
                .of(Seat(1)),
            Some(Some(now_ms + 3 * DAY_MS))
        );
        // A deadline passed while the server was down is due at once.
        let mut late = Clocks::new(Clock::DaysPerMove(3), 2, None);
        late.restore_deadlines(&turn, t1, now_ms + 4 * DAY_MS);
        assert_eq!(late.expired(t1), vec![Seat(1)]);
    }

    #[tokio::test(start_paused = true)]
    async fn real_time_clocks_ignore_stored_deadlines() {
        let t0 = Instant::now();
        let mut c = Clocks::new(Clock::PerMove { ms: 5_000 }, 2, Some(&[2_000, 5_000]));
        let turn = Turn {
            due: vec![TurnSeat {
                seat: Seat(0),
                deadline_ms: Some(1),
            }],
        };
        c.restore_deadlines(&turn, t0, 1_000_000);
        assert_eq!(c.snapshot(t0), vec![2_000, 5_000]);
    }

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
