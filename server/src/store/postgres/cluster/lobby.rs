//! The cluster's lobby: each public room's summary kept in the database
//! (table `lobby`, see `schema`), so that any node lists every room and a
//! room's listing outlives its node.
//!
//! The owner writes a summary whenever it changes (seats, status,
//! spectators: not on every move), on a pooled connection, never the log
//! writer's: a listing is not a step, and its commit must never delay a
//! move's. A write counts only if the writer still owns the match at its
//! epoch, and never replaces a listing written at a later epoch, so a
//! zombie cannot list a room it lost. It reads `matches` without locking
//! it: the writer's batches lock those rows.

use deadpool_postgres::Pool;
use parlor_protocol::{RoomStatus, RoomSummary};
use tokio_postgres::types::ToSql;

use super::super::reader::pool_error;
use crate::store::postgres::PG_BATCH_TIMEOUT;
use crate::store::{MatchKey, StoreError};

/// One room's listing, as its owner publishes it.
#[derive(Clone, Debug)]
pub struct Listing {
    /// The match, at the epoch its owner holds it.
    pub key: MatchKey,
    /// As listed.
    pub summary: RoomSummary,
    /// When it changed (Unix ms): finished rooms stay listed a while.
    pub at_ms: i64,
}

/// What a page of the cluster's listing asks for.
#[derive(Clone, Debug, Default)]
pub struct LobbyQuery<'a> {
    /// Only this game (its wire name).
    pub game: Option<&'a str>,
    /// Only rooms in this state.
    pub status: Option<RoomStatus>,
    /// Rooms after this id.
    pub after: Option<&'a str>,
    /// Most rooms.
    pub limit: i64,
    /// Finished rooms listed before this (Unix ms) are left out.
    pub finished_since_ms: i64,
}

fn status_name(s: RoomStatus) -> &'static str {
    match s {
        RoomStatus::Waiting => "waiting",
        RoomStatus::Playing => "playing",
        RoomStatus::Finished => "finished",
    }
}

/// Whether a room's match was played: every seat filled (a room that
/// closed before it started is not listed once finished).
fn played(s: &RoomSummary) -> bool {
    s.seats
        .iter()
        .all(|seat| !matches!(seat.occupant, parlor_protocol::Occupant::Empty))
}

/// Writes each listing whose match `me` still owns at its epoch (the
/// others are fenced: their rooms moved on), and forgets finished rooms
/// listed before `forget_before_ms` if given (a scan of the table: now and
/// then, not on every write); how many listings were written.
pub(in crate::store::postgres) async fn publish(
    pool: &Pool,
    me: &str,
    rows: &[Listing],
    forget_before_ms: Option<i64>,
) -> Result<u64, StoreError> {
    let writing = async {
        let mut client = pool.get().await.map_err(pool_error)?;
        let tx = client.transaction().await?;
        let upsert = tx
            .prepare(
                "INSERT INTO lobby (match_id, room, game, status, played, epoch, summary, listed_ms) \
                 SELECT $1, $2, $3, $4, $5, $6, $7::text::jsonb, $8 \
                 WHERE EXISTS (SELECT 1 FROM matches WHERE id = $1 AND epoch = $6 AND owner = $9) \
                 ON CONFLICT (match_id) DO UPDATE SET status = EXCLUDED.status, \
                 played = EXCLUDED.played, epoch = EXCLUDED.epoch, summary = EXCLUDED.summary, \
                 listed_ms = EXCLUDED.listed_ms WHERE lobby.epoch <= EXCLUDED.epoch",
            )
            .await?;
        let mut written = 0;
        for row in rows {
            let s = &row.summary;
            let summary = serde_json::to_string(s)
                .map_err(|e| StoreError::Corrupt(format!("a room's listing: {e}")))?;
            let params: [&(dyn ToSql + Sync); 9] = [
                &row.key.id,
                &s.room.as_str(),
                &s.game.name(),
                &status_name(s.status),
                &played(s),
                &row.key.epoch,
                &summary,
                &row.at_ms,
                &me,
            ];
            written += tx.execute(&upsert, &params).await?;
        }
        if let Some(before) = forget_before_ms {
            tx.execute(
                "DELETE FROM lobby WHERE status = 'finished' AND listed_ms < $1",
                &[&before],
            )
            .await?;
        }
        tx.commit().await?;
        Ok::<_, StoreError>(written)
    };
    tokio::time::timeout(PG_BATCH_TIMEOUT, writing)
        .await
        .map_err(|_| StoreError::Unavailable("listing rooms took too long".into()))?
}

/// One page of the public rooms, by id: unfinished ones, and played ones
/// finished since `finished_since_ms`.
pub(in crate::store::postgres) async fn page(
    client: &impl tokio_postgres::GenericClient,
    q: &LobbyQuery<'_>,
) -> Result<Vec<RoomSummary>, StoreError> {
    let status = q.status.map(status_name);
    let params: [&(dyn ToSql + Sync); 5] =
        [&q.after, &q.game, &status, &q.finished_since_ms, &q.limit];
    let rows = client
        .query(
            "SELECT summary::text FROM lobby \
             WHERE ($1::text IS NULL OR room > $1) \
             AND ($2::text IS NULL OR game = $2) \
             AND ($3::text IS NULL OR status = $3) \
             AND (status <> 'finished' OR (played AND listed_ms >= $4)) \
             ORDER BY room LIMIT $5",
            &params,
        )
        .await?;
    rows.iter()
        .map(|r| {
            let text: String = r.try_get(0)?;
            serde_json::from_str(&text)
                .map_err(|e| StoreError::Corrupt(format!("a room's listing: {e}")))
        })
        .collect()
}
