//! Ratings on SQLite: applying a rated match's end inside the writer's
//! transaction, and the reads the ledger, leaderboards and player pages
//! serve.

use std::collections::HashMap;

use parlor_competition::{LedgerLine, Rating};
use rusqlite::{params, Connection, OptionalExtension};

use super::super::corrections::{corrections, needed, void_key, VoidJob, VOID_BATCH};
use super::super::ratings::{line_for, line_text, BoardRow, Head, RatedEnd, StoredRating};
use super::StoreError;

/// Writes the ledger's next line for `end` and the players' new ratings
/// (the caller's savepoint holds them with the match's final step).
pub(super) fn apply(conn: &Connection, end: &RatedEnd) -> Result<LedgerLine, StoreError> {
    let head = conn
        .prepare_cached("SELECT n, hash, at_ms FROM ledger ORDER BY n DESC LIMIT 1")?
        .query_row([], |r| {
            Ok(Head {
                n: r.get::<_, i64>(0)?.unsigned_abs(),
                hash: r.get(1)?,
                at_ms: r.get::<_, i64>(2)?.unsigned_abs(),
            })
        })
        .optional()?;
    let mut current = HashMap::new();
    for s in &end.seats {
        if let Some(r) = rating(conn, &end.pool, &s.account_key)? {
            current.insert(s.account_key.clone(), r);
        }
    }
    let line = line_for(end, head.as_ref(), &current);
    let n = to_i64(line.n)?;
    conn.prepare_cached(
        "INSERT INTO ledger (n, room, pool, at_ms, hash, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        n,
        line.room,
        line.pool,
        to_i64(line.at_ms)?,
        line.hash,
        line_text(&line)
    ])?;
    for (s, p) in end.seats.iter().zip(&line.players) {
        conn.prepare_cached(
            "INSERT INTO ratings (pool, account_key, name, rating, rd, vol, games, last_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7) \
             ON CONFLICT (pool, account_key) DO UPDATE SET name = excluded.name, \
             rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, \
             games = games + 1, last_ms = excluded.last_ms",
        )?
        .execute(params![
            end.pool,
            s.account_key,
            s.name,
            p.after.rating,
            p.after.rd,
            p.after.vol,
            to_i64(line.at_ms)?
        ])?;
        conn.prepare_cached("INSERT INTO ledger_seats (account_key, n) VALUES (?1, ?2)")?
            .execute(params![s.account_key, n])?;
    }
    Ok(line)
}

/// Voids up to [`VOID_BATCH`] of `job`'s account's rated results not
/// voided yet, newest first: the correction lines and the corrected
/// ratings (the caller's savepoint holds them). The lines written.
pub(super) fn void(conn: &Connection, job: &VoidJob) -> Result<Vec<LedgerLine>, StoreError> {
    let texts: Vec<String> = conn
        .prepare_cached(
            "SELECT l.line FROM ledger_seats s JOIN ledger l ON l.n = s.n \
             WHERE s.account_key = ?1 AND l.at_ms >= ?2 \
             AND NOT EXISTS (SELECT 1 FROM ledger v WHERE v.room = 'void:' || l.room) \
             ORDER BY l.n DESC LIMIT ?3",
        )?
        .query_map(
            params![
                job.account_key,
                to_i64(job.from_ms)?,
                i64::try_from(VOID_BATCH).unwrap_or(i64::MAX)
            ],
            |r| r.get(0),
        )?
        .collect::<Result<_, _>>()?;
    let targets = texts
        .iter()
        .map(|t| serde_json::from_str::<LedgerLine>(t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| StoreError::Corrupt(format!("a ledger line: {e}")))?;
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    let head = conn
        .prepare_cached("SELECT n, hash, at_ms FROM ledger ORDER BY n DESC LIMIT 1")?
        .query_row([], |r| {
            Ok(Head {
                n: r.get::<_, i64>(0)?.unsigned_abs(),
                hash: r.get(1)?,
                at_ms: r.get::<_, i64>(2)?.unsigned_abs(),
            })
        })
        .optional()?;
    let mut current = HashMap::new();
    for (pool, key) in needed(&targets) {
        if let Some(r) = rating(conn, &pool, &key)? {
            current.insert((pool, key), r);
        }
    }
    let lines = corrections(job, head.as_ref(), &targets, &current)?;
    for line in &lines {
        conn.prepare_cached(
            "INSERT INTO ledger (n, room, pool, at_ms, hash, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            to_i64(line.n)?,
            void_key(&line.room),
            line.pool,
            to_i64(line.at_ms)?,
            line.hash,
            line_text(line)
        ])?;
        for p in &line.players {
            conn.prepare_cached(
                "UPDATE ratings SET rating = ?1, rd = ?2, vol = ?3 \
                 WHERE pool = ?4 AND account_key = ?5",
            )?
            .execute(params![
                p.after.rating,
                p.after.rd,
                p.after.vol,
                line.pool,
                parlor_protocol::account_key(&p.name)
            ])?;
        }
    }
    Ok(lines)
}

fn to_i64(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Corrupt(format!("{v} is out of range")))
}

/// A player's stored rating in a pool.
pub(super) fn rating(
    conn: &Connection,
    pool: &str,
    account_key: &str,
) -> Result<Option<StoredRating>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT rating, rd, vol, games, last_ms FROM ratings WHERE pool = ?1 AND account_key = ?2",
        )?
        .query_row(params![pool, account_key], stored)
        .optional()?)
}

fn stored(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRating> {
    Ok(StoredRating {
        rating: Rating {
            rating: r.get(0)?,
            rd: r.get(1)?,
            vol: r.get(2)?,
        },
        games: r.get::<_, i64>(3)?.unsigned_abs(),
        last_ms: r.get::<_, i64>(4)?.unsigned_abs(),
    })
}

/// Every pool's rating of a player, by pool name.
pub(in crate::store) fn ratings_of(
    conn: &Connection,
    account_key: &str,
) -> Result<Vec<(String, StoredRating)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT rating, rd, vol, games, last_ms, pool FROM ratings WHERE account_key = ?1 ORDER BY pool",
    )?;
    let rows = stmt.query_map(params![account_key], |r| Ok((r.get(5)?, stored(r)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Ledger lines (their JSON) after `after`, of `pool` if given, at most `limit`.
pub(in crate::store) fn ledger(
    conn: &Connection,
    after: u64,
    pool: Option<&str>,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT line FROM ledger WHERE n > ?1 AND (?2 IS NULL OR pool = ?2) ORDER BY n LIMIT ?3",
    )?;
    let rows = stmt.query_map(
        params![
            to_i64(after)?,
            pool,
            i64::try_from(limit).unwrap_or(i64::MAX)
        ],
        |r| r.get(0),
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The latest line's number and hash.
pub(in crate::store) fn head(conn: &Connection) -> Result<Option<(u64, String)>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT n, hash FROM ledger ORDER BY n DESC LIMIT 1")?
        .query_row([], |r| Ok((r.get::<_, i64>(0)?.unsigned_abs(), r.get(1)?)))
        .optional()?)
}

/// The ledger line of the match in `room`, if it was rated.
pub(in crate::store) fn line_of(
    conn: &Connection,
    room: &str,
) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT line FROM ledger WHERE room = ?1")?
        .query_row(params![room], |r| r.get(0))
        .optional()?)
}

/// The lines a player played in, newest first, at most `limit`.
pub(in crate::store) fn lines_of(
    conn: &Connection,
    account_key: &str,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT l.line FROM ledger_seats s JOIN ledger l ON l.n = s.n \
         WHERE s.account_key = ?1 ORDER BY s.n DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(
        params![account_key, i64::try_from(limit).unwrap_or(i64::MAX)],
        |r| r.get(0),
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A pool's ratings with deviation at most `max_rd`, best first, of
/// accounts of `kind` if given, at most `limit`; a marked account
/// (moderation's `engine` or `booster`) is left out.
pub(in crate::store) fn board(
    conn: &Connection,
    pool: &str,
    kind: Option<&str>,
    max_rd: f64,
    limit: usize,
) -> Result<Vec<BoardRow>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.rating, r.rd, r.vol, r.games, r.last_ms, r.name, a.kind \
         FROM ratings r JOIN accounts a ON a.name_key = r.account_key \
         WHERE r.pool = ?1 AND r.rd <= ?2 AND (?3 IS NULL OR a.kind = ?3) AND a.mark IS NULL \
         ORDER BY r.rating DESC, r.account_key LIMIT ?4",
    )?;
    let rows = stmt.query_map(
        params![pool, max_rd, kind, i64::try_from(limit).unwrap_or(i64::MAX)],
        |r| {
            Ok(BoardRow {
                rating: stored(r)?,
                name: r.get(5)?,
                kind: r.get(6)?,
            })
        },
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}
