//! The database beside the log: a handle other modules (accounts,
//! events, the ladder, ...) use for tables of their own in the same
//! database, apart from the log's writer. Every statement is written once
//! for both databases ([`sql`]: PostgreSQL's spelling, rewritten for
//! SQLite) and run through [`Beside::exec`], [`Beside::fetch`] (typed
//! [`Row`]s), [`Beside::query`], [`Beside::guarded`] or
//! [`Beside::fetch_alone`] (a check-and-change under a lock).
//!
//! # Who makes these tables
//!
//! The store's migrations make them (`sqlite::schema`,
//! `postgres::schema`: one ordered list of steps per database, the
//! log's tables and these alike), but the store never writes them and
//! knows nothing of what their rows mean: their owners run every
//! statement on them. The one exception is a read: the leaderboard joins
//! `accounts` for each rated account's kind.
//!
//! Why not have each owner register its own DDL: the owners depend on
//! the store, never the other way round, so the store cannot name them;
//! a list assembled above the store at start-up would make a database's
//! layout number depend on which modules registered what, and a step
//! often spans owners (the ladder's layout also adds `accounts.builtin`).
//! One list per database, in the store, keeps the order plain and every
//! database's layout a single number.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use deadpool_postgres::{Object, Pool};
use rusqlite::Connection;

use super::StoreError;

mod row;
pub mod sql;

pub use row::Row;
pub use sql::{Arg, Col, Kind};

/// How long a statement on the SQLite side connection waits for the
/// file's write lock: the log's batches hold it for milliseconds, so this
/// is ample, and bounded so that a stuck database fails a request rather
/// than hangs it.
pub const BESIDE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection to the log's database for tables beside it.
#[derive(Clone, Debug)]
pub enum Beside {
    /// A connection of its own on the log's SQLite file, used from
    /// blocking threads (one statement at a time).
    Sqlite(Arc<Mutex<Connection>>),
    /// The cluster's PostgreSQL pool.
    Postgres(Pool),
}

/// Opens the side connection on the SQLite file at `path`; the log's
/// migrations have made every table by then.
pub(super) fn open_sqlite(path: &std::path::Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BESIDE_BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // SQLite opens its WAL lazily, on the first read: read now, while the
    // file still has its name (a throwaway store unlinks it once every
    // connection is open; a first read after that is a disk I/O error).
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))?;
    Ok(conn)
}

impl Beside {
    /// Runs `f` on the SQLite side connection `conn` on a blocking thread
    /// (one statement or a few at a time: the connection is shared).
    pub async fn on_sqlite<T: Send + 'static>(
        conn: &Arc<Mutex<Connection>>,
        f: impl FnOnce(&Connection) -> Result<T, rusqlite::Error> + Send + 'static,
    ) -> Result<T, StoreError> {
        let conn = Arc::clone(conn);
        tokio::task::spawn_blocking(move || {
            let guard = conn.lock().unwrap_or_else(|e| e.into_inner());
            f(&guard).map_err(StoreError::from)
        })
        .await
        .map_err(|_| StoreError::Unavailable("a database thread failed".into()))?
    }

    /// The PostgreSQL pool, for what only a cluster keeps (matchmaking's
    /// books of live connections); `None` on SQLite.
    pub fn postgres_pool(&self) -> Option<Pool> {
        match self {
            Beside::Sqlite(_) => None,
            Beside::Postgres(pool) => Some(pool.clone()),
        }
    }

    /// A connection from the PostgreSQL pool.
    pub async fn pg_client(pool: &Pool) -> Result<Object, StoreError> {
        pool.get()
            .await
            .map_err(|e| StoreError::Unavailable(format!("no database connection: {e}")))
    }
}
