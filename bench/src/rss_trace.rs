//! The server's resident memory over time: sampled on a timer from
//! `/proc`, then read back by time window (baseline, peak during a
//! phase).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

use crate::procfs;

/// Resident memory samples: (time since the trace began, bytes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Samples(pub Vec<(Duration, u64)>);

impl Samples {
    /// The largest sample taken from `from` to `to` (inclusive).
    pub fn peak(&self, from: Duration, to: Duration) -> Option<u64> {
        self.0
            .iter()
            .filter(|(t, _)| *t >= from && *t <= to)
            .map(|(_, b)| *b)
            .max()
    }
}

/// A running sampler of one process's resident memory.
#[derive(Debug)]
pub struct RssTrace {
    origin: Instant,
    samples: Arc<Mutex<Samples>>,
    task: JoinHandle<()>,
}

impl RssTrace {
    /// Samples `pid` every `every` until finished (or the process is gone).
    pub fn start(pid: u32, every: Duration) -> Self {
        let origin = Instant::now();
        let samples = Arc::new(Mutex::new(Samples::default()));
        let sink = Arc::clone(&samples);
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            // A late sample is taken late, not made up for with a burst.
            tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(rss) = procfs::rss_bytes(pid) else {
                    return;
                };
                sink.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
                    .push((origin.elapsed(), rss));
            }
        });
        RssTrace {
            origin,
            samples,
            task,
        }
    }

    /// Time since the trace began, to mark phases.
    pub fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    /// Stops sampling and returns the samples.
    pub fn finish(self) -> Samples {
        self.task.abort();
        let samples = self.samples.lock().unwrap_or_else(PoisonError::into_inner);
        samples.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_pick_the_right_samples() {
        let ms = Duration::from_millis;
        let s = Samples(vec![
            (ms(0), 10),
            (ms(50), 30),
            (ms(100), 20),
            (ms(150), 15),
        ]);
        assert_eq!(s.peak(ms(0), ms(200)), Some(30));
        assert_eq!(s.peak(ms(60), ms(150)), Some(20));
        assert_eq!(s.peak(ms(160), ms(200)), None);
        assert_eq!(Samples::default().peak(ms(0), ms(1)), None);
    }
}
