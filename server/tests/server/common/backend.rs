//! The store backends a store test runs on: a SQLite file in a temporary
//! directory, or a scratch schema in the test database. Either can be
//! opened, closed and opened again on the same data.

use parlor_server::store::{Faults, Store, StoreTask};
use parlor_server::testing::ScratchSchema;
use parlor_server::{StoreConfig, Sync};
use tempfile::TempDir;

/// Where a store test's data lives.
pub enum Backend {
    /// A SQLite file, `parlor.db` in the directory.
    Sqlite(TempDir),
    /// A schema of its own in PostgreSQL.
    Postgres(ScratchSchema),
}

impl Backend {
    /// A fresh SQLite file.
    pub fn sqlite() -> Backend {
        Backend::Sqlite(tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")))
    }

    /// A fresh Postgres schema; `None` if the test is skipped (see
    /// `parlor_server::testing::missing_service`).
    pub async fn postgres() -> Option<Backend> {
        ScratchSchema::new().await.map(Backend::Postgres)
    }

    /// The SQLite file, if this is one.
    pub fn sqlite_file(&self) -> Option<std::path::PathBuf> {
        match self {
            Backend::Sqlite(dir) => Some(dir.path().join("parlor.db")),
            Backend::Postgres(_) => None,
        }
    }

    /// The store's settings.
    pub fn config(&self) -> StoreConfig {
        match self {
            Backend::Sqlite(_) => StoreConfig::Sqlite {
                db: self.sqlite_file(),
                sync: Sync::Normal,
            },
            Backend::Postgres(s) => s.config(),
        }
    }

    /// Opens the store.
    pub async fn open(&self) -> (Store, StoreTask) {
        self.open_with(&Faults::new()).await
    }

    /// Opens the store with faults the test arms through `faults`.
    pub async fn open_with(&self, faults: &Faults) -> (Store, StoreTask) {
        Store::open_with_faults(&self.config(), faults.clone())
            .await
            .unwrap_or_else(|e| panic!("cannot open the store: {e}"))
    }

    /// Runs `sql` (statements separated by `;`) on the data directly.
    pub async fn execute(&self, sql: &str) {
        match self {
            Backend::Sqlite(_) => {
                let file = self.sqlite_file().unwrap_or_else(|| panic!("a file"));
                let conn = rusqlite::Connection::open(file).unwrap_or_else(|e| panic!("{e}"));
                conn.execute_batch(sql).unwrap_or_else(|e| panic!("{e}"));
            }
            Backend::Postgres(s) => {
                let (client, conn) = tokio_postgres::connect(&s.url(), tokio_postgres::NoTls)
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
                tokio::spawn(conn);
                client
                    .batch_execute(sql)
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }

    /// Marks the data as written by a server whose layout is `version`.
    pub async fn claim_layout(&self, version: i32) {
        match self {
            Backend::Sqlite(_) => {
                let file = self.sqlite_file().unwrap_or_else(|| panic!("a file"));
                let conn = rusqlite::Connection::open(file).unwrap_or_else(|e| panic!("{e}"));
                conn.pragma_update(None, "user_version", version)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            Backend::Postgres(s) => {
                // The layout table exists once a store has been opened.
                let (store, task) = self.open().await;
                close(store, task).await;
                let (client, conn) = tokio_postgres::connect(&s.url(), tokio_postgres::NoTls)
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
                tokio::spawn(conn);
                client
                    .execute("UPDATE layout SET version = $1", &[&version])
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}

/// Closes the store and waits for its writer to finish.
pub async fn close(store: Store, task: StoreTask) {
    drop(store);
    task.finished().await.unwrap_or_else(|e| panic!("{e}"));
}
