//! The store's writer as its owner sees it: something to wait for once
//! every handle is dropped, so that shutdown knows the last commits are
//! done. SQLite's writer is a thread (its connection blocks); Postgres's
//! is a task on the runtime.

use std::thread::JoinHandle;

use super::StoreError;

/// The store's writer. It ends once every [`super::Store`] handle is
/// dropped and the jobs queued before are committed.
#[derive(Debug)]
#[must_use = "wait for it to know the last commits are done"]
pub struct StoreTask(Kind);

#[derive(Debug)]
enum Kind {
    Thread(JoinHandle<()>),
    Task(tokio::task::JoinHandle<()>),
}

impl StoreTask {
    pub(super) fn thread(handle: JoinHandle<()>) -> StoreTask {
        StoreTask(Kind::Thread(handle))
    }

    pub(super) fn task(handle: tokio::task::JoinHandle<()>) -> StoreTask {
        StoreTask(Kind::Task(handle))
    }

    /// Waits until the writer has ended; `Err` if it panicked.
    pub async fn finished(self) -> Result<(), StoreError> {
        let panicked = || StoreError::Corrupt("the store's writer panicked".into());
        match self.0 {
            Kind::Thread(h) => tokio::task::spawn_blocking(move || h.join())
                .await
                .map_err(|_| panicked())?
                .map_err(|_| panicked()),
            Kind::Task(h) => h.await.map_err(|_| panicked()),
        }
    }
}
