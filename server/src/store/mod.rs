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

use std::net::IpAddr;
use std::path::PathBuf;

use parlor_games::{Outcome, Seat};
use parlor_protocol::{Closed, LogEntry, MatchHeader, MatchLog, RoomId};
use tokio::sync::oneshot;
use uuid::Uuid;

mod cluster;
mod exported;
mod faults;
mod health;
mod job;
mod postgres;
mod rows;
mod sqlite;
mod task;

pub use faults::{Faults, ReadHold};
pub use health::FAILURE_SHOWN_FOR;
pub use task::StoreTask;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Sync {
    /// Survives the process dying (WAL, synchronous=NORMAL).
    #[default]
    Normal,
    /// Also survives power loss: fsync on every commit (synchronous=FULL).
    Full,
}

/// Who sits in a seat, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredSeat {
    /// A player, known by their resume token.
    Player {
        /// Resume token.
        token: Uuid,
        /// Display name.
        name: String,
        /// What they added to the deal.
        client_seed: Option<String>,
    },
    /// A built-in bot.
    Bot {
        /// Strategy name.
        strategy: String,
    },
}

/// One step as the store files it: the action is already the JSON text
/// of a `LoggedAction` (a room writes it straight from its typed move,
/// which spares building a JSON tree per move only to print it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The position it was played from.
    pub seq: u64,
    /// Who acted.
    pub seat: Seat,
    /// The `LoggedAction`, as JSON.
    pub action: String,
}

impl Step {
    /// The step `seat` took from position `seq`; `action` serialises as a
    /// `LoggedAction`.
    pub fn new(seq: u64, seat: Seat, action: &impl serde::Serialize) -> Result<Step, StoreError> {
        let action = serde_json::to_string(action)
            .map_err(|e| StoreError::Corrupt(format!("a step did not encode: {e}")))?;
        Ok(Step { seq, seat, action })
    }
}

/// A match's number in the store, what its seats and moves are filed
/// under, and the epoch its writer holds it at. Numbers grow with every
/// match, which keeps a live match's rows together at the end of the
/// tables (see `schema`). The epoch is a shared store's fencing token:
/// each node that takes a room over bumps it, and a write made at an older
/// epoch is refused ([`StoreError::Fenced`]); SQLite's is always 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MatchKey {
    id: i64,
    epoch: i64,
}

impl MatchKey {
    /// A match first held at epoch 1 (its creation).
    pub(crate) fn new(id: i64) -> MatchKey {
        MatchKey { id, epoch: 1 }
    }

    /// A match held at `epoch`.
    pub(crate) fn at(id: i64, epoch: i64) -> MatchKey {
        MatchKey { id, epoch }
    }

    /// The epoch this key writes at.
    pub fn epoch(&self) -> i64 {
        self.epoch
    }
}

/// A match's header as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// The room.
    pub room: RoomId,
    /// Game, options, seats, seed and clock.
    pub header: MatchHeader,
    /// Not listed in the lobby.
    pub private: bool,
    /// Who made it, and when.
    pub origin: Origin,
}

/// Who made a match and when: what the caps and lifetimes need after a
/// restart (absent for matches stored by older servers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The creator's resume token.
    pub creator: Option<Uuid>,
    /// The creator's address, as the caps count it (IPv6 by /64).
    pub addr: Option<IpAddr>,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_ms: Option<u64>,
}

/// A match restored at start-up.
#[derive(Clone, Debug)]
pub struct StoredMatch {
    /// Its number in the store.
    pub key: MatchKey,
    /// Its header.
    pub record: MatchRecord,
    /// Seats taken, by seat number.
    pub seats: Vec<(Seat, StoredSeat)>,
    /// Every step so far.
    pub moves: Vec<LogEntry>,
    /// Clocks (ms left per seat) after the last step, if the room has a clock.
    pub clocks: Option<Vec<u64>>,
}

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
    Postgres(PgStore),
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
                Ok((Store(Backend::Postgres(store)), task))
            }
        }
    }

    /// A throwaway SQLite store, opened without a runtime (tests, tools).
    pub fn throwaway() -> Result<(Store, StoreTask), StoreError> {
        let (store, thread) = SqliteStore::open(None, Sync::Normal, Faults::new())?;
        Ok((Store(Backend::Sqlite(store)), StoreTask::thread(thread)))
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
        self.write(|r| WriteJob::Create(record, r)).await
    }

    /// Hands a write job to the backend's writer and waits for its answer
    /// (both backends take the same jobs, built here once).
    async fn write<T>(&self, job: impl FnOnce(Reply<T>) -> WriteJob) -> Result<T, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => s.write(job).await,
            Backend::Postgres(s) => s.write(job).await,
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
        self.append_step(key, step, clocks, outcome).await
    }

    /// [`Store::append`] for a step whose action is already JSON.
    pub async fn append_step(
        &self,
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
    ) -> Result<(), StoreError> {
        self.write(|reply| WriteJob::Append {
            key,
            step,
            clocks,
            outcome,
            reply,
        })
        .await
    }

    /// Records that a match closed without an outcome: it is not
    /// restored again, and its log says why it ended.
    pub async fn close_match(&self, key: MatchKey, why: Closed) -> Result<(), StoreError> {
        self.write(|r| WriteJob::Close(key, why, r)).await
    }

    /// Whether other nodes may share this store (PostgreSQL): then a
    /// node hosts only the rooms it owns, and takes over orphans by
    /// [`Store::claim`], rather than restoring every unfinished match.
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Backend::Postgres(_))
    }

    /// What only a shared store (cluster mode) answers; `None` for SQLite.
    pub fn cluster(&self) -> Option<ClusterStore<'_>> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some(ClusterStore(s)),
        }
    }

    /// This node's id in a shared store (it changes when the node loses
    /// its lease); `None` for SQLite.
    pub fn node_id(&self) -> Option<std::sync::Arc<str>> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some(s.node_id()),
        }
    }

    /// In a shared store: a receiver whose value grows each time this
    /// node lost its lease (and so every room it hosted), and how often
    /// to [`Store::claim`]. `None` for SQLite.
    pub fn ownership(&self) -> Option<(tokio::sync::watch::Receiver<u64>, std::time::Duration)> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some((s.generations(), s.claim_every())),
        }
    }

    /// Takes over this node's share of the orphaned rooms (unfinished,
    /// whose owner stopped or lost its lease) at a bumped epoch, and reads
    /// each back whole. SQLite has no other node: nothing to claim.
    pub async fn claim(&self) -> Result<Vec<StoredMatch>, StoreError> {
        match &self.0 {
            Backend::Sqlite(_) => Ok(Vec::new()),
            Backend::Postgres(s) => s.claim().await,
        }
    }

    /// Why this node cannot serve now, if it cannot, known without a
    /// round trip: in a shared store its lease is not surely held (the
    /// last renewals failed, or it ran out); on either store, the last
    /// commit failed (within [`FAILURE_SHOWN_FOR`], none since succeeded).
    pub fn health(&self) -> Result<(), String> {
        match &self.0 {
            Backend::Sqlite(s) => s.health(),
            Backend::Postgres(s) => s.health(),
        }
    }

    /// In a shared store, whether this node surely holds its lease now;
    /// `None` for SQLite.
    pub fn lease_held(&self) -> Option<bool> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some(s.lease_held()),
        }
    }

    /// In a shared store, how many times this node has lost its lease
    /// (and with it every room it hosted then); `None` for SQLite.
    pub fn generation(&self) -> Option<u64> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some(s.generation()),
        }
    }

    /// In a shared store, how long from now this node surely holds its
    /// lease (zero: not surely); `None` for SQLite.
    pub fn lease_left(&self) -> Option<std::time::Duration> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some(s.lease_left()),
        }
    }

    /// A shared store's lease; `None` for SQLite.
    pub fn lease(&self) -> Option<std::time::Duration> {
        match &self.0 {
            Backend::Sqlite(_) => None,
            Backend::Postgres(s) => Some(s.lease()),
        }
    }

    /// Takes over every orphaned room in which `token` holds a seat (a
    /// player resuming here), and reads each back whole; with how many
    /// unfinished rooms the token holds a seat in, wherever they are
    /// hosted. SQLite: nothing to claim.
    pub async fn claim_for(&self, token: Uuid) -> Result<(Vec<StoredMatch>, i64), StoreError> {
        match &self.0 {
            Backend::Sqlite(_) => Ok((Vec::new(), 0)),
            Backend::Postgres(s) => s.claim_for(token).await,
        }
    }

    /// Every match not yet finished, with its seats and steps.
    pub async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => s.unfinished().await,
            Backend::Postgres(s) => s.unfinished().await,
        }
    }

    /// The log of a match; `None` if there is no such room.
    /// `Err(Corrupt)` never hides an unfinished match: callers check the outcome.
    pub async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => s.log(room).await,
            Backend::Postgres(s) => s.log(room).await,
        }
    }
}
