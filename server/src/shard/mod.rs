//! Shards: the threads rooms and connections run on.
//!
//! Each shard is one thread running a current-thread tokio runtime. A
//! room lives on one shard (placed by the directory: see `placement`)
//! together with its store writer (see `store::sqlite`), and
//! a connection is moved to the shard of the room it plays in, so that a
//! move's whole path (read, validate, append, commit, acknowledge, write)
//! wakes one thread. Measured on two cores at a paced load (issue 15): a
//! pool of work-stealing workers plus a writer thread woke ~5 threads per
//! move, and the hand-offs cost more CPU than SQLite did.
//!
//! `Shards::inline()` runs everything on the caller's runtime instead:
//! for tests that pause time, and for embedding.

mod busy;
mod placement;

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio_util::task::TaskTracker;

use busy::Busy;
use placement::Load;

/// Most shards a server runs: more threads than this cannot help a room
/// server on any machine we know of, and each costs a runtime and its
/// blocking pool.
pub const MAX_SHARDS: usize = 256;

/// How many shards to run by default: one per core the process may use.
pub fn default_count() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Where a shard thread knows it is: which server's shards (an id unique
/// in the process) and which of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Here {
    set: u64,
    index: usize,
}

thread_local! {
    static HERE: Cell<Option<Here>> = const { Cell::new(None) };
}

/// Ids of shard sets, so that a thread of one server's shards is never
/// taken for another's (tests run several servers in one process).
static NEXT_SET: AtomicU64 = AtomicU64::new(1);

/// One shard: its runtime's handle, how many rooms it holds and how
/// busy its thread is.
#[derive(Debug)]
struct Shard {
    handle: Handle,
    rooms: AtomicUsize,
    busy: Arc<Busy>,
}

/// A server's shards. With none (`inline`), tasks run on the runtime that
/// spawns them.
#[derive(Debug)]
pub struct Shards {
    set: u64,
    shards: Vec<Shard>,
    /// Dropping a sender ends its shard's runtime.
    stops: Mutex<Vec<oneshot::Sender<()>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Shards {
    /// No shard threads: everything runs on the caller's runtime.
    pub fn inline() -> Arc<Shards> {
        Arc::new(Shards {
            set: NEXT_SET.fetch_add(1, Ordering::Relaxed),
            shards: Vec::new(),
            stops: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
        })
    }

    /// Starts `count` shard threads (at most [`MAX_SHARDS`]); 0 is
    /// [`Shards::inline`].
    pub fn start(count: usize) -> std::io::Result<Arc<Shards>> {
        let count = count.min(MAX_SHARDS);
        let set = NEXT_SET.fetch_add(1, Ordering::Relaxed);
        let mut shards = Vec::with_capacity(count);
        let mut stops = Vec::with_capacity(count);
        let mut threads = Vec::with_capacity(count);
        for index in 0..count {
            let busy = Arc::new(Busy::default());
            let (woke, sleeps) = (Arc::clone(&busy), Arc::clone(&busy));
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .thread_name(format!("parlor-shard-{index}-blocking"))
                .on_thread_unpark(move || woke.unparked())
                .on_thread_park(move || sleeps.parked())
                .build()?;
            let handle = runtime.handle().clone();
            let (stop, stopped) = oneshot::channel::<()>();
            let thread = std::thread::Builder::new()
                .name(format!("parlor-shard-{index}"))
                .spawn(move || {
                    HERE.with(|h| h.set(Some(Here { set, index })));
                    // Ends when the sender is sent to or dropped.
                    let _ = runtime.block_on(stopped);
                    // Tasks still on it are dropped with it.
                    drop(runtime);
                })?;
            shards.push(Shard {
                handle,
                rooms: AtomicUsize::new(0),
                busy,
            });
            stops.push(stop);
            threads.push(thread);
        }
        Ok(Arc::new(Shards {
            set,
            shards,
            stops: Mutex::new(stops),
            threads: Mutex::new(threads),
        }))
    }

    /// How many shard threads run (0: inline).
    pub fn len(&self) -> usize {
        self.shards.len()
    }

    /// Whether there are no shard threads (everything runs inline).
    pub fn is_empty(&self) -> bool {
        self.shards.is_empty()
    }

    /// The shard the calling thread is, if it is one of these.
    pub fn here(&self) -> Option<usize> {
        HERE.with(Cell::get)
            .filter(|h| h.set == self.set)
            .map(|h| h.index)
    }

    /// The shard a new room goes to (see `placement`: the first shard
    /// with room to spare, so that at light load one thread serves every
    /// room and the others sleep). `None` when inline.
    pub fn place_room(&self) -> Option<usize> {
        let loads: Vec<Load> = self
            .shards
            .iter()
            .map(|s| {
                let rooms = s.rooms.load(Ordering::Relaxed);
                let (busy, rooms_sampled) = s.busy.fraction(rooms);
                Load {
                    busy,
                    rooms,
                    rooms_sampled,
                }
            })
            .collect();
        placement::choose(&loads)
    }

    /// Runs a room's actor on shard `at` (inline: on the current
    /// runtime), counting it there while it runs.
    pub fn spawn_room<F>(self: &Arc<Self>, tracker: &TaskTracker, at: Option<usize>, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        match at.and_then(|i| self.shards.get(i).map(|s| (i, s))) {
            Some((i, shard)) => {
                shard.rooms.fetch_add(1, Ordering::Relaxed);
                let counted = Counted {
                    shards: Arc::clone(self),
                    index: i,
                };
                tracker.spawn_on(
                    async move {
                        let _counted = counted;
                        task.await;
                    },
                    &shard.handle,
                );
            }
            None => {
                tracker.spawn(task);
            }
        }
    }

    /// Runs a new connection on the shard the next room would go to
    /// (inline: on the current runtime): a room it creates is then
    /// placed where it already is. It moves to its room's shard once it
    /// has one.
    pub fn spawn_connection<F>(&self, tracker: &TaskTracker, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        match self.place_room().and_then(|i| self.shards.get(i)) {
            Some(shard) => drop(tracker.spawn_on(task, &shard.handle)),
            None => drop(tracker.spawn(task)),
        }
    }

    /// Runs `task` on shard `i` (a connection following its room there);
    /// without such a shard, where the caller runs.
    pub fn spawn_on<F>(&self, tracker: &TaskTracker, i: usize, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        match self.shards.get(i) {
            Some(shard) => drop(tracker.spawn_on(task, &shard.handle)),
            None => drop(tracker.spawn(task)),
        }
    }

    /// Shard `i`'s runtime, if there is such a shard.
    pub fn handle(&self, i: usize) -> Option<&Handle> {
        self.shards.get(i).map(|s| &s.handle)
    }

    /// Rooms on each shard now.
    pub fn rooms(&self) -> Vec<usize> {
        self.shards
            .iter()
            .map(|s| s.rooms.load(Ordering::Relaxed))
            .collect()
    }

    /// Stops every shard thread (dropping the tasks still on them) and
    /// waits for them. Call once nothing runs there any more.
    pub fn stop(&self) {
        let stops = std::mem::take(&mut *lock(&self.stops));
        drop(stops);
        let threads = std::mem::take(&mut *lock(&self.threads));
        for t in threads {
            if t.join().is_err() {
                tracing::error!("a shard thread panicked");
            }
        }
    }
}

impl Drop for Shards {
    fn drop(&mut self) {
        // Without waiting: a drop may run on one of the shard threads.
        drop(std::mem::take(&mut *lock(&self.stops)));
    }
}

/// Locks a mutex, recovering from a poisoned one (its data is a list that
/// is only ever taken whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A room counted on its shard until its actor ends (or is dropped).
struct Counted {
    shards: Arc<Shards>,
    index: usize,
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Some(s) = self.shards.shards.get(self.index) {
            s.rooms.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use super::*;

    #[test]
    fn rooms_fill_an_idle_shard_and_are_counted_while_they_run() {
        let shards = Shards::start(2).unwrap_or_else(|e| panic!("{e}"));
        let tracker = TaskTracker::new();
        let (tx0, rx0) = oneshot::channel::<()>();
        let (where0, at0) = std::sync::mpsc::channel();
        let s = Arc::clone(&shards);
        let first = shards.place_room();
        shards.spawn_room(&tracker, first, async move {
            let _ = where0.send(s.here());
            let _ = rx0.await;
        });
        let ran_on = at0.recv().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ran_on, first, "the room runs on the shard it was placed on");
        assert_eq!(shards.rooms().iter().sum::<usize>(), 1);
        assert_eq!(first, Some(0), "idle shards: the first one");
        let second = shards.place_room();
        assert_eq!(second, first, "an idle shard takes more rooms");
        drop(tx0);
        tracker.close();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        rt.block_on(tracker.wait());
        assert_eq!(
            shards.rooms(),
            vec![0, 0],
            "an ended room is no longer counted"
        );
        assert_eq!(shards.here(), None, "this thread is no shard");
        shards.stop();
    }

    #[test]
    fn an_inline_set_places_nothing() {
        let shards = Shards::inline();
        assert!(shards.is_empty());
        assert_eq!(shards.place_room(), None);
        assert_eq!(shards.here(), None);
    }
}
