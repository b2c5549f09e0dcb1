//! The cluster's lobby: each owner writes its rooms' summaries to the
//! database as they change, and any node lists rooms from there, so the
//! listing is neither stale nor missing after a node dies (its rooms keep
//! their last summary until their new owner writes one).

use std::sync::{Arc, Weak};

use std::collections::BTreeMap;

use parlor_protocol::{RoomId, RoomSummary};

use super::super::listing::{ListQuery, Page};
use super::super::{lock, Directory};
use super::Cluster;
use crate::clock::now_ms;
use crate::limits::FINISHED_LISTED_FOR;
use crate::store::{ClusterStore, LobbyQuery, StoreError};

/// How often a node deletes, with its next listing write, the finished
/// rooms no longer listed from the cluster's lobby table (a scan of the
/// table: rare enough to cost nothing, often enough to keep it small).
pub(super) const LOBBY_SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Writes queued listings, all those queued at once in one transaction,
/// until the directory is gone. A failed write is kept for the next one
/// unless a newer listing of the room came meanwhile.
pub(super) async fn flush(dir: Weak<Directory>, cluster: Arc<Cluster>) {
    let mut swept = tokio::time::Instant::now();
    loop {
        if dir.strong_count() == 0 {
            return;
        }
        let notified = cluster.listed.notified();
        let batch = std::mem::take(&mut *lock(&cluster.listings));
        if batch.is_empty() {
            notified.await;
            continue;
        }
        let store = &cluster.store;
        // In match order: two writers of the same rooms (a zombie and the
        // new owner) lock them in one order.
        let mut rows: Vec<_> = batch.values().cloned().collect();
        rows.sort_by_key(|r| r.key);
        let sweep = swept.elapsed() >= LOBBY_SWEEP_EVERY;
        let forget = sweep.then(listed_since);
        match store.publish_listings(&rows, forget).await {
            Ok(_) if sweep => swept = tokio::time::Instant::now(),
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, rooms = rows.len(), "room listings were not written; trying again");
                {
                    let mut queued = lock(&cluster.listings);
                    for (room, row) in batch {
                        queued.entry(room).or_insert(row);
                    }
                }
                tokio::time::sleep(super::BUS_RETRY_EVERY).await;
            }
        }
    }
}

/// When the oldest finished room still listed was listed (Unix ms).
fn listed_since() -> i64 {
    let since =
        now_ms().saturating_sub(u64::try_from(FINISHED_LISTED_FOR.as_millis()).unwrap_or(u64::MAX));
    i64::try_from(since).unwrap_or(i64::MAX)
}

/// One page of the cluster's public rooms: from the database, with the
/// rooms this node hosts as it knows them now (a room just created or
/// joined here shows at once, before its listing is written).
pub async fn list(
    dir: &Directory,
    store: &ClusterStore,
    q: &ListQuery,
) -> Result<Page, StoreError> {
    let size = q.page_size();
    let lobby = LobbyQuery {
        game: q.game.map(|g| g.name()),
        status: q.status,
        after: q.after.as_ref().map(|r| r.as_str()),
        limit: i64::try_from(size).unwrap_or(i64::MAX).saturating_add(1),
        finished_since_ms: listed_since(),
    };
    let stored = store.lobby(&lobby).await?;
    // A full page from the database ends where it ends: rooms of this
    // node's beyond it belong to a later page.
    let upper = (stored.len() > size)
        .then(|| stored.last().map(|s| s.room.clone()))
        .flatten();
    let mut rooms: BTreeMap<RoomId, RoomSummary> =
        stored.into_iter().map(|s| (s.room.clone(), s)).collect();
    dir.list_here(&mut rooms, q, upper.as_ref());
    let more = rooms.len() > size;
    let mut rooms: Vec<RoomSummary> = rooms.into_values().take(size).collect();
    rooms.shrink_to_fit();
    let next = more
        .then(|| rooms.last().map(|s| s.room.as_str().to_owned()))
        .flatten();
    Ok(Page { rooms, next })
}
