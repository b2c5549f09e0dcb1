//! The SQL behind each store job: writes run on the writer's connection
//! inside its batch's transaction, reads on a reader's connection inside
//! a read transaction.

use parlor_games::{Outcome, Seat};
use parlor_protocol::{Closed, MatchLog, RoomId};
use rusqlite::{params, Connection, OptionalExtension};

use super::super::rows::{account_key, to_json, HeaderRow, MoveRow, NewHeader, SeatRow, Steps};
use super::super::{AccountGame, Turn};
use super::{MatchKey, MatchRecord, Step, StoreError, StoredMatch, StoredSeat};

/// Runs `sql` (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE) as a cached
/// statement: compiling them for every batch showed in profiles.
pub(super) fn control(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

/// Inserts a match; its number is the new row's id.
pub(super) fn create(conn: &Connection, rec: &MatchRecord) -> Result<MatchKey, StoreError> {
    let h = NewHeader::encode(rec)?;
    conn.prepare_cached(
        "INSERT INTO matches (room, game, options, seats, seed, clock, private, deal, creator, creator_addr, created_ms, rated) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        h.room,
        h.game,
        h.options,
        h.seats,
        h.seed,
        h.clock,
        h.private,
        h.deal,
        h.creator,
        h.creator_addr,
        h.created_ms,
        h.rated,
    ])?;
    Ok(MatchKey::new(conn.last_insert_rowid()))
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
                .execute(params![key.id, seat.0])?;
        }
        Some(
            who @ StoredSeat::Player {
                token,
                name,
                client_seed,
                ..
            },
        ) => {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO seats (match_id, seat, kind, token, name, client_seed, account_key) VALUES (?1, ?2, 'player', ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                key.id,
                seat.0,
                token.to_string(),
                name,
                client_seed,
                account_key(who)
            ])?;
        }
        Some(who @ StoredSeat::Bot { strategy, account }) => {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO seats (match_id, seat, kind, strategy, name, account_key) VALUES (?1, ?2, 'bot', ?3, ?4, ?5)",
            )?
            .execute(params![key.id, seat.0, strategy, account, account_key(who)])?;
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
    turn: Option<&Turn>,
) -> Result<(), StoreError> {
    let clocks = clocks.map(to_json).transpose()?;
    // Cached statements: moves are the hot path; the SQL is compiled once
    // per connection, not once per move.
    conn.prepare_cached(
        "INSERT INTO moves (match_id, seq, seat, action, clocks) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        key.id,
        step.seq as i64,
        step.seat.0,
        step.action,
        clocks
    ])?;
    if let Some(outcome) = outcome {
        conn.prepare_cached("UPDATE matches SET finished = 1, outcome = ?2 WHERE id = ?1")?
            .execute(params![key.id, to_json(&outcome)?])?;
    } else if let Some(turn) = turn {
        record_turn(conn, key, turn)?;
    }
    Ok(())
}

/// Records whose turn it is in a match.
pub(super) fn record_turn(conn: &Connection, key: MatchKey, turn: &Turn) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE matches SET turn = ?2 WHERE id = ?1")?
        .execute(params![key.id, to_json(turn)?])?;
    Ok(())
}

/// Marks a match closed without an outcome.
pub(super) fn close(conn: &Connection, key: MatchKey, why: Closed) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE matches SET finished = 1, closed = ?2 WHERE id = ?1")?
        .execute(params![key.id, to_json(&why)?])?;
    Ok(())
}

pub(super) const HEADER_COLUMNS: &str =
    "id, room, game, options, seats, seed, clock, private, outcome, \
     closed, deal, creator, creator_addr, created_ms, rated, turn";

pub(super) fn header_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<HeaderRow> {
    Ok(HeaderRow {
        epoch: 1,
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
        rated: row.get(14)?,
        turn: row.get(15)?,
    })
}

/// A match's steps in order, and the clocks after the last one.
fn moves(conn: &Connection, key: MatchKey) -> Result<Steps, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, seat, action, clocks FROM moves WHERE match_id = ?1 ORDER BY seq",
    )?;
    let rows = stmt.query_map(params![key.id], |r| {
        Ok(MoveRow {
            seq: r.get(0)?,
            seat: r.get(1)?,
            action: r.get(2)?,
            clocks: r.get(3)?,
        })
    })?;
    let mut steps = Steps::default();
    for row in rows {
        steps.push(row?)?;
    }
    Ok(steps)
}

pub(super) fn seats(
    conn: &Connection,
    key: MatchKey,
) -> Result<Vec<(Seat, StoredSeat)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seat, kind, token, name, strategy, client_seed, account_key FROM seats WHERE match_id = ?1 ORDER BY seat",
    )?;
    let rows = stmt.query_map(params![key.id], |r| {
        Ok(SeatRow {
            seat: r.get(0)?,
            kind: r.get(1)?,
            token: r.get(2)?,
            name: r.get(3)?,
            strategy: r.get(4)?,
            client_seed: r.get(5)?,
            account_key: r.get(6)?,
        })
    })?;
    let mut seats = Vec::new();
    for r in rows {
        seats.push(r?.decode()?);
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
        let header = row.decode()?;
        let seats = seats(conn, header.key)?;
        let steps = moves(conn, header.key)?;
        out.push(header.into_match(seats, steps));
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
    let header = row.decode()?;
    let seats = seats(conn, header.key)?;
    let steps = moves(conn, header.key)?;
    Ok(Some(header.into_log(&seats, steps)))
}

/// The finished matches in which the account `account_key` held a seat.
pub(super) fn played_by(
    conn: &Connection,
    account_key: &str,
) -> Result<Vec<crate::store::PlayedMatch>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.game, s.seat, m.outcome FROM seats s JOIN matches m ON m.id = s.match_id \
         WHERE s.account_key = ?1 AND m.finished = 1",
    )?;
    let rows: Vec<(String, u8, Option<String>)> = stmt
        .query_map(params![account_key], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<Result<_, _>>()?;
    rows.into_iter()
        .map(|(game, seat, outcome)| {
            Ok(crate::store::PlayedMatch {
                game,
                seat: Seat(seat),
                outcome: outcome
                    .as_deref()
                    .map(serde_json::from_str)
                    .transpose()
                    .map_err(|e| StoreError::Corrupt(format!("an outcome: {e}")))?,
            })
        })
        .collect()
}

/// The unfinished matches in which the account `account_key` holds a
/// seat, newest first, at most `limit` (one per match: its first seat).
pub(super) fn games_of(
    conn: &Connection,
    account_key: &str,
    limit: usize,
) -> Result<Vec<AccountGame>, StoreError> {
    let cols = HEADER_COLUMNS
        .split(", ")
        .map(|c| format!("m.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {cols}, MIN(s.seat) FROM seats s JOIN matches m ON m.id = s.match_id \
         WHERE s.account_key = ?1 AND m.finished = 0 GROUP BY m.id ORDER BY m.id DESC LIMIT ?2"
    ))?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows: Vec<(HeaderRow, u8)> = stmt
        .query_map(params![account_key, limit], |r| {
            Ok((header_from_row(r)?, r.get(16)?))
        })?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (row, seat) in rows {
        let header = row.decode()?;
        let seats = seats(conn, header.key)?;
        out.push(header.into_game(Seat(seat), seats));
    }
    Ok(out)
}
