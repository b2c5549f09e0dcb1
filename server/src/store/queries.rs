//! The SQL behind each store job: writes run on the writer's connection
//! inside its batch's transaction, reads on a reader's connection inside
//! a read transaction.

use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{Clock, LogEntry, LoggedAction, MatchHeader, MatchLog, RoomId};
use rusqlite::{params, Connection, OptionalExtension};

use super::{MatchKey, MatchRecord, Step, StoreError, StoredMatch, StoredSeat};

/// Runs `sql` (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE) as a cached
/// statement: compiling them for every batch showed in profiles.
pub(super) fn control(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("{e} in {s:?}")))
}

/// Inserts a match; its number is the new row's id.
pub(super) fn create(conn: &Connection, rec: &MatchRecord) -> Result<MatchKey, StoreError> {
    let h = &rec.header;
    let clock = h.clock.as_ref().map(to_json).transpose()?;
    conn.prepare_cached(
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
    ])?;
    Ok(MatchKey(conn.last_insert_rowid()))
}

pub(super) fn set_seat(
    conn: &Connection,
    key: MatchKey,
    seat: Seat,
    who: Option<&StoredSeat>,
) -> Result<(), StoreError> {
    match who {
        None => {
            conn.prepare_cached("DELETE FROM seats WHERE match_id = ?1 AND seat = ?2")?
                .execute(params![key.0, seat.0])?;
        }
        Some(StoredSeat::Player { token, name }) => {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO seats (match_id, seat, kind, token, name) VALUES (?1, ?2, 'player', ?3, ?4)",
            )?
            .execute(params![key.0, seat.0, token.to_string(), name])?;
        }
        Some(StoredSeat::Bot { strategy }) => {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO seats (match_id, seat, kind, strategy) VALUES (?1, ?2, 'bot', ?3)",
            )?
            .execute(params![key.0, seat.0, strategy])?;
        }
    }
    Ok(())
}

pub(super) fn append(
    conn: &Connection,
    key: MatchKey,
    step: &Step,
    clocks: Option<&[u64]>,
    outcome: Option<Outcome>,
) -> Result<(), StoreError> {
    let clocks = clocks.map(to_json).transpose()?;
    // Cached statements: moves are the hot path; the SQL is compiled once
    // per connection, not once per move.
    conn.prepare_cached(
        "INSERT INTO moves (match_id, seq, seat, action, clocks) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        key.0,
        step.seq as i64,
        step.seat.0,
        step.action,
        clocks
    ])?;
    if let Some(outcome) = outcome {
        conn.prepare_cached("UPDATE matches SET finished = 1, outcome = ?2 WHERE id = ?1")?
            .execute(params![key.0, to_json(&outcome)?])?;
    }
    Ok(())
}

const HEADER_COLUMNS: &str = "id, room, game, options, seats, seed, clock, private, outcome";

/// A `matches` row, as [`HEADER_COLUMNS`] lists it.
struct HeaderRow {
    id: i64,
    room: String,
    game: String,
    options: String,
    seats: u8,
    seed: i64,
    clock: Option<String>,
    private: bool,
    outcome: Option<String>,
}

fn header_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<HeaderRow> {
    Ok(HeaderRow {
        id: row.get(0)?,
        room: row.get(1)?,
        game: row.get(2)?,
        options: row.get(3)?,
        seats: row.get(4)?,
        seed: row.get(5)?,
        clock: row.get(6)?,
        private: row.get(7)?,
        outcome: row.get(8)?,
    })
}

fn decode_header(row: HeaderRow) -> Result<(MatchKey, MatchRecord, Option<Outcome>), StoreError> {
    let room = RoomId::new(row.room.clone())
        .ok_or_else(|| StoreError::Corrupt(format!("room id {:?}", row.room)))?;
    let game: GameKind = row
        .game
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
    let header = MatchHeader {
        game,
        options: from_json(&row.options)?,
        seats: row.seats,
        seed: row.seed as u64,
        clock: row.clock.as_deref().map(from_json::<Clock>).transpose()?,
    };
    let outcome = row
        .outcome
        .as_deref()
        .map(from_json::<Outcome>)
        .transpose()?;
    Ok((
        MatchKey(row.id),
        MatchRecord {
            room,
            header,
            private: row.private,
        },
        outcome,
    ))
}

/// A match's steps in order, and the clocks after the last one.
fn moves(
    conn: &Connection,
    key: MatchKey,
) -> Result<(Vec<LogEntry>, Option<Vec<u64>>), StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, seat, action, clocks FROM moves WHERE match_id = ?1 ORDER BY seq",
    )?;
    let rows = stmt.query_map(params![key.0], |r| {
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

fn seats(conn: &Connection, key: MatchKey) -> Result<Vec<(Seat, StoredSeat)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seat, kind, token, name, strategy FROM seats WHERE match_id = ?1 ORDER BY seat",
    )?;
    let rows = stmt.query_map(params![key.0], |r| {
        Ok((
            r.get::<_, u8>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, Option<String>>(4)?,
        ))
    })?;
    let mut seats = Vec::new();
    for r in rows {
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
    Ok(seats)
}

/// Every unfinished match, oldest first, with its seats and steps.
pub(super) fn unfinished(conn: &Connection) -> Result<Vec<StoredMatch>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {HEADER_COLUMNS} FROM matches WHERE finished = 0 ORDER BY id"
    ))?;
    let headers: Vec<HeaderRow> = stmt
        .query_map([], header_from_row)?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(headers.len());
    for row in headers {
        let (key, record, _) = decode_header(row)?;
        let seats = seats(conn, key)?;
        let (moves, clocks) = moves(conn, key)?;
        out.push(StoredMatch {
            key,
            record,
            seats,
            moves,
            clocks,
        });
    }
    Ok(out)
}

/// A match's header, steps and outcome; `None` if there is no such room.
pub(super) fn log(conn: &Connection, room: &RoomId) -> Result<Option<MatchLog>, StoreError> {
    let row = conn
        .prepare_cached(&format!(
            "SELECT {HEADER_COLUMNS} FROM matches WHERE room = ?1"
        ))?
        .query_row(params![room.as_str()], header_from_row)
        .optional()?;
    let Some(row) = row else { return Ok(None) };
    let (key, record, outcome) = decode_header(row)?;
    let (moves, _) = moves(conn, key)?;
    Ok(Some(MatchLog {
        room: record.room,
        header: record.header,
        moves,
        outcome,
    }))
}
