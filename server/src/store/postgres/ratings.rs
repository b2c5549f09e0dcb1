//! Ratings on PostgreSQL: a rated match's end as a transaction of its own
//! (the step, the outcome, the ledger's next line and the new ratings),
//! and the reads the ledger, leaderboards and player pages serve.
//!
//! The end of a rated match is not pipelined with other jobs: its writes
//! depend on what it reads (the ledger's head and the players' ratings),
//! so it runs statement by statement. The head's single row is locked
//! (`FOR UPDATE`) for the transaction, so nodes sharing the database
//! append to one chain one at a time; rated ends are rare next to moves.

use std::collections::HashMap;

use deadpool_postgres::Transaction;
use parlor_competition::{LedgerLine, Rating};
use tokio_postgres::Row;

use super::super::corrections::{corrections, needed, void_key, VoidJob, VOID_BATCH};
use super::super::job::WriteJob;
use super::super::ratings::{line_for, line_text, BoardRow, Head, RatedEnd, StoredRating};
use super::super::rows::to_json;
use super::super::Reply;
use super::super::{with_causes, Faults, StoreError};
use super::batch::Conn;
use super::cluster::node::Node;

/// Why a rated end was not stored.
enum Failed {
    /// Surely not stored: the transaction is rolled back.
    Refused(StoreError),
    /// `COMMIT` went unanswered: it may be stored.
    Unconfirmed(String),
}

impl From<tokio_postgres::Error> for Failed {
    fn from(e: tokio_postgres::Error) -> Failed {
        Failed::Refused(e.into())
    }
}

/// Runs one rated end (a [`WriteJob::Rated`]) and answers it. Returns
/// false if the connection can no longer be trusted.
pub(super) async fn run(conn: &Conn, job: WriteJob, faults: &Faults, node: &Node) -> bool {
    let WriteJob::Rated {
        key,
        step,
        clocks,
        outcome,
        end,
        reply,
    } = job
    else {
        job.refuse(StoreError::Corrupt("not a rated end".into()));
        return true;
    };
    if !node.lease_held() {
        drop(reply.send(Err(StoreError::Unavailable(
            "this server's lease on its rooms is not confirmed; try again shortly".into(),
        ))));
        return true;
    }
    // An injected append failure stores nothing, as a failed statement would.
    if let Err(e) = faults.check_append() {
        drop(reply.send(Err(e)));
        return true;
    }
    let owner = node.id().to_string();
    let s = &conn.statements;
    let writing = async {
        conn.client.execute(&s.begin, &[]).await?;
        let clocks = clocks
            .as_deref()
            .map(to_json)
            .transpose()
            .map_err(Failed::Refused)?;
        let outcome = to_json(&outcome).map_err(Failed::Refused)?;
        let seq = i64::try_from(step.seq).map_err(|_| Failed::Refused(range(step.seq)))?;
        let seat = i16::from(step.seat.0);
        let appended = conn
            .client
            .query(
                &s.append,
                &[
                    &key.id,
                    &seq,
                    &seat,
                    &step.action,
                    &clocks,
                    &owner,
                    &key.epoch,
                ],
            )
            .await?;
        let finished = conn
            .client
            .query(&s.finish, &[&key.id, &outcome, &owner, &key.epoch])
            .await?;
        if appended.is_empty() || finished.is_empty() {
            crate::metrics::write_fenced();
            return Err(Failed::Refused(StoreError::Fenced(
                "another server has taken the room over".into(),
            )));
        }
        let line = apply(&conn.client, &end).await?;
        if faults.commit_fails() {
            return Err(Failed::Refused(StoreError::Injected("commit")));
        }
        conn.client.execute(&s.commit, &[]).await.map_err(|e| {
            if e.code().is_some() {
                Failed::Refused(e.into())
            } else {
                Failed::Unconfirmed(with_causes(&e))
            }
        })?;
        Ok(line)
    };
    let started = tokio::time::Instant::now();
    let ran = tokio::time::timeout(super::PG_BATCH_TIMEOUT, writing).await;
    crate::metrics::commit_took(crate::metrics::StoreKind::Postgres, started.elapsed());
    let (answer, usable) = match ran {
        Ok(Ok(line)) => (Ok(line), true),
        Ok(Err(Failed::Refused(e))) => {
            let rolled_back = match conn.client.execute(&s.rollback, &[]).await {
                Ok(_) => true,
                Err(e) => {
                    tracing::debug!(error = %e, "rollback after a failed rated end");
                    false
                }
            };
            (Err(e), rolled_back)
        }
        Ok(Err(Failed::Unconfirmed(why))) => (Err(StoreError::Unconfirmed(why)), false),
        Err(_) => (
            Err(StoreError::Unconfirmed(format!(
                "no answer from the database within {:?}",
                super::PG_BATCH_TIMEOUT
            ))),
            false,
        ),
    };
    // As for a batch: only a commit that failed as a whole counts
    // against the node's health, not a job the database refused.
    let unconfirmed = match &answer {
        Err(StoreError::Unconfirmed(why)) => Some(why.clone()),
        _ => None,
    };
    node.commits
        .record(unconfirmed.as_deref().map_or(Ok(()), Err));
    drop(reply.send(answer));
    usable && !conn.client.is_closed()
}

/// Runs one void (a [`WriteJob::Void`]) as a transaction of its own and
/// answers it with the correction lines. Returns false if the connection
/// can no longer be trusted.
pub(super) async fn run_void(conn: &Conn, job: &VoidJob, reply: Reply<Vec<LedgerLine>>) -> bool {
    let s = &conn.statements;
    let writing = async {
        conn.client.execute(&s.begin, &[]).await?;
        let lines = void(&conn.client, job).await?;
        conn.client.execute(&s.commit, &[]).await.map_err(|e| {
            if e.code().is_some() {
                Failed::Refused(e.into())
            } else {
                Failed::Unconfirmed(with_causes(&e))
            }
        })?;
        Ok(lines)
    };
    let (answer, usable) = match tokio::time::timeout(super::PG_BATCH_TIMEOUT, writing).await {
        Ok(Ok(lines)) => (Ok(lines), true),
        Ok(Err(Failed::Refused(e))) => {
            let rolled_back = conn.client.execute(&s.rollback, &[]).await.is_ok();
            (Err(e), rolled_back)
        }
        Ok(Err(Failed::Unconfirmed(why))) => (Err(StoreError::Unconfirmed(why)), false),
        Err(_) => (
            Err(StoreError::Unconfirmed(format!(
                "no answer from the database within {:?}",
                super::PG_BATCH_TIMEOUT
            ))),
            false,
        ),
    };
    drop(reply.send(answer));
    usable && !conn.client.is_closed()
}

/// Voids up to [`VOID_BATCH`] of `job`'s account's rated results not
/// voided yet, newest first, inside the open transaction, holding the
/// ledger's head as a rated end does.
async fn void(client: &tokio_postgres::Client, job: &VoidJob) -> Result<Vec<LedgerLine>, Failed> {
    let head = client
        .query_one("SELECT n, hash, at_ms FROM ledger_head FOR UPDATE", &[])
        .await?;
    let head = Head {
        n: head.try_get::<_, i64>(0)?.unsigned_abs(),
        hash: head.try_get(1)?,
        at_ms: head.try_get::<_, i64>(2)?.unsigned_abs(),
    };
    let from = to_i64(job.from_ms).map_err(Failed::Refused)?;
    let rows = client
        .query(
            "SELECT l.line FROM ledger_seats s JOIN ledger l ON l.n = s.n \
             WHERE s.account_key = $1 AND l.at_ms >= $2 \
             AND NOT EXISTS (SELECT 1 FROM ledger v WHERE v.room = 'void:' || l.room) \
             ORDER BY l.n DESC LIMIT $3",
            &[&job.account_key, &from, &limit_param(VOID_BATCH)],
        )
        .await?;
    let mut targets = Vec::with_capacity(rows.len());
    for r in &rows {
        let text: String = r.try_get(0)?;
        let line = serde_json::from_str::<LedgerLine>(&text)
            .map_err(|e| Failed::Refused(StoreError::Corrupt(format!("a ledger line: {e}"))))?;
        targets.push(line);
    }
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    let mut current = HashMap::new();
    for (pool, key) in needed(&targets) {
        let row = client
            .query_opt(
                "SELECT rating, rd, vol, games, last_ms FROM ratings \
                 WHERE pool = $1 AND account_key = $2",
                &[&pool, &key],
            )
            .await?;
        if let Some(r) = row {
            current.insert((pool, key), stored(&r)?);
        }
    }
    let lines = corrections(job, (head.n > 0).then_some(&head), &targets, &current)
        .map_err(Failed::Refused)?;
    for line in &lines {
        let n = to_i64(line.n).map_err(Failed::Refused)?;
        let at_ms = to_i64(line.at_ms).map_err(Failed::Refused)?;
        client
            .execute(
                "INSERT INTO ledger (n, room, pool, at_ms, hash, line) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&n, &void_key(&line.room), &line.pool, &at_ms, &line.hash, &line_text(line)],
            )
            .await?;
        client
            .execute(
                "UPDATE ledger_head SET n = $1, hash = $2, at_ms = $3",
                &[&n, &line.hash, &at_ms],
            )
            .await?;
        for p in &line.players {
            client
                .execute(
                    "UPDATE ratings SET rating = $1, rd = $2, vol = $3 \
                     WHERE pool = $4 AND account_key = $5",
                    &[
                        &p.after.rating,
                        &p.after.rd,
                        &p.after.vol,
                        &line.pool,
                        &parlor_protocol::account_key(&p.name),
                    ],
                )
                .await?;
        }
    }
    Ok(lines)
}

fn range(v: u64) -> StoreError {
    StoreError::Corrupt(format!("{v} is out of range"))
}

fn to_i64(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| range(v))
}

/// Writes the ledger's next line for `end` and the new ratings, inside
/// the open transaction.
async fn apply(client: &tokio_postgres::Client, end: &RatedEnd) -> Result<LedgerLine, Failed> {
    let head = client
        .query_one("SELECT n, hash, at_ms FROM ledger_head FOR UPDATE", &[])
        .await?;
    let head = Head {
        n: head.try_get::<_, i64>(0)?.unsigned_abs(),
        hash: head.try_get(1)?,
        at_ms: head.try_get::<_, i64>(2)?.unsigned_abs(),
    };
    let keys: Vec<&str> = end.seats.iter().map(|s| s.account_key.as_str()).collect();
    let rows = client
        .query(
            "SELECT rating, rd, vol, games, last_ms, account_key FROM ratings \
             WHERE pool = $1 AND account_key = ANY($2)",
            &[&end.pool, &keys],
        )
        .await?;
    let mut current = HashMap::new();
    for r in &rows {
        current.insert(r.try_get::<_, String>(5)?, stored(r)?);
    }
    let line = line_for(end, (head.n > 0).then_some(&head), &current);
    let n = to_i64(line.n).map_err(Failed::Refused)?;
    let at_ms = to_i64(line.at_ms).map_err(Failed::Refused)?;
    client
        .execute(
            "INSERT INTO ledger (n, room, pool, at_ms, hash, line) VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &n,
                &line.room,
                &line.pool,
                &at_ms,
                &line.hash,
                &line_text(&line),
            ],
        )
        .await?;
    client
        .execute(
            "UPDATE ledger_head SET n = $1, hash = $2, at_ms = $3",
            &[&n, &line.hash, &at_ms],
        )
        .await?;
    for (s, p) in end.seats.iter().zip(&line.players) {
        client
            .execute(
                "INSERT INTO ratings (pool, account_key, name, rating, rd, vol, games, last_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, 1, $7) \
                 ON CONFLICT (pool, account_key) DO UPDATE SET name = excluded.name, \
                 rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, \
                 games = ratings.games + 1, last_ms = excluded.last_ms",
                &[
                    &end.pool,
                    &s.account_key,
                    &s.name,
                    &p.after.rating,
                    &p.after.rd,
                    &p.after.vol,
                    &at_ms,
                ],
            )
            .await?;
        client
            .execute(
                "INSERT INTO ledger_seats (account_key, n) VALUES ($1, $2)",
                &[&s.account_key, &n],
            )
            .await?;
    }
    Ok(line)
}

fn stored(r: &Row) -> Result<StoredRating, tokio_postgres::Error> {
    Ok(StoredRating {
        rating: Rating {
            rating: r.try_get(0)?,
            rd: r.try_get(1)?,
            vol: r.try_get(2)?,
        },
        games: r.try_get::<_, i64>(3)?.unsigned_abs(),
        last_ms: r.try_get::<_, i64>(4)?.unsigned_abs(),
    })
}

fn limit_param(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// Every pool's rating of a player, by pool name.
pub(in crate::store) async fn ratings_of(
    tx: &Transaction<'_>,
    account_key: &str,
) -> Result<Vec<(String, StoredRating)>, StoreError> {
    let rows = tx
        .query(
            "SELECT rating, rd, vol, games, last_ms, pool FROM ratings WHERE account_key = $1 \
             ORDER BY pool",
            &[&account_key],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        out.push((r.try_get(5)?, stored(r)?));
    }
    Ok(out)
}

/// Ledger lines (their JSON) after `after`, of `pool` if given, at most `limit`.
pub(in crate::store) async fn ledger(
    tx: &Transaction<'_>,
    after: u64,
    pool: Option<&str>,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let rows = tx
        .query(
            "SELECT line FROM ledger WHERE n > $1 AND ($2::text IS NULL OR pool = $2) \
             ORDER BY n LIMIT $3",
            &[&to_i64(after)?, &pool, &limit_param(limit)],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?)
}

/// The latest line's number and hash.
pub(in crate::store) async fn head(
    tx: &Transaction<'_>,
) -> Result<Option<(u64, String)>, StoreError> {
    let row = tx.query_one("SELECT n, hash FROM ledger_head", &[]).await?;
    let n = row.try_get::<_, i64>(0)?.unsigned_abs();
    Ok((n > 0).then(|| row.try_get(1)).transpose()?.map(|h| (n, h)))
}

/// The ledger line of the match in `room`, if it was rated.
pub(in crate::store) async fn line_of(
    tx: &Transaction<'_>,
    room: &str,
) -> Result<Option<String>, StoreError> {
    let row = tx
        .query_opt("SELECT line FROM ledger WHERE room = $1", &[&room])
        .await?;
    Ok(row.map(|r| r.try_get(0)).transpose()?)
}

/// The lines a player played in, newest first, at most `limit`.
pub(in crate::store) async fn lines_of(
    tx: &Transaction<'_>,
    account_key: &str,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let rows = tx
        .query(
            "SELECT l.line FROM ledger_seats s JOIN ledger l ON l.n = s.n \
             WHERE s.account_key = $1 ORDER BY s.n DESC LIMIT $2",
            &[&account_key, &limit_param(limit)],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?)
}

/// A pool's ratings with deviation at most `max_rd`, best first, of
/// accounts of `kind` if given, at most `limit`; a marked account
/// (moderation's `engine` or `booster`) is left out.
pub(in crate::store) async fn board(
    tx: &Transaction<'_>,
    pool: &str,
    kind: Option<&str>,
    max_rd: f64,
    limit: usize,
) -> Result<Vec<BoardRow>, StoreError> {
    let rows = tx
        .query(
            "SELECT r.rating, r.rd, r.vol, r.games, r.last_ms, r.name, a.kind \
             FROM ratings r JOIN accounts a ON a.name_key = r.account_key \
             WHERE r.pool = $1 AND r.rd <= $2 AND ($3::text IS NULL OR a.kind = $3) AND a.mark IS NULL \
             ORDER BY r.rating DESC, r.account_key LIMIT $4",
            &[&pool, &max_rd, &kind, &limit_param(limit)],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        out.push(BoardRow {
            rating: stored(r)?,
            name: r.try_get(5)?,
            kind: r.try_get(6)?,
        });
    }
    Ok(out)
}
