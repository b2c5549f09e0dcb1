//! Claiming orphaned rooms: unfinished matches with no owner (released by
//! a node that stopped cleanly) or whose owner's lease ran out (a node
//! that died, or was paused or cut off).
//!
//! A claim takes the row lock of each match it takes (`FOR UPDATE`),
//! skipping rows another claimer holds (`SKIP LOCKED`), so claimers
//! running at once never wait for each other nor take the same room; it
//! makes the claimer the owner and bumps the epoch, which fences every
//! write the old owner still has in flight. A guarded write waiting on a
//! claim's lock re-reads the row once the claim commits and finds the new
//! epoch: it writes nothing. Each node takes its share, the orphans
//! divided by the live nodes (at most [`MAX_CLAIM_BATCH`]), so that the
//! survivors of a crash split its rooms.

use tokio_postgres::GenericClient;

use crate::store::StoreError;

/// Most orphaned rooms one node claims in one sweep: a node that comes
/// back to many orphans rebuilds them in bounded steps, and the others
/// get their share in between.
pub(super) const MAX_CLAIM_BATCH: i64 = 64;

/// Orphans: unfinished matches whose owner is nobody or a node whose
/// lease ran out (`m`, joined to its owner `n`).
const ORPHAN: &str = "NOT m.finished AND (m.owner IS NULL OR n.lease_until <= now())";

/// How many orphans `me` should take now: its share of them among the
/// live nodes, rounded up, at most [`MAX_CLAIM_BATCH`].
pub(in crate::store::postgres) async fn share(
    client: &impl GenericClient,
) -> Result<i64, StoreError> {
    let row = client
        .query_one(
            &format!(
                "SELECT (SELECT count(*) FROM matches m LEFT JOIN nodes n ON n.id = m.owner \
                 WHERE {ORPHAN}), (SELECT count(*) FROM nodes WHERE lease_until > now())"
            ),
            &[],
        )
        .await?;
    let orphans: i64 = row.try_get(0)?;
    let live: i64 = row.try_get(1)?;
    let live = live.max(1);
    Ok(((orphans + live - 1) / live).min(MAX_CLAIM_BATCH))
}

/// Makes `me` the owner of up to `limit` orphans at a bumped epoch, if
/// `me`'s own lease is fresh; returns each one's `(id, epoch)`. The rows
/// stay locked until the caller's transaction ends.
pub(in crate::store::postgres) async fn take(
    client: &impl GenericClient,
    me: &str,
    limit: i64,
) -> Result<Vec<(i64, i64)>, StoreError> {
    if limit <= 0 {
        return Ok(Vec::new());
    }
    taking(client, "", &[&me, &limit]).await
}

/// [`take`] for the orphans in which `token` holds a seat (a player
/// resuming), however many.
pub(in crate::store::postgres) async fn take_for(
    client: &impl GenericClient,
    me: &str,
    token: &str,
) -> Result<Vec<(i64, i64)>, StoreError> {
    taking(
        client,
        "AND m.id IN (SELECT match_id FROM seats WHERE token = $3::text::uuid)",
        &[&me, &i64::MAX, &token],
    )
    .await
}

/// [`take`] for room `room`, if it is an orphan (a command for it found
/// nobody hosting it).
pub(in crate::store::postgres) async fn take_room(
    client: &impl GenericClient,
    me: &str,
    room: &str,
) -> Result<Vec<(i64, i64)>, StoreError> {
    taking(client, "AND m.room = $3", &[&me, &1_i64, &room]).await
}

/// How many unfinished matches `token` holds a seat in, whoever owns them.
pub(in crate::store::postgres) async fn unfinished_for(
    client: &impl GenericClient,
    token: &str,
) -> Result<i64, StoreError> {
    let row = client
        .query_one(
            "SELECT count(*) FROM matches m JOIN seats s ON s.match_id = m.id \
             WHERE s.token = $1::text::uuid AND NOT m.finished",
            &[&token],
        )
        .await?;
    Ok(row.try_get(0)?)
}

/// The claim: `$1` the claimer, `$2` the most to take, `filter` more
/// conditions on the orphan `m`.
async fn taking(
    client: &impl GenericClient,
    filter: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<(i64, i64)>, StoreError> {
    let rows = client
        .query(
            &format!(
                "UPDATE matches t SET owner = $1, epoch = t.epoch + 1 \
                 FROM (SELECT m.id FROM matches m LEFT JOIN nodes n ON n.id = m.owner \
                       WHERE {ORPHAN} {filter} ORDER BY m.id LIMIT $2 \
                       FOR UPDATE OF m SKIP LOCKED) c \
                 WHERE t.id = c.id \
                 AND EXISTS (SELECT 1 FROM nodes me WHERE me.id = $1 AND me.lease_until > now()) \
                 RETURNING t.id, t.epoch"
            ),
            params,
        )
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// Gives up every unfinished room `me` owns (a clean stop): they are
/// orphans at once, for the other nodes to claim.
pub(in crate::store::postgres) async fn release(
    client: &impl GenericClient,
    me: &str,
) -> Result<u64, StoreError> {
    Ok(client
        .execute(
            "UPDATE matches SET owner = NULL WHERE owner = $1 AND NOT finished",
            &[&me],
        )
        .await?)
}

#[cfg(test)]
mod tests {
    // Test helpers fail the test by panicking.
    #![allow(clippy::panic)]

    use std::time::Duration;

    use parlor_games::Seat;
    use parlor_protocol::{LogEntry, LoggedAction, RoomId};
    use serde_json::json;
    use tokio_postgres::{Client, NoTls};

    use super::*;
    use crate::store::{MatchKey, Store, StoreError, StoreTask};
    use crate::testing::{nimrod_record, ScratchSchema};

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A node's cluster side (every store here is shared).
    fn shared(store: &Store) -> &crate::store::ClusterStore {
        store.cluster().unwrap_or_else(|| panic!("a shared store"))
    }

    /// A node: a store of its own on the shared schema.
    async fn node(scratch: &ScratchSchema) -> (Store, StoreTask) {
        ok(Store::open(&scratch.config()).await)
    }

    /// A connection of the test's own to the schema.
    async fn connect_to(scratch: &ScratchSchema) -> Client {
        let (client, conn) = ok(tokio_postgres::connect(&scratch.url(), NoTls).await);
        tokio::spawn(conn);
        client
    }

    async fn new_match(store: &Store, n: usize) -> MatchKey {
        let room = RoomId::new(format!("room{n:08}")).unwrap_or_else(|| panic!("room id"));
        ok(store.create_match(nimrod_record(room)).await)
    }

    fn step(seq: u64) -> LogEntry {
        LogEntry {
            seq,
            seat: Seat((seq % 2) as u8),
            action: LoggedAction::Move(json!({ "take": [0, 1] })),
        }
    }

    /// Ends `store`'s lease in the database, as its death would once the
    /// lease ran out (its own process does not know yet).
    async fn expire(admin: &Client, store: &Store) {
        let id = shared(store).node_id();
        let n = ok(admin
            .execute(
                "UPDATE nodes SET lease_until = now() - interval '1 second' WHERE id = $1",
                &[&&*id],
            )
            .await);
        assert_eq!(n, 1);
    }

    async fn moves(admin: &Client) -> i64 {
        ok(admin.query_one("SELECT count(*) FROM moves", &[]).await).get(0)
    }

    async fn owners(admin: &Client) -> Vec<(i64, Option<String>, i64)> {
        ok(admin
            .query("SELECT id, owner, epoch FROM matches ORDER BY id", &[])
            .await)
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
    }

    #[tokio::test]
    async fn a_write_at_a_stale_epoch_is_fenced_and_writes_nothing() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let admin = connect_to(&scratch).await;
        let (claimed_before, fenced_before) = (
            crate::metrics::value(crate::metrics::ROOMS_CLAIMED),
            crate::metrics::value(crate::metrics::FENCED_WRITES),
        );
        let (a, _a_task) = node(&scratch).await;
        let key = new_match(&a, 1).await;
        ok(a.append(key, step(0), None, None).await);
        // A dies (as far as the database knows); B takes the room over.
        expire(&admin, &a).await;
        let (b, _b_task) = node(&scratch).await;
        let claimed = ok(shared(&b).claim().await);
        assert_eq!(claimed.len(), 1);
        let taken = claimed[0].stored.key;
        assert_eq!(taken.epoch(), key.epoch() + 1);
        assert_eq!(claimed[0].stored.moves, vec![step(0)]);
        // A's next write, at its old epoch, is refused and leaves nothing.
        let zombie = a.append(key, step(1), None, None).await;
        assert!(matches!(zombie, Err(StoreError::Fenced(_))), "{zombie:?}");
        let zombie_seat = a.set_seat(key, Seat(0), None).await;
        assert!(
            matches!(zombie_seat, Err(StoreError::Fenced(_))),
            "{zombie_seat:?}"
        );
        assert_eq!(moves(&admin).await, 1);
        // Counted (other tests of this process count too: at least).
        assert!(crate::metrics::value(crate::metrics::ROOMS_CLAIMED) > claimed_before);
        assert!(crate::metrics::value(crate::metrics::FENCED_WRITES) >= fenced_before + 2.0);
        // The new owner writes at its epoch; a second step at one position
        // is refused whoever sends it.
        ok(b.append(taken, step(1), None, None).await);
        let again = b.append(taken, step(1), None, None).await;
        assert!(
            again.as_ref().is_err_and(StoreError::is_duplicate),
            "{again:?}"
        );
        assert_eq!(moves(&admin).await, 2);
        // Nothing is left to claim.
        assert!(ok(shared(&b).claim().await).is_empty());
    }

    #[tokio::test]
    async fn claimers_at_once_split_the_orphans_without_overlap() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let admin = connect_to(&scratch).await;
        let (dead, _dead_task) = node(&scratch).await;
        for n in 0..10 {
            new_match(&dead, n).await;
        }
        expire(&admin, &dead).await;
        let (b, _b_task) = node(&scratch).await;
        let (c, _c_task) = node(&scratch).await;
        let (b_id, c_id) = (shared(&b).node_id(), shared(&c).node_id());
        // Two live nodes, ten orphans: five each.
        assert_eq!(ok(share(&admin).await), 5);
        // B's claim holds its rows while C claims: C skips them.
        let mut b_conn = connect_to(&scratch).await;
        let mut c_conn = connect_to(&scratch).await;
        let b_tx = ok(b_conn.transaction().await);
        let b_took = ok(take(&b_tx, &b_id, 6).await);
        let c_tx = ok(c_conn.transaction().await);
        let c_took = ok(take(&c_tx, &c_id, 10).await);
        ok(c_tx.commit().await);
        ok(b_tx.commit().await);
        assert_eq!(b_took.len(), 6);
        assert_eq!(c_took.len(), 4, "C took what B did not hold");
        let mut all: Vec<i64> = b_took.iter().chain(&c_took).map(|(id, _)| *id).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 10, "no room taken twice, none left");
        for (id, owner, epoch) in owners(&admin).await {
            let expected = if b_took.iter().any(|(b, _)| *b == id) {
                &b_id
            } else {
                &c_id
            };
            assert_eq!(owner.as_deref(), Some(&**expected));
            assert_eq!(epoch, 2);
        }
    }

    #[tokio::test]
    async fn a_zombie_write_waiting_on_a_takeover_writes_nothing() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let admin = connect_to(&scratch).await;
        let (zombie, _z_task) = node(&scratch).await;
        let key = new_match(&zombie, 1).await;
        expire(&admin, &zombie).await;
        let (b, _b_task) = node(&scratch).await;
        let b_id = shared(&b).node_id();
        // B's takeover holds the row...
        let mut conn = connect_to(&scratch).await;
        let tx = ok(conn.transaction().await);
        assert_eq!(ok(take(&tx, &b_id, 10).await).len(), 1);
        // ...while the zombie's append comes in and waits for it.
        let writer = zombie.clone();
        let append = tokio::spawn(async move { writer.append(key, step(0), None, None).await });
        let mut waited = false;
        for _ in 0..500 {
            let waiting: i64 = ok(admin
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity \
                     WHERE application_name = $1 AND wait_event_type = 'Lock'",
                    &[&scratch.name()],
                )
                .await)
            .get(0);
            if waiting > 0 {
                waited = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            waited,
            "the zombie's write never waited on the takeover's lock"
        );
        ok(tx.commit().await);
        let answer = ok(append.await);
        assert!(matches!(answer, Err(StoreError::Fenced(_))), "{answer:?}");
        assert_eq!(moves(&admin).await, 0);
    }

    #[tokio::test]
    async fn a_clean_stop_hands_the_rooms_over_at_once() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let admin = connect_to(&scratch).await;
        let (a, a_task) = node(&scratch).await;
        for n in 0..3 {
            new_match(&a, n).await;
        }
        let (b, _b_task) = node(&scratch).await;
        // A's lease is fresh: nothing to claim.
        assert!(ok(shared(&b).claim().await).is_empty());
        drop(a);
        ok(a_task.finished().await);
        assert!(owners(&admin)
            .await
            .iter()
            .all(|(_, owner, _)| owner.is_none()));
        assert_eq!(ok(shared(&b).claim().await).len(), 3);
    }
}
