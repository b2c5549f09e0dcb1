//! What a node tells Prometheus (`GET /metrics`): every metric's name,
//! and the one-line calls that record an event where it happens.
//!
//! Events (moves, refusals, commits, claims, fenced writes, bus
//! publishes) and open connections go to a process-wide recorder
//! (`recorder`), installed once however many servers a process runs
//! (tests run several): they then add up every server of the process.
//! Rooms by game and state, and the lease, are read from the server being
//! asked when it is asked (`scrape`), so they are that server's own.
//!
//! | name | type | labels |
//! |---|---|---|
//! | [`CONNECTIONS`] | gauge | |
//! | [`ROOMS`] | gauge | `game`, `state` |
//! | [`MOVES`] | counter | `game` |
//! | [`REFUSED_MOVES`] | counter | `code` |
//! | [`COMMIT_SECONDS`] | histogram | `store` |
//! | [`CHECKPOINT_SECONDS`] | histogram | `step` |
//! | [`BUS_PUBLISHES`] | counter | |
//! | [`LEASES_HELD`] | gauge (cluster mode) | |
//! | [`ROOMS_CLAIMED`] | counter | |
//! | [`FENCED_WRITES`] | counter | |

mod health;
mod recorder;
mod scrape;

use std::time::Duration;

use parlor_games::GameKind;
use parlor_protocol::ErrorCode;

pub use health::{health, Health};
pub use recorder::install;
pub use scrape::{render, Census};

/// Connections holding one of the server's slots (WebSocket sessions,
/// and plain HTTP requests while they are answered).
pub const CONNECTIONS: &str = "parlor_connections_open";
/// Rooms hosted, by `game` and `state` (`waiting`, `playing`, `finished`:
/// finished rooms linger a while for their players).
pub const ROOMS: &str = "parlor_rooms";
/// Steps accepted and stored, by `game`: moves played by people and
/// bots, moves made when a clock ran out, and forfeits. Its rate is the
/// moves per second.
pub const MOVES: &str = "parlor_moves_accepted_total";
/// Moves a room refused, by error `code` (`action/stale_seq`, ...).
pub const REFUSED_MOVES: &str = "parlor_moves_refused_total";
/// How long one batch of writes took to commit, by `store` (`sqlite`,
/// `postgres`), in seconds.
pub const COMMIT_SECONDS: &str = "parlor_store_commit_seconds";
/// How long a step of a SQLite checkpoint took, by `step`: `copy` (the
/// bulk, while commits go on) and `finish` (the rest, while commits
/// wait: every move in that time waits as long), in seconds.
pub const CHECKPOINT_SECONDS: &str = "parlor_store_checkpoint_seconds";
/// Messages published on the cluster's bus.
pub const BUS_PUBLISHES: &str = "parlor_bus_publishes_total";
/// Whether this node holds its lease (1) or not (0); cluster mode only.
pub const LEASES_HELD: &str = "parlor_leases_held";
/// Orphaned rooms this process claimed (cluster mode).
pub const ROOMS_CLAIMED: &str = "parlor_rooms_claimed_total";
/// Writes the epoch guard refused: another node had taken their room
/// over (cluster mode).
pub const FENCED_WRITES: &str = "parlor_fenced_writes_total";

/// The histogram's buckets, in seconds: a SQLite commit takes tens of
/// microseconds to a few milliseconds, a PostgreSQL one a round trip or
/// two (a millisecond on a LAN); the top buckets catch a stalled disk or
/// database.
pub const COMMIT_BUCKETS: &[f64] = &[
    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    10.0,
];

/// The checkpoint histogram's buckets, in seconds: the locked finish
/// takes a millisecond or a few (two syncs), the copy tens of
/// milliseconds; the top buckets catch a stalled disk.
pub const CHECKPOINT_BUCKETS: &[f64] = &[
    0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// A step of a SQLite checkpoint took `took`.
pub fn checkpoint_took(step: CheckpointStep, took: Duration) {
    metrics::histogram!(CHECKPOINT_SECONDS, "step" => step.label()).record(took.as_secs_f64());
}

/// A step of a SQLite checkpoint (see `store::sqlite::checkpoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointStep {
    /// Copying the bulk of the log while commits go on.
    Copy,
    /// Copying the rest while commits wait.
    Finish,
}

impl CheckpointStep {
    fn label(self) -> &'static str {
        match self {
            CheckpointStep::Copy => "copy",
            CheckpointStep::Finish => "finish",
        }
    }
}

/// A step of a `game` match was stored.
pub fn move_accepted(game: GameKind) {
    metrics::counter!(MOVES, "game" => game.name()).increment(1);
}

/// A room refused a move with `code`.
pub fn move_refused(code: ErrorCode) {
    metrics::counter!(REFUSED_MOVES, "code" => code.as_str()).increment(1);
}

/// The store backend a commit went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl StoreKind {
    fn label(self) -> &'static str {
        match self {
            StoreKind::Sqlite => "sqlite",
            StoreKind::Postgres => "postgres",
        }
    }
}

/// A batch of writes took `took` to commit (or to fail).
pub fn commit_took(store: StoreKind, took: Duration) {
    metrics::histogram!(COMMIT_SECONDS, "store" => store.label()).record(took.as_secs_f64());
}

/// `n` messages were published on the cluster's bus. The bus calls this
/// once per publish (or once per batch of `n`).
pub fn bus_published(n: u64) {
    metrics::counter!(BUS_PUBLISHES).increment(n);
}

/// `n` orphaned rooms were claimed.
pub fn rooms_claimed(n: u64) {
    metrics::counter!(ROOMS_CLAIMED).increment(n);
}

/// A write was fenced (its room is another node's now).
pub fn write_fenced() {
    metrics::counter!(FENCED_WRITES).increment(1);
}

/// A connection holding a slot: counted in [`CONNECTIONS`] while it
/// lives.
#[derive(Debug)]
#[must_use = "the connection counts as open while this lives"]
pub struct OpenConnection(());

impl OpenConnection {
    /// Counts a connection as open until the value is dropped.
    pub fn open() -> OpenConnection {
        metrics::gauge!(CONNECTIONS).increment(1.0);
        OpenConnection(())
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        metrics::gauge!(CONNECTIONS).decrement(1.0);
    }
}

/// The value of `series` (a name, with its labels as rendered) in the
/// process's recorder, installed if need be; 0 if not recorded yet.
#[cfg(test)]
pub(crate) fn value(series: &str) -> f64 {
    recorder::handle()
        .map(|h| h.render())
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix(series)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0.0)
}
