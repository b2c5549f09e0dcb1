//! A node's presence in the cluster's books: its beat (alive, and the
//! rows of stopped nodes swept), which account each of its connections
//! acts as, and what a beat finds gone. A crash of the database empties
//! the unlogged books and tells nobody: a node whose row is gone writes
//! its players' presence again, and one that finds a new epoch tells the
//! players of the challenges it made under the old one that they were
//! lost.

use super::{ms, Open};
use super::{signed, signed_conn, SharedBooks, LIVE, NODE_ALIVE_FOR};
use crate::matchmaking::lock;
use crate::outbox::ConnId;
use crate::store::StoreError;

/// What a beat found gone, for its node to make good.
#[derive(Debug, Default)]
pub struct Renewal {
    /// This node's row was gone (the books emptied, or the node swept
    /// while stalled): its players' presence is to be written again.
    pub presence: bool,
    /// Challenges made here that the books lost: their players are to
    /// be told.
    pub lost: Vec<Open>,
}

/// The books' current epoch: `mm_epoch`'s one row, written now (a fresh
/// id) when there is none, that is when the books were just made or a
/// crash emptied them.
pub(super) async fn epoch(client: &deadpool_postgres::Object) -> Result<String, StoreError> {
    client
        .execute(
            "INSERT INTO mm_epoch (one, epoch) VALUES (true, $1) ON CONFLICT (one) DO NOTHING",
            &[&uuid::Uuid::new_v4().to_string()],
        )
        .await?;
    let row = client.query_one("SELECT epoch FROM mm_epoch", &[]).await?;
    Ok(row.try_get(0)?)
}

impl SharedBooks {
    /// This node is alive until `now_ms` + [`NODE_ALIVE_FOR`]; rows of
    /// nodes that stopped are swept. What the beat found gone.
    ///
    /// Each step is one statement and may fail on its own (a database
    /// going down, or picked as a deadlock's victim): none leaves a
    /// finding half-kept, so the next beat sees again whatever this one
    /// did not finish. Hence this node's row is written last, in the
    /// statement that also tells whether it was gone: were it written
    /// first and a later step failed, the next beat would find it and
    /// never write its players' presence again.
    pub async fn beat(&self, now_ms: u64) -> Result<Renewal, StoreError> {
        let client = self.client().await?;
        let now = signed(now_ms);
        let epoch = epoch(&client).await?;
        // Rows of stopped nodes, other than this one (its own rows are
        // kept while it beats, even late), in one statement.
        client
            .execute(
                &format!(
                    "WITH p AS (DELETE FROM mm_presence WHERE gw <> $2 AND gw NOT IN {LIVE}), \
                     s AS (DELETE FROM mm_seeks WHERE gw <> $2 AND gw NOT IN {LIVE}) \
                     DELETE FROM mm_nodes WHERE alive_until_ms <= $1 AND gw <> $2"
                ),
                &[&now, &self.node],
            )
            .await?;
        let lost = self.lost_to(&client, &epoch, now_ms).await?;
        // `xmax` is 0 on a row this statement inserted, and set on one
        // it updated.
        let inserted: bool = client
            .query_one(
                "INSERT INTO mm_nodes (gw, alive_until_ms) VALUES ($1, $2) \
                 ON CONFLICT (gw) DO UPDATE SET alive_until_ms = EXCLUDED.alive_until_ms \
                 RETURNING (xmax = 0)",
                &[&self.node, &(now + ms(NODE_ALIVE_FOR))],
            )
            .await?
            .try_get(0)?;
        Ok(Renewal {
            presence: inserted,
            lost,
        })
    }

    /// The challenges made here under an epoch other than `epoch`: gone
    /// with the books. They leave this node's list only once their rows
    /// are surely gone too, so a failure here loses none of them.
    async fn lost_to(
        &self,
        client: &deadpool_postgres::Object,
        epoch: &str,
        now_ms: u64,
    ) -> Result<Vec<Open>, StoreError> {
        let ids: Vec<u64> = lock(&self.made)
            .iter()
            .filter(|(_, (e, _))| e != epoch)
            .map(|(&id, _)| id)
            .collect();
        if !ids.is_empty() {
            // Gone with the books already; a row a newer epoch somehow
            // kept could no longer be answered truthfully.
            let signed_ids: Vec<i64> = ids.iter().map(|&id| signed(id)).collect();
            client
                .execute(
                    "DELETE FROM mm_challenges WHERE id = ANY($1)",
                    &[&signed_ids],
                )
                .await?;
        }
        let mut made = lock(&self.made);
        let lost = ids
            .iter()
            .filter_map(|id| made.remove(id))
            .map(|(_, o)| o)
            .collect();
        // The rest that are past their expiry ended (here or on another
        // node) in books that still hold: nothing to tell.
        made.retain(|_, (_, open)| open.info.expires_at_ms > now_ms);
        Ok(lost)
    }

    /// Writes again which account each of `pairs` (connections here)
    /// acts as, in one statement.
    pub async fn sign_in_all(&self, pairs: &[(String, ConnId)]) -> Result<(), StoreError> {
        if pairs.is_empty() {
            return Ok(());
        }
        let conns: Vec<i64> = pairs.iter().map(|(_, c)| signed_conn(*c)).collect();
        let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
        self.client()
            .await?
            .execute(
                "INSERT INTO mm_presence (gw, conn, account) \
                 SELECT $1, c, a FROM unnest($2::bigint[], $3::text[]) AS t (c, a) \
                 ON CONFLICT (gw, conn) DO UPDATE SET account = EXCLUDED.account",
                &[&self.node, &conns, &keys],
            )
            .await?;
        Ok(())
    }

    /// Connections `conns` here act as no account (closed meanwhile).
    pub async fn sign_out_all(&self, conns: &[ConnId]) -> Result<(), StoreError> {
        if conns.is_empty() {
            return Ok(());
        }
        let conns: Vec<i64> = conns.iter().map(|c| signed_conn(*c)).collect();
        self.client()
            .await?
            .execute(
                "DELETE FROM mm_presence WHERE gw = $1 AND conn = ANY($2)",
                &[&self.node, &conns],
            )
            .await?;
        Ok(())
    }

    /// Connection `conn` here acts as the account `key`.
    pub async fn sign_in(&self, key: &str, conn: ConnId) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "INSERT INTO mm_presence (gw, conn, account) VALUES ($1, $2, $3) \
                 ON CONFLICT (gw, conn) DO UPDATE SET account = EXCLUDED.account",
                &[&self.node, &signed(conn.0), &key],
            )
            .await?;
        Ok(())
    }

    /// Whether the account `key` has a connection on a live node.
    pub async fn online(&self, key: &str, now_ms: u64) -> Result<bool, StoreError> {
        let row = self
            .client()
            .await?
            .query_one(
                &format!(
                    "SELECT EXISTS (SELECT 1 FROM mm_presence WHERE account = $2 AND gw IN {LIVE})"
                ),
                &[&signed(now_ms), &key],
            )
            .await?;
        Ok(row.try_get(0)?)
    }

    /// Which of the accounts keyed `keys` have a connection on a live
    /// node (one read, for a list of players followed).
    pub async fn online_among(
        &self,
        keys: &[String],
        now_ms: u64,
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let rows = self
            .client()
            .await?
            .query(
                &format!(
                    "SELECT DISTINCT account FROM mm_presence WHERE account = ANY($2) AND gw IN {LIVE}"
                ),
                &[&signed(now_ms), &keys],
            )
            .await?;
        rows.iter()
            .map(|r| r.try_get::<_, String>(0).map_err(StoreError::from))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use super::*;
    use crate::store::Store;
    use crate::testing::ScratchSchema;

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A beat that fails partway (here a sweep that cannot run) leaves
    /// its finding for the next one: the node's row, gone, is still
    /// reported gone once the database answers again, so the players'
    /// presence is written again. Written first, it was found by the next
    /// beat and the presence never came back.
    #[tokio::test]
    async fn a_beat_that_fails_partway_leaves_the_gone_row_for_the_next() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let (store, _task) = ok(Store::open(&scratch.config()).await);
        let pool = store
            .beside()
            .postgres_pool()
            .unwrap_or_else(|| panic!("a PostgreSQL store"));
        let books = SharedBooks::new(pool, "node-a");
        let first = ok(books.beat(1_000).await);
        assert!(
            first.presence,
            "a node's first beat finds no row of its own"
        );
        assert!(!ok(books.beat(2_000).await).presence);

        // The books emptied, and a statement of the next beat fails.
        ok(scratch.execute("DELETE FROM mm_nodes").await);
        ok(scratch
            .execute("ALTER TABLE mm_seeks RENAME TO mm_seeks_away")
            .await);
        assert!(books.beat(3_000).await.is_err());
        ok(scratch
            .execute("ALTER TABLE mm_seeks_away RENAME TO mm_seeks")
            .await);
        let next = ok(books.beat(4_000).await);
        assert!(next.presence, "the gone row is reported by the next beat");
        assert!(!ok(books.beat(5_000).await).presence);
    }
}
