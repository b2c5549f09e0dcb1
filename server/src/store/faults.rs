//! Fault injection: a testing hook that makes the store fail or stall on
//! purpose, so the failure paths (a refused move, a read that never
//! ends) can be tested against the real writer and readers.
//!
//! It is always compiled: a store opened with [`super::Store::open`] has
//! its own handle that nobody can arm, and an unarmed handle costs the
//! writer one relaxed atomic load per commit and per append.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use super::StoreError;

/// Faults to inject into a store opened with
/// [`super::Store::open_with_faults`]; cheap to clone, every clone arms
/// the same store. A testing hook: servers never arm it.
#[derive(Clone, Debug, Default)]
pub struct Faults(Arc<Armed>);

#[derive(Debug, Default)]
struct Armed {
    /// Commits still to fail.
    commits: AtomicU32,
    /// Appends still to fail.
    appends: AtomicU32,
    /// Whether any [`ReadHold`] is alive: the readers' fast path, so that
    /// an unheld store never takes the lock below.
    holding: AtomicBool,
    /// Holds alive and reads waiting at them.
    reads: Mutex<Holds>,
    /// Signalled when the last hold is released.
    released: Condvar,
}

#[derive(Debug, Default)]
struct Holds {
    /// [`ReadHold`]s alive.
    holds: usize,
    /// Reads that finished reading and wait, their snapshot still open.
    waiting: usize,
}

/// Keeps every read that finishes from ending its read transaction until
/// dropped (see [`Faults::hold_reads`]).
#[derive(Debug)]
#[must_use = "reads are released when the hold is dropped"]
pub struct ReadHold(Faults);

impl Faults {
    /// A handle with nothing armed.
    pub fn new() -> Faults {
        Faults::default()
    }

    /// Makes the next `n` commits of the writer fail: the batch is rolled
    /// back and each of its jobs answered with an error.
    pub fn fail_next_commits(&self, n: u32) {
        self.0.commits.store(n, Ordering::Relaxed);
    }

    /// Makes the next `n` appends fail after their statements ran, as if
    /// the last of them had failed: what they wrote must be undone while
    /// the other jobs of their batch commit.
    pub fn fail_next_appends(&self, n: u32) {
        self.0.appends.store(n, Ordering::Relaxed);
    }

    /// Holds every read at its end, its read transaction still open,
    /// until the returned guard is dropped: a read as long as a test
    /// wants. [`Faults::reads_held`] counts the reads waiting.
    pub fn hold_reads(&self) -> ReadHold {
        let mut holds = self.holds();
        holds.holds += 1;
        self.0.holding.store(true, Ordering::Release);
        drop(holds);
        ReadHold(self.clone())
    }

    /// Reads currently waiting at a [`ReadHold`].
    pub fn reads_held(&self) -> usize {
        self.holds().waiting
    }

    /// Whether the commit about to run must fail (counts it).
    pub(super) fn commit_fails(&self) -> bool {
        take(&self.0.commits)
    }

    /// `Err` if the append that just ran must fail (counts it).
    pub(super) fn check_append(&self) -> Result<(), StoreError> {
        if take(&self.0.appends) {
            return Err(StoreError::Injected("append"));
        }
        Ok(())
    }

    /// Called by a reader before it ends a read transaction: waits while
    /// any [`ReadHold`] is alive.
    pub(super) fn wait_while_reads_held(&self) {
        if !self.0.holding.load(Ordering::Acquire) {
            return;
        }
        let mut holds = self.holds();
        holds.waiting += 1;
        while holds.holds > 0 {
            holds = self
                .0
                .released
                .wait(holds)
                .unwrap_or_else(PoisonError::into_inner);
        }
        holds.waiting -= 1;
    }

    /// [`Faults::wait_while_reads_held`] for a reader on the async
    /// runtime: the wait, if any, runs on a blocking thread.
    pub(super) async fn wait_while_reads_held_async(&self) {
        if !self.0.holding.load(Ordering::Acquire) {
            return;
        }
        let faults = self.clone();
        // A wait that panicked (only in a test) has nothing to hold.
        let _ = tokio::task::spawn_blocking(move || faults.wait_while_reads_held()).await;
    }

    /// The holds' books. A panic while they were locked (only in a test)
    /// leaves them consistent: every update is a single field.
    fn holds(&self) -> MutexGuard<'_, Holds> {
        self.0.reads.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for ReadHold {
    fn drop(&mut self) {
        let mut holds = self.0.holds();
        holds.holds -= 1;
        if holds.holds == 0 {
            self.0 .0.holding.store(false, Ordering::Release);
            self.0 .0.released.notify_all();
        }
    }
}

/// Counts one down from `left` if it is above zero; true if it was.
fn take(left: &AtomicU32) -> bool {
    // The load keeps the unarmed case to one read of a shared cache line.
    left.load(Ordering::Relaxed) > 0
        && left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
}
