//! The durable event log: matches, seats and every accepted step, in SQLite.
//!
//! One writer thread owns the connection. Jobs arrive on a channel; the
//! thread takes all that are waiting (up to [`STORE_BATCH`]), runs them in
//! one transaction and only then answers each, so a move is acknowledged
//! only once it is committed, and many rooms share one commit under load.
//! WAL mode with `synchronous=NORMAL`: a commit survives the process being
//! killed at any moment (what the crash tests check); only an OS crash or
//! power loss can lose the last commits. `--sync full` trades speed for that.

use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;

use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{Clock, LogEntry, LoggedAction, MatchHeader, MatchLog, RoomId};
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::limits::{CHECKPOINT_INTERVAL, STORE_BATCH, STORE_QUEUE};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored value did not decode.
    #[error("corrupt record in the database: {0}")]
    Corrupt(String),
    /// The writer thread is gone (shutting down).
    #[error("the store is closed")]
    Closed,
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
    },
    /// A built-in bot.
    Bot {
        /// Strategy name.
        strategy: String,
    },
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
}

/// A match restored at start-up.
#[derive(Clone, Debug)]
pub struct StoredMatch {
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

enum Job {
    Create(MatchRecord, Reply<()>),
    Seat(RoomId, Seat, Option<StoredSeat>, Reply<()>),
    Append {
        room: RoomId,
        entry: LogEntry,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
        reply: Reply<()>,
    },
    Unfinished(Reply<Vec<StoredMatch>>),
    Log(RoomId, Reply<Option<MatchLog>>),
}

/// A handle on the store; cheap to clone. The writer thread stops when the
/// last handle is dropped.
#[derive(Clone, Debug)]
pub struct Store {
    tx: std_mpsc::SyncSender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("store job")
    }
}

/// The tables. `moves` and `seats` are `WITHOUT ROWID`: keyed by their
/// primary key alone, an insert updates one b-tree instead of a table and
/// its key index (databases created before keep their layout; both read
/// the same).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS matches (
    room TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seats INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    clock TEXT,
    private INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    room TEXT NOT NULL,
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    token TEXT,
    name TEXT,
    strategy TEXT,
    PRIMARY KEY (room, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS moves (
    room TEXT NOT NULL,
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    clocks TEXT,
    PRIMARY KEY (room, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS matches_unfinished ON matches (finished);
";

impl Store {
    /// Opens (or creates) the database at `path` (`None`: in memory, for
    /// tests and throwaway servers) and starts the writer thread.
    pub fn open(path: Option<&Path>, sync: Sync) -> Result<(Store, JoinHandle<()>), StoreError> {
        let conn = match path {
            Some(p) => Connection::open(p)?,
            None => Connection::open_in_memory()?,
        };
        conn.pragma_update(None, "journal_mode", "WAL")?;
        let level = match sync {
            Sync::Normal => "NORMAL",
            Sync::Full => "FULL",
        };
        conn.pragma_update(None, "synchronous", level)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.execute_batch(SCHEMA)?;
        // Checkpoints run on their own thread (see CHECKPOINT_INTERVAL); it
        // stops when the writer does, which drops `alive`.
        let (alive, stopped) = std_mpsc::channel::<()>();
        if let Some(p) = path {
            conn.pragma_update(None, "wal_autocheckpoint", 0)?;
            let checkpoints = Connection::open(p)?;
            std::thread::Builder::new()
                .name("parlor-checkpoint".into())
                .spawn(move || checkpointer(checkpoints, stopped))
                .map_err(|e| {
                    StoreError::Corrupt(format!("cannot start the checkpoint thread: {e}"))
                })?;
        }
        let (tx, rx) = std_mpsc::sync_channel(STORE_QUEUE);
        let name: PathBuf = path.map(Path::to_path_buf).unwrap_or_default();
        let handle = std::thread::Builder::new()
            .name("parlor-store".into())
            .spawn(move || {
                writer(conn, rx, name);
                drop(alive);
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the store thread: {e}")))?;
        Ok((Store { tx }, handle))
    }

    async fn ask<T>(&self, job: impl FnOnce(Reply<T>) -> Job) -> Result<T, StoreError> {
        let (reply, rx) = oneshot::channel();
        let tx = self.tx.clone();
        let job = job(reply);
        // The queue is bounded; when it is full, wait on a blocking thread
        // rather than stall the async worker.
        match tx.try_send(job) {
            Ok(()) => {}
            Err(std_mpsc::TrySendError::Full(job)) => {
                tokio::task::spawn_blocking(move || tx.send(job))
                    .await
                    .map_err(|_| StoreError::Closed)?
                    .map_err(|_| StoreError::Closed)?;
            }
            Err(std_mpsc::TrySendError::Disconnected(_)) => return Err(StoreError::Closed),
        }
        rx.await.map_err(|_| StoreError::Closed)?
    }

    /// Records a new match.
    pub async fn create_match(&self, record: MatchRecord) -> Result<(), StoreError> {
        self.ask(|r| Job::Create(record, r)).await
    }

    /// Records who sits in a seat (`None`: nobody).
    pub async fn set_seat(
        &self,
        room: RoomId,
        seat: Seat,
        who: Option<StoredSeat>,
    ) -> Result<(), StoreError> {
        self.ask(|r| Job::Seat(room, seat, who, r)).await
    }

    /// Appends one step, with the clocks after it and, if it ended the
    /// match, the outcome. Returns once committed.
    pub async fn append(
        &self,
        room: RoomId,
        entry: LogEntry,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
    ) -> Result<(), StoreError> {
        self.ask(|reply| Job::Append {
            room,
            entry,
            clocks,
            outcome,
            reply,
        })
        .await
    }

    /// Every match not yet finished, with its seats and steps.
    pub async fn unfinished(&self) -> Result<Vec<StoredMatch>, StoreError> {
        self.ask(Job::Unfinished).await
    }

    /// The log of a finished match; `None` if there is no such room.
    /// `Err(Corrupt)` never hides an unfinished match: callers check the outcome.
    pub async fn log(&self, room: RoomId) -> Result<Option<MatchLog>, StoreError> {
        self.ask(|r| Job::Log(room, r)).await
    }
}

/// Copies committed WAL frames into the database file every
/// [`CHECKPOINT_INTERVAL`] without blocking the writer (a passive
/// checkpoint), until the writer stops; then once more, fully.
fn checkpointer(conn: Connection, stopped: std_mpsc::Receiver<()>) {
    let checkpoint = |mode: &str| {
        if let Err(e) = conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(())) {
            tracing::debug!(error = %e, "checkpoint failed; the next one will retry");
        }
    };
    while let Err(std_mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_INTERVAL) {
        checkpoint("PASSIVE");
    }
    checkpoint("TRUNCATE");
}

fn writer(mut conn: Connection, rx: std_mpsc::Receiver<Job>, path: PathBuf) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < STORE_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        run_batch(&mut conn, batch);
    }
    tracing::debug!(db = %path.display(), "store closed");
}

/// Outcome of one job inside the transaction, answered after the commit.
enum Done {
    Unit(Reply<()>, Result<(), StoreError>),
    Matches(
        Reply<Vec<StoredMatch>>,
        Result<Vec<StoredMatch>, StoreError>,
    ),
    Log(
        Reply<Option<MatchLog>>,
        Result<Option<MatchLog>, StoreError>,
    ),
}

fn run_batch(conn: &mut Connection, batch: Vec<Job>) {
    let tx = match conn.transaction() {
        Ok(tx) => tx,
        Err(e) => {
            let msg = e.to_string();
            for job in batch {
                fail(job, &msg);
            }
            return;
        }
    };
    let mut done = Vec::with_capacity(batch.len());
    for job in batch {
        done.push(match job {
            Job::Create(rec, r) => Done::Unit(r, create(&tx, &rec)),
            Job::Seat(room, seat, who, r) => {
                Done::Unit(r, set_seat(&tx, &room, seat, who.as_ref()))
            }
            Job::Append {
                room,
                entry,
                clocks,
                outcome,
                reply,
            } => Done::Unit(
                reply,
                append(&tx, &room, &entry, clocks.as_deref(), outcome),
            ),
            Job::Unfinished(r) => Done::Matches(r, unfinished(&tx)),
            Job::Log(room, r) => Done::Log(r, log(&tx, &room)),
        });
    }
    let commit = tx.commit().map_err(|e| e.to_string());
    for d in done {
        match (d, &commit) {
            (Done::Unit(r, res), Ok(())) => drop(r.send(res)),
            (Done::Matches(r, res), Ok(())) => drop(r.send(res)),
            (Done::Log(r, res), Ok(())) => drop(r.send(res)),
            (Done::Unit(r, _), Err(e)) => {
                drop(r.send(Err(StoreError::Corrupt(format!("commit failed: {e}")))))
            }
            (Done::Matches(r, _), Err(e)) => {
                drop(r.send(Err(StoreError::Corrupt(format!("commit failed: {e}")))))
            }
            (Done::Log(r, _), Err(e)) => {
                drop(r.send(Err(StoreError::Corrupt(format!("commit failed: {e}")))))
            }
        }
    }
}

fn fail(job: Job, msg: &str) {
    let err = || StoreError::Corrupt(format!("cannot start a transaction: {msg}"));
    match job {
        Job::Create(_, r) | Job::Seat(_, _, _, r) => drop(r.send(Err(err()))),
        Job::Append { reply, .. } => drop(reply.send(Err(err()))),
        Job::Unfinished(r) => drop(r.send(Err(err()))),
        Job::Log(_, r) => drop(r.send(Err(err()))),
    }
}

fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("{e} in {s:?}")))
}

fn create(tx: &rusqlite::Transaction<'_>, rec: &MatchRecord) -> Result<(), StoreError> {
    let h = &rec.header;
    let clock = h.clock.as_ref().map(to_json).transpose()?;
    tx.prepare_cached(
        "INSERT INTO matches (room, game, options, seats, seed, clock, private) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
            rec.room.as_str(),
            h.game.name(),
            to_json(&h.options)?,
            h.seats,
            // SQLite integers are signed; the seed's bits are kept as they are.
            h.seed as i64,
            clock,
            rec.private
        ],
    )?;
    Ok(())
}

fn set_seat(
    tx: &rusqlite::Transaction<'_>,
    room: &RoomId,
    seat: Seat,
    who: Option<&StoredSeat>,
) -> Result<(), StoreError> {
    match who {
        None => {
            tx.execute(
                "DELETE FROM seats WHERE room = ?1 AND seat = ?2",
                params![room.as_str(), seat.0],
            )?;
        }
        Some(StoredSeat::Player { token, name }) => {
            tx.prepare_cached(
                "INSERT OR REPLACE INTO seats (room, seat, kind, token, name) VALUES (?1, ?2, 'player', ?3, ?4)",
            )?
            .execute(params![room.as_str(), seat.0, token.to_string(), name])?;
        }
        Some(StoredSeat::Bot { strategy }) => {
            tx.execute(
                "INSERT OR REPLACE INTO seats (room, seat, kind, strategy) VALUES (?1, ?2, 'bot', ?3)",
                params![room.as_str(), seat.0, strategy],
            )?;
        }
    }
    Ok(())
}

fn append(
    tx: &rusqlite::Transaction<'_>,
    room: &RoomId,
    entry: &LogEntry,
    clocks: Option<&[u64]>,
    outcome: Option<Outcome>,
) -> Result<(), StoreError> {
    let clocks = clocks.map(to_json).transpose()?;
    // Cached statements: moves are the hot path; the SQL is compiled once
    // per connection, not once per move.
    tx.prepare_cached(
        "INSERT INTO moves (room, seq, seat, action, clocks) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        room.as_str(),
        entry.seq as i64,
        entry.seat.0,
        to_json(&entry.action)?,
        clocks
    ])?;
    if let Some(outcome) = outcome {
        tx.prepare_cached("UPDATE matches SET finished = 1, outcome = ?2 WHERE room = ?1")?
            .execute(params![room.as_str(), to_json(&outcome)?])?;
    }
    Ok(())
}

/// A `matches` row: room, game, options, seats, seed, clock, private, outcome.
type HeaderRow = (
    String,
    String,
    String,
    u8,
    i64,
    Option<String>,
    bool,
    Option<String>,
);

fn header_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<HeaderRow> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
    ))
}

fn decode_header(row: HeaderRow) -> Result<(MatchRecord, Option<Outcome>), StoreError> {
    let (room, game, options, seats, seed, clock, private, outcome) = row;
    let room = RoomId::new(room.clone())
        .ok_or_else(|| StoreError::Corrupt(format!("room id {room:?}")))?;
    let game: GameKind = game
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
    let header = MatchHeader {
        game,
        options: from_json(&options)?,
        seats,
        seed: seed as u64,
        clock: clock.as_deref().map(from_json::<Clock>).transpose()?,
    };
    let outcome = outcome.as_deref().map(from_json::<Outcome>).transpose()?;
    Ok((
        MatchRecord {
            room,
            header,
            private,
        },
        outcome,
    ))
}

const HEADER_COLUMNS: &str = "room, game, options, seats, seed, clock, private, outcome";

fn moves(
    tx: &rusqlite::Transaction<'_>,
    room: &RoomId,
) -> Result<(Vec<LogEntry>, Option<Vec<u64>>), StoreError> {
    let mut stmt = tx.prepare_cached(
        "SELECT seq, seat, action, clocks FROM moves WHERE room = ?1 ORDER BY seq",
    )?;
    let rows = stmt.query_map(params![room.as_str()], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, u8>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    let mut entries = Vec::new();
    let mut clocks = None;
    for row in rows {
        let (seq, seat, action, c) = row?;
        entries.push(LogEntry {
            seq: seq as u64,
            seat: Seat(seat),
            action: from_json::<LoggedAction>(&action)?,
        });
        clocks = c.as_deref().map(from_json::<Vec<u64>>).transpose()?;
    }
    Ok((entries, clocks))
}

fn unfinished(tx: &rusqlite::Transaction<'_>) -> Result<Vec<StoredMatch>, StoreError> {
    let mut stmt = tx.prepare(&format!(
        "SELECT {HEADER_COLUMNS} FROM matches WHERE finished = 0 ORDER BY rowid"
    ))?;
    let headers: Vec<HeaderRow> = stmt
        .query_map([], header_from_row)?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(headers.len());
    for row in headers {
        let (record, _) = decode_header(row)?;
        let mut seat_stmt = tx.prepare_cached(
            "SELECT seat, kind, token, name, strategy FROM seats WHERE room = ?1 ORDER BY seat",
        )?;
        let seat_rows = seat_stmt.query_map(params![record.room.as_str()], |r| {
            Ok((
                r.get::<_, u8>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?;
        let mut seats = Vec::new();
        for r in seat_rows {
            let (seat, kind, token, name, strategy) = r?;
            let who = match (kind.as_str(), token, strategy) {
                ("player", Some(token), _) => StoredSeat::Player {
                    token: token
                        .parse()
                        .map_err(|e| StoreError::Corrupt(format!("token: {e}")))?,
                    name: name.unwrap_or_default(),
                },
                ("bot", _, Some(strategy)) => StoredSeat::Bot { strategy },
                (kind, _, _) => return Err(StoreError::Corrupt(format!("seat kind {kind:?}"))),
            };
            seats.push((Seat(seat), who));
        }
        let (moves, clocks) = moves(tx, &record.room)?;
        out.push(StoredMatch {
            record,
            seats,
            moves,
            clocks,
        });
    }
    Ok(out)
}

fn log(tx: &rusqlite::Transaction<'_>, room: &RoomId) -> Result<Option<MatchLog>, StoreError> {
    let row = tx
        .query_row(
            &format!("SELECT {HEADER_COLUMNS} FROM matches WHERE room = ?1"),
            params![room.as_str()],
            header_from_row,
        )
        .optional()?;
    let Some(row) = row else { return Ok(None) };
    let (record, outcome) = decode_header(row)?;
    let (moves, _) = moves(tx, room)?;
    Ok(Some(MatchLog {
        room: record.room,
        header: record.header,
        moves,
        outcome,
    }))
}
