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
    pub async fn beat(&self, now_ms: u64) -> Result<Renewal, StoreError> {
        let client = self.client().await?;
        let now = signed(now_ms);
        let epoch = epoch(&client).await?;
        let here = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM mm_nodes WHERE gw = $1)",
                &[&self.node],
            )
            .await?
            .try_get::<_, bool>(0)?;
        client
            .execute(
                "INSERT INTO mm_nodes (gw, alive_until_ms) VALUES ($1, $2) \
                 ON CONFLICT (gw) DO UPDATE SET alive_until_ms = EXCLUDED.alive_until_ms",
                &[&self.node, &(now + ms(NODE_ALIVE_FOR))],
            )
            .await?;
        client
            .batch_execute(&format!(
                "DELETE FROM mm_presence WHERE gw NOT IN (SELECT gw FROM mm_nodes WHERE alive_until_ms > {now}); \
                 DELETE FROM mm_seeks WHERE gw NOT IN (SELECT gw FROM mm_nodes WHERE alive_until_ms > {now}); \
                 DELETE FROM mm_nodes WHERE alive_until_ms <= {now};"
            ))
            .await?;
        let lost: Vec<Open> = {
            let mut made = lock(&self.made);
            let ids: Vec<u64> = made
                .iter()
                .filter(|(_, (e, _))| *e != epoch)
                .map(|(&id, _)| id)
                .collect();
            let lost = ids
                .iter()
                .filter_map(|id| made.remove(id))
                .map(|(_, o)| o)
                .collect();
            // The rest that are past their expiry ended (here or on
            // another node) in books that still hold: nothing to tell.
            made.retain(|_, (_, open)| open.info.expires_at_ms > now_ms);
            lost
        };
        if !lost.is_empty() {
            // Gone with the books already; a row a newer epoch somehow
            // kept could no longer be answered truthfully.
            let ids: Vec<i64> = lost.iter().map(|o| signed(o.info.challenge)).collect();
            client
                .execute("DELETE FROM mm_challenges WHERE id = ANY($1)", &[&ids])
                .await?;
        }
        Ok(Renewal {
            presence: !here,
            lost,
        })
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
