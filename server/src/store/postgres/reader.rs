//! Reads: each on a pooled connection of its own, never inside the
//! writer's transaction, in one read-only snapshot (`REPEATABLE READ`),
//! so a match's header, seats and steps agree with each other while
//! moves are being committed.

use std::collections::HashMap;

use deadpool_postgres::{Pool, PoolError, Transaction};
use parlor_games::Seat;
use parlor_protocol::{MatchLog, RoomId};
use tokio_postgres::types::ToSql;
use tokio_postgres::{IsolationLevel, Row};

use super::super::rows::{HeaderRow, MoveRow, SeatRow, Steps};
use super::super::{AccountGame, Faults, StoreError, StoredMatch, StoredSeat};

/// How long one read (its queries and their rows) may take: generous, as
/// the restore at start-up reads every unfinished match at once.
pub(super) const PG_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

const HEADER_COLUMNS: &str = "id, room, game, options::text, seats, seed, clock::text, private, \
     outcome::text, closed::text, deal::text, creator::text, creator_addr, created_ms, epoch, \
     rated, turn::text";

/// Runs `read` in a read-only snapshot on a pooled connection.
pub(super) async fn snapshot<T>(
    pool: &Pool,
    faults: &Faults,
    read: impl AsyncFnOnce(&Transaction<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let reading = async {
        let mut client = pool.get().await.map_err(pool_error)?;
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await?;
        let out = read(&tx).await;
        // Testing hook: a held read keeps its transaction open here.
        faults.wait_while_reads_held_async().await;
        // What was read is one committed state whether or not the commit
        // is answered; a connection that fails here is not reused.
        if let Err(e) = tx.commit().await {
            tracing::debug!(error = %e, "ending a read transaction");
        }
        out
    };
    tokio::time::timeout(PG_READ_TIMEOUT, reading)
        .await
        .map_err(|_| {
            StoreError::Unavailable(format!(
                "no answer from the database within {PG_READ_TIMEOUT:?}"
            ))
        })?
}

pub(super) fn pool_error(e: PoolError) -> StoreError {
    match e {
        PoolError::Backend(e) => StoreError::Postgres(e),
        other => StoreError::Unavailable(format!("no database connection: {other}")),
    }
}

fn small(v: i16, what: &str) -> Result<u8, StoreError> {
    u8::try_from(v).map_err(|_| StoreError::Corrupt(format!("{what} {v}")))
}

fn header_row(row: &Row) -> Result<HeaderRow, StoreError> {
    Ok(HeaderRow {
        id: row.try_get(0)?,
        room: row.try_get(1)?,
        game: row.try_get(2)?,
        options: row.try_get(3)?,
        seats: small(row.try_get(4)?, "seat count")?,
        seed: row.try_get(5)?,
        clock: row.try_get(6)?,
        private: row.try_get(7)?,
        outcome: row.try_get(8)?,
        closed: row.try_get(9)?,
        deal: row.try_get(10)?,
        creator: row.try_get(11)?,
        creator_addr: row.try_get(12)?,
        created_ms: row.try_get(13)?,
        epoch: row.try_get(14)?,
        rated: row.try_get(15)?,
        turn: row.try_get(16)?,
    })
}

/// A seat row whose first column is its match's id.
fn seat_row(row: &Row) -> Result<(i64, SeatRow), StoreError> {
    Ok((
        row.try_get(0)?,
        SeatRow {
            seat: small(row.try_get(1)?, "seat")?,
            kind: row.try_get(2)?,
            token: row.try_get(3)?,
            name: row.try_get(4)?,
            strategy: row.try_get(5)?,
            client_seed: row.try_get(6)?,
            account_key: row.try_get(7)?,
        },
    ))
}

/// A move row whose first column is its match's id.
fn move_row(row: &Row) -> Result<(i64, MoveRow), StoreError> {
    Ok((
        row.try_get(0)?,
        MoveRow {
            seq: row.try_get(1)?,
            seat: small(row.try_get(2)?, "seat")?,
            action: row.try_get(3)?,
            clocks: row.try_get(4)?,
        },
    ))
}

const SEAT_COLUMNS: &str =
    "s.match_id, s.seat, s.kind, s.token::text, s.name, s.strategy, s.client_seed, s.account_key";
const MOVE_COLUMNS: &str = "v.match_id, v.seq, v.seat, v.action, v.clocks";

/// Every unfinished match, oldest first, with its seats and steps: three
/// queries in all, however many matches there are.
pub(super) async fn unfinished(tx: &Transaction<'_>) -> Result<Vec<StoredMatch>, StoreError> {
    matches(tx, "NOT m.finished", &[]).await
}

/// The matches numbered `ids` (those that exist), oldest first, with
/// their seats and steps.
pub(super) async fn by_id(
    tx: &Transaction<'_>,
    ids: &[i64],
) -> Result<Vec<StoredMatch>, StoreError> {
    matches(tx, "m.id = ANY($1)", &[&ids]).await
}

/// The matches `m` for which `filter` holds (with `params`), oldest
/// first, with their seats and steps: three queries in all.
async fn matches(
    tx: &Transaction<'_>,
    filter: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<StoredMatch>, StoreError> {
    let headers = tx
        .query(
            &format!("SELECT {HEADER_COLUMNS} FROM matches m WHERE {filter} ORDER BY id"),
            params,
        )
        .await?;
    let seat_rows = tx
        .query(
            &format!(
                "SELECT {SEAT_COLUMNS} FROM seats s JOIN matches m ON m.id = s.match_id \
                 WHERE {filter} ORDER BY s.match_id, s.seat"
            ),
            params,
        )
        .await?;
    let move_rows = tx
        .query(
            &format!(
                "SELECT {MOVE_COLUMNS} FROM moves v JOIN matches m ON m.id = v.match_id \
                 WHERE {filter} ORDER BY v.match_id, v.seq"
            ),
            params,
        )
        .await?;
    let mut seats: HashMap<i64, Vec<(Seat, StoredSeat)>> = HashMap::new();
    for row in &seat_rows {
        let (id, seat) = seat_row(row)?;
        seats.entry(id).or_default().push(seat.decode()?);
    }
    let mut steps: HashMap<i64, Steps> = HashMap::new();
    for row in &move_rows {
        let (id, step) = move_row(row)?;
        steps.entry(id).or_default().push(step)?;
    }
    let mut out = Vec::with_capacity(headers.len());
    for row in &headers {
        let header = header_row(row)?.decode()?;
        let id = header.key.id;
        out.push(header.into_match(
            seats.remove(&id).unwrap_or_default(),
            steps.remove(&id).unwrap_or_default(),
        ));
    }
    Ok(out)
}

/// A match's header, steps and outcome; `None` if there is no such room.
pub(super) async fn log(
    tx: &Transaction<'_>,
    room: &RoomId,
) -> Result<Option<MatchLog>, StoreError> {
    let header = tx
        .prepare_cached(&format!(
            "SELECT {HEADER_COLUMNS} FROM matches WHERE room = $1"
        ))
        .await?;
    let Some(row) = tx.query_opt(&header, &[&room.as_str()]).await? else {
        return Ok(None);
    };
    let header = header_row(&row)?.decode()?;
    let seat_sql =
        format!("SELECT {SEAT_COLUMNS} FROM seats s WHERE s.match_id = $1 ORDER BY s.seat");
    let move_sql =
        format!("SELECT {MOVE_COLUMNS} FROM moves v WHERE v.match_id = $1 ORDER BY v.seq");
    let (seat_query, move_query) =
        tokio::try_join!(tx.prepare_cached(&seat_sql), tx.prepare_cached(&move_sql))?;
    let key: [&(dyn ToSql + Sync); 1] = [&header.key.id];
    let (seat_rows, move_rows) =
        tokio::try_join!(tx.query(&seat_query, &key), tx.query(&move_query, &key),)?;
    let mut seats = Vec::with_capacity(seat_rows.len());
    for row in &seat_rows {
        seats.push(seat_row(row)?.1.decode()?);
    }
    let mut steps = Steps::default();
    for row in &move_rows {
        steps.push(move_row(row)?.1)?;
    }
    Ok(Some(header.into_log(&seats, steps)))
}

/// The finished matches in which the account `account_key` held a seat.
pub(super) async fn played_by(
    tx: &Transaction<'_>,
    account_key: &str,
) -> Result<Vec<crate::store::PlayedMatch>, StoreError> {
    let rows = tx
        .query(
            "SELECT m.game, s.seat, m.outcome::text FROM seats s JOIN matches m ON m.id = s.match_id \
             WHERE s.account_key = $1 AND m.finished",
            &[&account_key],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let outcome: Option<String> = r.try_get(2)?;
        out.push(crate::store::PlayedMatch {
            game: r.try_get(0)?,
            seat: Seat(small(r.try_get(1)?, "seat")?),
            outcome: outcome
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|e| StoreError::Corrupt(format!("an outcome: {e}")))?,
        });
    }
    Ok(out)
}

/// The unfinished matches in which the account `account_key` holds a
/// seat, newest first, at most `limit` (one per match: its first seat),
/// with every seat of each: two queries.
pub(super) async fn games_of(
    tx: &Transaction<'_>,
    account_key: &str,
    limit: usize,
) -> Result<Vec<AccountGame>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let cols = HEADER_COLUMNS
        .split(", ")
        .map(|c| format!("m.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    let headers = tx
        .query(
            &format!(
                "SELECT {cols}, mine.seat FROM matches m JOIN \
                 (SELECT match_id, MIN(seat) AS seat FROM seats WHERE account_key = $1 \
                 GROUP BY match_id) mine ON mine.match_id = m.id \
                 WHERE NOT m.finished ORDER BY m.id DESC LIMIT $2"
            ),
            &[&account_key, &limit],
        )
        .await?;
    let ids: Vec<i64> = headers
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    let seat_rows = tx
        .query(
            &format!(
                "SELECT {SEAT_COLUMNS} FROM seats s WHERE s.match_id = ANY($1) \
                 ORDER BY s.match_id, s.seat"
            ),
            &[&ids],
        )
        .await?;
    let mut seats: HashMap<i64, Vec<(Seat, StoredSeat)>> = HashMap::new();
    for row in &seat_rows {
        let (id, seat) = seat_row(row)?;
        seats.entry(id).or_default().push(seat.decode()?);
    }
    let mut out = Vec::with_capacity(headers.len());
    for row in &headers {
        let mine = small(row.try_get(17)?, "seat")?;
        let header = header_row(row)?.decode()?;
        let id = header.key.id;
        out.push(header.into_game(Seat(mine), seats.remove(&id).unwrap_or_default()));
    }
    Ok(out)
}
