//! The durable event log: matches, seats and every accepted step, in one
//! of a closed set of backends with the same API.
//!
//! - [`StoreConfig::Sqlite`] (the default, `sqlite`): one file, one writer
//!   thread, WAL mode; a single node's log.
//! - [`StoreConfig::Postgres`] (`postgres`, `--cluster URL`): a database
//!   several nodes can share, reached over the network; a writer task.
//!
//! Every backend commits jobs in batches (group commit), each job in a
//! savepoint of its own so that one job's failure leaves nothing of it
//! while its neighbours commit, and answers a job only once its batch is
//! committed: a move is acknowledged only once it is stored. Reads never
//! run inside the writer's transaction. [`Faults`] makes commits, appends
//! and reads fail or stall on purpose, for tests, on every backend.
//!
//! `Store` dispatches on an enum, not a trait object: the hot path (one
//! append per move) costs one match, no allocation and no virtual call.

use std::path::PathBuf;

use parlor_games::{Outcome, Seat};
use parlor_protocol::{Closed, LogEntry, MatchLog, RoomId};
use tokio::sync::oneshot;

mod beside;
mod cluster;
mod corrections;
mod embargo;
mod exported;
mod faults;
mod final_clocks;
mod health;
mod job;
mod postgres;
mod ratings;
mod rows;
mod sqlite;
mod task;
mod types;

pub use corrections::{VoidJob, VOID_BATCH};
pub use faults::{Faults, ReadHold};
pub use health::FAILURE_SHOWN_FOR;
pub use ratings::{BoardRow, RatedEnd, RatedSeat, StoredRating, LEDGER_PAGE};
pub use sqlite::backup::{backup, BackupDone, BACKUP_BUSY_TIMEOUT};
pub use sqlite::{STORE_READERS, STORE_READ_QUEUE};
pub use task::StoreTask;
pub use types::{
    AccountGame, Claimed, MatchKey, MatchRecord, Origin, PlayedMatch, Step, StoredMatch,
    StoredSeat, Turn, TurnSeat,
};

pub(crate) use beside::sql::{pg_args, pg_refs};
pub use beside::{Arg, Beside, Col, Kind, Row, BESIDE_BUSY_TIMEOUT};
pub use cluster::ClusterStore;
pub use exported::{ExportedMatch, ExportedStep};
pub use postgres::{
    HeldSeat, Listing, Loaded, Loader, LobbyQuery, NodeSettings, Whereabouts, DEFAULT_SCHEMA,
};

/// Reads every match of the SQLite file at `path` (without changing it),
/// oldest first, handing each to `each`; how many there were.
pub fn dump_sqlite(
    path: &std::path::Path,
    each: impl FnMut(ExportedMatch) -> Result<(), StoreError>,
) -> Result<usize, StoreError> {
    sqlite::dump(path, each)
}

use job::WriteJob;
use postgres::PgStore;
use sqlite::SqliteStore;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL refused, or the connection to it broke.
    #[error("database error: {}", with_causes(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// The database could not be reached, or did not answer in time.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The store's settings are unusable (a malformed URL, say).
    #[error("bad store settings: {0}")]
    Settings(String),
    /// A stored value did not decode.
    #[error("corrupt record in the database: {0}")]
    Corrupt(String),
    /// The writer thread is gone (shutting down).
    #[error("the store is closed")]
    Closed,
    /// This node no longer owns the match: another node took it over (a
    /// higher epoch), or this node's lease ran out. Nothing was written.
    #[error("this server no longer hosts the room: {0}")]
    Fenced(String),
    /// The database was asked to commit but its answer never came: the
    /// write may or may not be stored (read the log to know).
    #[error("the database did not confirm the commit: {0}")]
    Unconfirmed(String),
    /// A fault armed through [`Faults`] (tests only).
    #[error("injected fault: {0}")]
    Injected(&'static str),
}

impl StoreError {
    /// Whether the database refused a row because its key is taken: a
    /// step at a `seq` the match already has, or a room id in use.
    pub fn is_duplicate(&self) -> bool {
        match self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => matches!(
                e.extended_code,
                rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                    | rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            ),
            StoreError::Postgres(e) => {
                e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
            }
            _ => false,
        }
    }

    /// Whether the write may be stored after all: its commit was never
    /// confirmed, or the step's position is already taken (an earlier
    /// unconfirmed commit of it went through). The room reads its log
    /// to know.
    pub fn may_be_stored(&self) -> bool {
        matches!(self, StoreError::Unconfirmed(_)) || self.is_duplicate()
    }
}

/// An error and every cause under it: tokio-postgres keeps what the
/// database said (the constraint, the lost connection) in the causes.
pub(crate) fn with_causes(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

/// How hard a commit is pushed to disk.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Sync {
    /// Survives the process dying (WAL, synchronous=NORMAL).
    #[default]
    Normal,
    /// Also survives power loss: fsync on every commit (synchronous=FULL).
    Full,
}

/// Store jobs committed in one transaction: batching moves from many rooms
/// into one commit is what makes durable writes cheap under load.
pub(crate) const STORE_BATCH: usize = 512;

/// Store jobs waiting for the writer thread before callers wait their turn.
pub(crate) const STORE_QUEUE: usize = 8_192;

type Reply<T> = oneshot::Sender<Result<T, StoreError>>;

/// Which database holds the log, and how it is reached.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreConfig {
    /// A SQLite file, created if missing.
    Sqlite {
        /// The file; `None`: a throwaway file that vanishes with the store
        /// (tests, the CLI's private server).
        db: Option<PathBuf>,
        /// How hard commits are pushed to disk.
        sync: Sync,
    },
    /// A PostgreSQL database, which the nodes of a cluster share:
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`. The tables go in the
    /// schema [`DEFAULT_SCHEMA`], or the first of a `search_path` the URL
    /// sets (`?options=-c%20search_path%3DNAME`), created if missing.
    Postgres {
        /// Where the database is.
        url: String,
        /// This node's lease and address.
        node: NodeSettings,
    },
}

impl Default for StoreConfig {
    /// A throwaway SQLite database.
    fn default() -> Self {
        StoreConfig::Sqlite {
            db: None,
            sync: Sync::Normal,
        }
    }
}

impl std::fmt::Debug for StoreConfig {
    /// As [`std::fmt::Display`]: a URL's password stays out of the logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreConfig::Sqlite { db, sync } => f
                .debug_struct("Sqlite")
                .field("db", db)
                .field("sync", sync)
                .finish(),
            StoreConfig::Postgres { url, node } => f
                .debug_struct("Postgres")
                .field("url", &postgres::redacted(url))
                .field("node", node)
                .finish(),
        }
    }
}

impl std::fmt::Display for StoreConfig {
    /// Where the log is, for the logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreConfig::Sqlite { db: None, .. } => write!(f, "sqlite (throwaway)"),
            StoreConfig::Sqlite { db: Some(p), .. } => write!(f, "sqlite {}", p.display()),
            StoreConfig::Postgres { url, .. } => write!(f, "{}", postgres::redacted(url)),
        }
    }
}

/// A handle on the store; cheap to clone. The store's writer stops once
/// the last handle is dropped (see [`StoreTask`]).
#[derive(Clone, Debug)]
pub struct Store(Backend);

/// The backends.
#[derive(Clone, Debug)]
enum Backend {
    Sqlite(SqliteStore),
    Postgres(ClusterStore),
}

/// The database beside the log for one of the server's tools, which
/// runs beside a running server: the SQLite file at `db` (which must
/// exist: the server makes it), or with `cluster` the PostgreSQL
/// database at that URL. Statements wait out the server's own writes
/// ([`BESIDE_BUSY_TIMEOUT`] on SQLite).
pub async fn open_beside(
    db: &std::path::Path,
    cluster: Option<&str>,
) -> Result<Beside, StoreError> {
    match cluster {
        Some(url) => Ok(Beside::Postgres(postgres::tool_pool(url).await?)),
        None => {
            if !db.exists() {
                return Err(StoreError::Settings(format!(
                    "no database at {} (the server makes it when it first starts)",
                    db.display()
                )));
            }
            let conn = beside::open_sqlite(db)?;
            Ok(Beside::Sqlite(std::sync::Arc::new(std::sync::Mutex::new(
                conn,
            ))))
        }
    }
}

impl Store {
    /// Opens (or creates) the store `config` names, brings it to the
    /// current layout and starts its writer.
    pub async fn open(config: &StoreConfig) -> Result<(Store, StoreTask), StoreError> {
        Store::open_with_faults(config, Faults::new()).await
    }

    /// [`Store::open`] with faults that a test arms through its own clone
    /// of `faults`. A testing hook.
    pub async fn open_with_faults(
        config: &StoreConfig,
        faults: Faults,
    ) -> Result<(Store, StoreTask), StoreError> {
        match config {
            StoreConfig::Sqlite { db, sync } => {
                let (store, thread) = SqliteStore::open(db.as_deref(), *sync, faults)?;
                Ok((Store(Backend::Sqlite(store)), StoreTask::thread(thread)))
            }
            StoreConfig::Postgres { url, node } => {
                let (store, task) = PgStore::open(url, node, faults).await?;
                Ok((Store(Backend::Postgres(ClusterStore(store))), task))
            }
        }
    }

    /// A throwaway SQLite store, opened without a runtime (tests, tools).
    pub fn throwaway() -> Result<(Store, StoreTask), StoreError> {
        let (store, thread) = SqliteStore::open(None, Sync::Normal, Faults::new())?;
        Ok((Store(Backend::Sqlite(store)), StoreTask::thread(thread)))
    }

    /// A handle on the database for tables kept beside the log (the
    /// accounts, tournaments, the ladder and the rest: see [`Beside`]).
    pub fn beside(&self) -> Beside {
        match &self.0 {
            Backend::Sqlite(s) => Beside::Sqlite(s.beside()),
            Backend::Postgres(c) => Beside::Postgres(c.0.pool()),
        }
    }

    /// Lets tasks running on `shards` commit on their own shard thread
    /// (SQLite, unless every commit syncs the disk; see `sqlite::shards`).
    /// PostgreSQL's writer is a task whose round trips to the database
    /// dominate: its jobs still go to it.
    pub fn commit_on(&self, shards: &std::sync::Arc<crate::shard::Shards>) {
        match &self.0 {
            Backend::Sqlite(s) => s.commit_on(shards),
            Backend::Postgres(_) => {}
        }
    }

    /// Records a new match; returns its number, under which its seats and
    /// moves are filed.
    pub async fn create_match(&self, record: MatchRecord) -> Result<MatchKey, StoreError> {
        self.write(|r| WriteJob::Create(Box::new(record), r)).await
    }

    /// Hands a write job to the backend's writer and waits for its answer
    /// (both backends take the same jobs, built here once).
    async fn write<T>(&self, job: impl FnOnce(Reply<T>) -> WriteJob) -> Result<T, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => s.write(job).await,
            Backend::Postgres(s) => s.0.write(job).await,
        }
    }

    /// Records who sits in a seat (`None`: nobody).
    pub async fn set_seat(
        &self,
        key: MatchKey,
        seat: Seat,
        who: Option<StoredSeat>,
    ) -> Result<(), StoreError> {
        self.write(|r| WriteJob::Seat(key, seat, who, r)).await
    }

    /// Appends one log entry, with the clocks after it and, if it ended
    /// the match, the outcome. Returns once committed; on `Err` nothing of
    /// it is stored.
    pub async fn append(
        &self,
        key: MatchKey,
        entry: LogEntry,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
    ) -> Result<(), StoreError> {
        let step = Step::new(entry.seq, entry.seat, &entry.action)?;
        self.append_step(key, step, clocks, outcome, None).await
    }

    /// [`Store::append`] for a step whose action is already JSON, with
    /// whose turn it is after it (`None`: not recorded, see [`Turn`]).
    pub async fn append_step(
        &self,
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
        turn: Option<Turn>,
    ) -> Result<(), StoreError> {
        self.write(|reply| WriteJob::Append {
            key,
            step,
            clocks,
            outcome,
            turn,
            reply,
        })
        .await
    }

    /// Appends a rated match's final step: its outcome, the ratings
    /// ledger's next line and the players' new ratings are committed
    /// together with it (on `Err` none of it is stored). Returns the line.
    pub async fn append_rated(
        &self,
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Outcome,
        end: RatedEnd,
    ) -> Result<parlor_competition::LedgerLine, StoreError> {
        self.write(|reply| WriteJob::Rated {
            key,
            step,
            clocks,
            outcome,
            end: Box::new(end),
            reply,
        })
        .await
    }

    /// Records whose turn it is (a match starting; steps record theirs).
    pub async fn record_turn(&self, key: MatchKey, turn: Turn) -> Result<(), StoreError> {
        self.write(|r| WriteJob::Turn(key, turn, r)).await
    }

    /// The unfinished matches in which the account whose name's key is
    /// `account_key` holds a seat, newest first, at most `limit`.
    pub async fn games_of(
        &self,
        account_key: &str,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError> {
        let account_key = account_key.to_owned();
        match &self.0 {
            Backend::Sqlite(s) => s.games_of(account_key, limit).await,
            Backend::Postgres(s) => s.0.games_of(account_key, limit).await,
        }
    }

    /// The finished matches in which the account whose name's key is
    /// `account_key` held a seat (one row per seat it held).
    pub async fn played_by(&self, account_key: &str) -> Result<Vec<PlayedMatch>, StoreError> {
        let account_key = account_key.to_owned();
        match &self.0 {
            Backend::Sqlite(s) => s.played_by(account_key).await,
            Backend::Postgres(s) => s.0.played_by(account_key).await,
        }
    }

    /// Records that a match closed without an outcome: it is not
    /// restored again, and its log says why it ended.
    pub async fn close_match(&self, key: MatchKey, why: Closed) -> Result<(), StoreError> {
        self.write(|r| WriteJob::Close(key, why, r)).await
    }

    /// The cluster's side of a shared store (leases, claims, where rooms
    /// are, the lobby); `None` for SQLite. The log API above is the same
    /// on every backend; only a cluster's directory and a room's fencing
    /// check reach past it, and only in cluster mode.
    pub fn cluster(&self) -> Option<&ClusterStore> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some(s),
        }
    }

    /// Why this node cannot serve now, if it cannot, known without a
    /// round trip: in a shared store its lease is not surely held (the
    /// last renewals failed, or it ran out); on either store, the last
    /// commit failed (within [`FAILURE_SHOWN_FOR`], none since succeeded).
    pub fn health(&self) -> Result<(), String> {
        match &self.0 {
            Backend::Sqlite(s) => s.health(),
            Backend::Postgres(s) => s.0.health(),
        }
    }

    /// Every match not yet finished, with its seats and steps.
    pub async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => s.unfinished().await,
            Backend::Postgres(s) => s.0.unfinished().await,
        }
    }

    /// The log of a match; `None` if there is no such room.
    /// `Err(Corrupt)` never hides an unfinished match: callers check the outcome.
    pub async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => s.log(room).await,
            Backend::Postgres(s) => s.0.log(room).await,
        }
    }
}
