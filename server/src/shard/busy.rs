//! How busy a shard's thread is: the time it spends running tasks rather
//! than waiting for work, read from its runtime's park and unpark hooks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

/// How long a shard's busy share is measured over before rooms are
/// placed by it again: long enough to average over many moves, short
/// enough that a shard filling up is seen within a fraction of a second.
pub(super) const SHARD_LOAD_SAMPLE: std::time::Duration = std::time::Duration::from_millis(100);

/// Nanoseconds since the first reading in this process: busy times are
/// kept in atomics, which hold integers, not instants.
fn now_ns() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let origin = *ORIGIN.get_or_init(Instant::now);
    u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// How long a run that started at `since` (as stored in `Busy::since`:
/// 0 for none) has lasted at `now`.
fn ran_for(since: u64, now: u64) -> u64 {
    if since == 0 {
        0
    } else {
        now.saturating_sub(since - 1)
    }
}

/// A reading of a shard's busy time.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// When (`now_ns`).
    at: u64,
    /// Busy time so far then.
    total: u64,
    /// Busy share over the span before it.
    fraction: f64,
    /// Rooms on the shard then.
    rooms: usize,
}

/// A shard thread's busy time, written by the thread itself (`unparked`,
/// `parked`) and read by whoever places rooms (`fraction`).
#[derive(Debug, Default)]
pub(super) struct Busy {
    /// Busy time of every finished run, in nanoseconds.
    total_ns: AtomicU64,
    /// When the current run started (`now_ns() + 1`), 0 while parked.
    since: AtomicU64,
    /// The last sample.
    sample: Mutex<Option<Sample>>,
}

impl Busy {
    /// The thread woke up to run tasks.
    pub(super) fn unparked(&self) {
        self.since.store(now_ns() + 1, Ordering::Relaxed);
    }

    /// The thread ran out of tasks and goes to sleep.
    pub(super) fn parked(&self) {
        let since = self.since.swap(0, Ordering::Relaxed);
        self.total_ns
            .fetch_add(ran_for(since, now_ns()), Ordering::Relaxed);
    }

    /// Busy time so far, the current run included (a thread that never
    /// parks is fully busy, not idle).
    fn total_at(&self, now: u64) -> u64 {
        let running = ran_for(self.since.load(Ordering::Relaxed), now);
        self.total_ns.load(Ordering::Relaxed) + running
    }

    /// The share of the last [`SHARD_LOAD_SAMPLE`] (or more) the thread
    /// spent busy, 0 to 1 (0 until a first sample has passed), and how
    /// many rooms it held at that sample's end; `rooms` is how many it
    /// holds now, kept if a new sample is taken.
    pub(super) fn fraction(&self, rooms: usize) -> (f64, usize) {
        let now = now_ns();
        let total = self.total_at(now);
        let mut sample = self.sample.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(last) = *sample {
            if u128::from(now.saturating_sub(last.at)) < SHARD_LOAD_SAMPLE.as_nanos() {
                return (last.fraction, last.rooms);
            }
        }
        // Precision is no concern at these magnitudes.
        #[allow(clippy::cast_precision_loss)]
        let fraction = sample.map_or(0.0, |last| {
            (total.saturating_sub(last.total) as f64 / now.saturating_sub(last.at) as f64).min(1.0)
        });
        *sample = Some(Sample {
            at: now,
            total,
            fraction,
            rooms,
        });
        (fraction, rooms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_counts_once_parked_and_while_it_lasts() {
        let b = Busy::default();
        assert_eq!(b.total_at(now_ns()), 0, "never ran");
        b.unparked();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let during = b.total_at(now_ns());
        assert!(during >= 5_000_000, "the current run counts: {during} ns");
        b.parked();
        let after = b.total_at(now_ns());
        assert!(after >= during, "{after} < {during}");
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(b.total_at(now_ns()), after, "a parked thread adds nothing");
    }

    #[test]
    fn the_fraction_is_zero_until_a_sample_has_passed() {
        let b = Busy::default();
        b.unparked();
        let (f, _) = b.fraction(3);
        assert!(f.abs() < f64::EPSILON, "first look: no sample yet");
        std::thread::sleep(SHARD_LOAD_SAMPLE + std::time::Duration::from_millis(5));
        let (f, rooms) = b.fraction(5);
        assert!(f > 0.9, "busy all along: {f}");
        assert_eq!(rooms, 5, "a new sample keeps the rooms it was taken with");
        assert_eq!(b.fraction(9).1, 5, "within a sample, the sample's rooms");
    }
}
