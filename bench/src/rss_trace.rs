//! The server's resident memory and open files over time: sampled on a
//! timer from `/proc`, then read back by time window (the peak during a
//! phase, when the server let go of connections).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

use crate::procfs;

/// One sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Time since the trace began.
    pub at: Duration,
    /// Resident memory, bytes.
    pub rss: u64,
    /// Open file descriptors (sockets among them).
    pub fds: usize,
}

/// The samples of a trace, in time order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Samples(pub Vec<Sample>);

impl Samples {
    /// The largest resident memory sampled from `from` to `to` (inclusive).
    pub fn peak(&self, from: Duration, to: Duration) -> Option<u64> {
        self.within(from, to).map(|s| s.rss).max()
    }

    /// The first time from `from` to `to` at which at most `fds` files
    /// were open: when the process had let go of the sockets above that.
    pub fn fds_down_to(&self, fds: usize, from: Duration, to: Duration) -> Option<Duration> {
        self.within(from, to).find(|s| s.fds <= fds).map(|s| s.at)
    }

    fn within(&self, from: Duration, to: Duration) -> impl Iterator<Item = &Sample> {
        self.0.iter().filter(move |s| s.at >= from && s.at <= to)
    }
}

/// A running sampler of one process.
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
                let (Some(rss), Some(fds)) = (procfs::rss_bytes(pid), procfs::open_fds(pid)) else {
                    return;
                };
                let s = Sample {
                    at: origin.elapsed(),
                    rss,
                    fds,
                };
                sink.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
                    .push(s);
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
        let s = Samples(
            [(0, 10, 20), (50, 30, 30), (100, 20, 30), (150, 15, 20)]
                .into_iter()
                .map(|(t, rss, fds)| Sample {
                    at: ms(t),
                    rss,
                    fds,
                })
                .collect(),
        );
        assert_eq!(s.peak(ms(0), ms(200)), Some(30));
        assert_eq!(s.peak(ms(60), ms(150)), Some(20));
        assert_eq!(s.peak(ms(160), ms(200)), None);
        assert_eq!(s.fds_down_to(20, ms(50), ms(200)), Some(ms(150)));
        assert_eq!(s.fds_down_to(20, ms(50), ms(100)), None);
        assert_eq!(s.fds_down_to(25, ms(0), ms(200)), Some(ms(0)));
    }
}
