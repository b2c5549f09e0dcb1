//! The cluster's lobby: each room's summary kept beside its log, so that
//! any node lists every room and a room's listing outlives its node.
//!
//! The owner writes a summary whenever it changes (seats, status,
//! spectators: not on every move), fenced like every other write, so a
//! zombie cannot list a room it lost. Writes go through a pooled
//! connection, not the log's writer: a listing is not a step, and its
//! commit must never delay a move's.

use deadpool_postgres::Pool;
use parlor_protocol::{RoomStatus, RoomSummary};
use tokio_postgres::types::ToSql;

use super::super::{MatchKey, StoreError};
use super::reader::pool_error;
use crate::limits::PG_BATCH_TIMEOUT;

/// One room's listing, as its owner publishes it.
#[derive(Clone, Debug)]
pub struct Listing {
    /// The match, at the epoch its owner holds it.
    pub key: MatchKey,
    /// The summary, as JSON.
    pub summary: String,
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

/// Writes each listing whose match `me` still owns at its epoch (the
/// others are fenced: their rooms moved on); how many were written.
pub(super) async fn publish(pool: &Pool, me: &str, rows: &[Listing]) -> Result<u64, StoreError> {
    let writing = async {
        let mut client = pool.get().await.map_err(pool_error)?;
        let tx = client.transaction().await?;
        let update = tx
            .prepare(
                "UPDATE matches SET summary = $3::text::jsonb, listed_ms = $4 \
                 WHERE id = $1 AND epoch = $2 AND owner = $5",
            )
            .await?;
        let mut written = 0;
        for row in rows {
            written += tx
                .execute(
                    &update,
                    &[&row.key.id, &row.key.epoch, &row.summary, &row.at_ms, &me],
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

/// One page of the public rooms, by id: unfinished ones, and finished
/// ones listed since `finished_since_ms` that were played (every seat
/// filled: not rooms that closed before they started).
pub(super) async fn page(
    client: &impl tokio_postgres::GenericClient,
    q: &LobbyQuery<'_>,
) -> Result<Vec<RoomSummary>, StoreError> {
    let status = q.status.map(|s| match s {
        RoomStatus::Waiting => "waiting",
        RoomStatus::Playing => "playing",
        RoomStatus::Finished => "finished",
    });
    let params: [&(dyn ToSql + Sync); 5] =
        [&q.after, &q.game, &status, &q.finished_since_ms, &q.limit];
    let rows = client
        .query(
            "SELECT summary::text FROM matches \
             WHERE summary IS NOT NULL AND NOT private \
             AND ($1::text IS NULL OR room > $1) \
             AND ($2::text IS NULL OR game = $2) \
             AND ($3::text IS NULL OR summary->>'status' = $3) \
             AND (NOT finished OR (listed_ms >= $4 \
                  AND NOT summary->'seats' @> '[{\"kind\": \"empty\"}]')) \
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
