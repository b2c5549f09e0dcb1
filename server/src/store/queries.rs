//! The SQL behind each store job: writes run on the writer's connection
//! inside its batch's transaction, reads on a reader's connection inside
//! a read transaction.

use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{Clock, Closed, Deal, LogEntry, LoggedAction, MatchHeader, MatchLog, RoomId};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::{MatchKey, MatchRecord, Origin, Step, StoreError, StoredMatch, StoredSeat};

/// The `deal` column: the server's half of a fair deal (each seat's client
/// seed is kept with its seat).
#[derive(Serialize, Deserialize)]
struct DealColumn {
    commitment: String,
    server_seed: String,
    salt: String,
}

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
    let deal = h
        .deal
        .as_ref()
        .map(|d| {
            to_json(&DealColumn {
                commitment: d.commitment.clone(),
                server_seed: d.server_seed.clone(),
                salt: d.salt.clone(),
            })
        })
        .transpose()?;
    let o = &rec.origin;
    conn.prepare_cached(
        "INSERT INTO matches (room, game, options, seats, seed, clock, private, deal, creator, creator_addr, created_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        rec.room.as_str(),
        h.game.name(),
        to_json(&h.options)?,
        h.seats,
        // SQLite integers are signed; the seed's bits are kept as they
        // are. Fairly dealt matches have none (0, unread).
        h.seed.unwrap_or(0) as i64,
        clock,
        rec.private,
        deal,
        o.creator.map(|t| t.to_string()),
        o.addr.map(|a| a.to_string()),
        o.created_ms.map(|ms| ms as i64),
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
        Some(StoredSeat::Player {
            token,
            name,
            client_seed,
        }) => {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO seats (match_id, seat, kind, token, name, client_seed) VALUES (?1, ?2, 'player', ?3, ?4, ?5)",
            )?
            .execute(params![key.0, seat.0, token.to_string(), name, client_seed])?;
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

/// Marks a match closed without an outcome.
pub(super) fn close(conn: &Connection, key: MatchKey, why: Closed) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE matches SET finished = 1, closed = ?2 WHERE id = ?1")?
        .execute(params![key.0, to_json(&why)?])?;
    Ok(())
}

const HEADER_COLUMNS: &str = "id, room, game, options, seats, seed, clock, private, outcome, \
     closed, deal, creator, creator_addr, created_ms";

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
    closed: Option<String>,
    deal: Option<String>,
    creator: Option<String>,
    creator_addr: Option<String>,
    created_ms: Option<i64>,
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
        closed: row.get(9)?,
        deal: row.get(10)?,
        creator: row.get(11)?,
        creator_addr: row.get(12)?,
        created_ms: row.get(13)?,
    })
}

/// A header as read: what the log and a restore need of a `matches` row.
struct Header {
    key: MatchKey,
    record: MatchRecord,
    outcome: Option<Outcome>,
    closed: Option<Closed>,
}

fn decode_header(row: HeaderRow) -> Result<Header, StoreError> {
    let room = RoomId::new(row.room.clone())
        .ok_or_else(|| StoreError::Corrupt(format!("room id {:?}", row.room)))?;
    let game: GameKind = row
        .game
        .parse()
        .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
    let deal = row
        .deal
        .as_deref()
        .map(from_json::<DealColumn>)
        .transpose()?
        .map(|d| Deal {
            commitment: d.commitment,
            server_seed: d.server_seed,
            salt: d.salt,
            // Filled in from the seats.
            client_seeds: vec![None; usize::from(row.seats)],
        });
    let header = MatchHeader {
        game,
        options: from_json(&row.options)?,
        seats: row.seats,
        seed: deal.is_none().then_some(row.seed as u64),
        deal,
        clock: row.clock.as_deref().map(from_json::<Clock>).transpose()?,
    };
    let origin = Origin {
        creator: row.creator.as_deref().and_then(|t| t.parse().ok()),
        addr: row.creator_addr.as_deref().and_then(|a| a.parse().ok()),
        created_ms: row.created_ms.map(|ms| ms as u64),
    };
    Ok(Header {
        key: MatchKey(row.id),
        record: MatchRecord {
            room,
            header,
            private: row.private,
            origin,
        },
        outcome: row
            .outcome
            .as_deref()
            .map(from_json::<Outcome>)
            .transpose()?,
        closed: row.closed.as_deref().map(from_json::<Closed>).transpose()?,
    })
}

/// Puts each seat's client seed into the header's deal.
fn fill_client_seeds(header: &mut MatchHeader, seats: &[(Seat, StoredSeat)]) {
    let Some(deal) = header.deal.as_mut() else {
        return;
    };
    for (seat, who) in seats {
        if let (StoredSeat::Player { client_seed, .. }, Some(slot)) =
            (who, deal.client_seeds.get_mut(seat.index()))
        {
            slot.clone_from(client_seed);
        }
    }
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
        "SELECT seat, kind, token, name, strategy, client_seed FROM seats WHERE match_id = ?1 ORDER BY seat",
    )?;
    let rows = stmt.query_map(params![key.0], |r| {
        Ok((
            r.get::<_, u8>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, Option<String>>(5)?,
        ))
    })?;
    let mut seats = Vec::new();
    for r in rows {
        let (seat, kind, token, name, strategy, client_seed) = r?;
        let who = match (kind.as_str(), token, strategy) {
            ("player", Some(token), _) => StoredSeat::Player {
                token: token
                    .parse()
                    .map_err(|e| StoreError::Corrupt(format!("token: {e}")))?,
                name: name.unwrap_or_default(),
                client_seed,
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
        let Header {
            key, mut record, ..
        } = decode_header(row)?;
        let seats = seats(conn, key)?;
        fill_client_seeds(&mut record.header, &seats);
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
    let Header {
        key,
        mut record,
        outcome,
        closed,
    } = decode_header(row)?;
    fill_client_seeds(&mut record.header, &seats(conn, key)?);
    let (moves, _) = moves(conn, key)?;
    Ok(Some(MatchLog {
        room: record.room,
        header: record.header,
        moves,
        outcome,
        closed,
    }))
}
