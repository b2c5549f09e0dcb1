//! Seeks and challenges in cluster mode, kept in PostgreSQL so that a seek
//! on one node pairs with a seek on another and a challenge reaches its
//! player wherever they are connected.
//!
//! Why this way: the database is already the cluster's durable truth and
//! every node reaches it; one node at a time pairs (under a transaction
//! advisory lock, so a node that dies mid-round simply releases it and
//! another pairs next), and it writes where each paired seeker sits into
//! the seek's own row. Each node then hands its own seekers their seats
//! (woken by a nudge on the bus, or at the next tick if the nudge is
//! lost), so a matching node that dies after its commit loses nothing.
//! A seek whose row vanished without a seat (the database lost its
//! unlogged tables in a crash) is ended as `lost`: seek again.
//!
//! The tables are UNLOGGED (they describe live connections, which do not
//! outlive a database crash either, so they need no WAL) and made by the
//! store's PostgreSQL migrations with the rest of the schema. Rows of a
//! node that stopped beating (every [`NODE_ALIVE_FOR`]) are ignored and
//! swept.
//!
//! A crash empties them while the nodes' connections live on, and tells
//! nobody. Each beat therefore notices what it finds gone: its own node's
//! row (emptied or swept while it was stalled: it writes its players'
//! presence again, or they would look offline until they reconnect) and
//! the books' epoch (`mm_epoch`, a new one written by the first node to
//! find none: the challenges this node made under an older one are gone,
//! and their players are told they were lost). Ids come from a logged
//! sequence, so none comes back after a crash to pass for an old one.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use deadpool_postgres::Pool;

mod presence;

use presence::epoch;
pub use presence::Renewal;

use super::challenges::{self, Open};
use super::seeks::{check_limits, Group, SeekBook, Waiting};
use super::start::Placed;
use crate::blocks::{BlockedPairs, Blocks};
use crate::directory::Refused;
use crate::outbox::ConnId;
use crate::store::{Beside, StoreError};

/// How long a node's rows count after its last beat: several beats, so
/// one slow beat does not make a live node's seekers vanish.
pub const NODE_ALIVE_FOR: Duration = Duration::from_secs(5);

/// How often a node beats (on a task of its own, so that a long pairing
/// round never stops it).
pub const BEAT_EVERY: Duration = Duration::from_secs(1);

/// Rooms one pairing round makes at most: the round holds the pairing
/// lock while it makes them, so it is kept short; what is left pairs in
/// the next round, at once.
pub const MAX_GROUPS_PER_ROUND: usize = 64;

/// Rows of nodes that beat recently.
const LIVE: &str = "(SELECT gw FROM mm_nodes WHERE alive_until_ms > $1)";

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn signed_conn(c: ConnId) -> i64 {
    signed(c.0)
}

fn unsigned(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn corrupt(e: serde_json::Error) -> StoreError {
    StoreError::Corrupt(format!("a matchmaking row: {e}"))
}

/// The cluster's seeks and challenges, as one node sees them.
#[derive(Debug)]
pub struct SharedBooks {
    pool: Pool,
    node: String,
    /// The ids of this node's seeks still waiting, to tell a seek that
    /// vanished from one that was seated.
    mine: Mutex<HashMap<u64, ConnId>>,
    /// The challenges made here and not yet seen to end here, each with
    /// the books' epoch it was written under: one from an older epoch
    /// was lost in a crash. (One that ended on another node stays until
    /// its expiry passes.)
    made: Mutex<HashMap<u64, (String, Open)>>,
}

impl SharedBooks {
    /// The books on `pool` for node `node` (the store's migrations have
    /// made their tables).
    pub fn new(pool: Pool, node: &str) -> SharedBooks {
        SharedBooks {
            pool,
            node: node.to_owned(),
            mine: Mutex::default(),
            made: Mutex::default(),
        }
    }

    /// A connection from the pool.
    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        Beside::pg_client(&self.pool).await
    }

    /// The connections here with challenges made and not seen to end
    /// here (one accepted on another node stays until its expiry).
    pub fn challengers(&self) -> Vec<ConnId> {
        let mut conns: Vec<ConnId> = super::lock(&self.made)
            .values()
            .map(|(_, open)| open.from.conn)
            .collect();
        conns.sort_unstable_by_key(|c| c.0);
        conns.dedup();
        conns
    }

    /// Connection `conn` here closed: its presence, seeks and challenges
    /// go; the challenges it had made, for their players to be told.
    pub async fn closed(&self, conn: ConnId) -> Result<Vec<Open>, StoreError> {
        let client = self.client().await?;
        let c = signed(conn.0);
        client
            .execute(
                "DELETE FROM mm_presence WHERE gw = $1 AND conn = $2",
                &[&self.node, &c],
            )
            .await?;
        let rows = client
            .query(
                "DELETE FROM mm_seeks WHERE gw = $1 AND conn = $2 RETURNING id",
                &[&self.node, &c],
            )
            .await?;
        {
            let mut mine = super::lock(&self.mine);
            for r in rows {
                mine.remove(&unsigned(r.try_get(0)?));
            }
            // Seeks whose rows went already (seated meanwhile) go too.
            mine.retain(|_, c| *c != conn);
        }
        let rows = client
            .query(
                "DELETE FROM mm_challenges WHERE gw = $1 AND conn = $2 RETURNING id, body",
                &[&self.node, &c],
            )
            .await?;
        super::lock(&self.made).retain(|_, (_, open)| open.from.conn != conn);
        opens(rows)
    }

    /// Adds a seek within the cluster's limits; its id.
    pub async fn add_seek(&self, w: &Waiting) -> Result<Result<u64, Refused>, StoreError> {
        let client = self.client().await?;
        let account = w.asker.account.as_ref().map(|a| a.key.clone());
        let addr = w.asker.addr.to_string();
        let counts = client
            .query_one(
                "SELECT count(*) FILTER (WHERE gw = $1 AND conn = $2), \
                        count(*) FILTER (WHERE account = $3), \
                        count(*) FILTER (WHERE addr = $4) \
                 FROM mm_seeks WHERE placed IS NULL",
                &[&self.node, &signed(w.asker.conn.0), &account, &addr],
            )
            .await?;
        let (of_conn, of_account, of_addr): (i64, i64, i64) =
            (counts.try_get(0)?, counts.try_get(1)?, counts.try_get(2)?);
        let count = |n: i64| usize::try_from(n).unwrap_or(usize::MAX);
        let of_account = account.as_ref().map(|_| count(of_account));
        if let Err(refused) = check_limits(count(of_conn), of_account, count(of_addr)) {
            return Ok(Err(refused));
        }
        let body = serde_json::to_string(w).map_err(corrupt)?;
        let row = client
            .query_one(
                "INSERT INTO mm_seeks (gw, conn, account, addr, body) VALUES ($1, $2, $3, $4, $5) \
                 RETURNING id",
                &[&self.node, &signed(w.asker.conn.0), &account, &addr, &body],
            )
            .await?;
        let id = unsigned(row.try_get(0)?);
        super::lock(&self.mine).insert(id, w.asker.conn);
        Ok(Ok(id))
    }

    /// Cancels connection `conn`'s waiting seek `id`, or all of them.
    pub async fn cancel(&self, conn: ConnId, id: Option<u64>) -> Result<Vec<u64>, StoreError> {
        // A connection's seeks are all here from their insert on (a
        // connection's requests are handled one at a time): one with none
        // to cancel costs no statement.
        if !super::lock(&self.mine)
            .iter()
            .any(|(seek, c)| *c == conn && id.is_none_or(|id| *seek == id))
        {
            return Ok(Vec::new());
        }
        let rows = self
            .client()
            .await?
            .query(
                "DELETE FROM mm_seeks WHERE gw = $1 AND conn = $2 AND placed IS NULL \
                 AND ($3::bigint IS NULL OR id = $3) RETURNING id",
                &[&self.node, &signed(conn.0), &id.map(signed)],
            )
            .await?;
        let mut ids = Vec::new();
        let mut mine = super::lock(&self.mine);
        for r in rows {
            let id = unsigned(r.try_get(0)?);
            mine.remove(&id);
            ids.push(id);
        }
        Ok(ids)
    }

    /// One pairing round, if no other node is pairing now: takes the
    /// groups that pair at `now_ms`, has `place` make their rooms, and
    /// writes where each seeker sits into its row, all in one
    /// transaction.
    pub async fn pair<F, Fut>(&self, now_ms: u64, place: F) -> Result<Round, StoreError>
    where
        F: Fn(Group) -> Fut,
        Fut: std::future::Future<Output = Vec<(Waiting, Placed)>>,
    {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let locked: bool = tx
            .query_one(
                "SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || ':matchmaking'))",
                &[],
            )
            .await?
            .try_get(0)?;
        if !locked {
            return Ok(Round::Idle);
        }
        let rows = tx
            .query(
                &format!("SELECT id, body FROM mm_seeks WHERE placed IS NULL AND gw IN {LIVE}"),
                &[&signed(now_ms)],
            )
            .await?;
        let mut waiting = Vec::with_capacity(rows.len());
        for r in rows {
            let mut w: Waiting =
                serde_json::from_str(&r.try_get::<_, String>(1)?).map_err(corrupt)?;
            w.id = unsigned(r.try_get(0)?);
            waiting.push(w);
        }
        // The blocks among the accounts waiting, read once a round (the
        // seeks are this transaction's: none is missed).
        let mut book = SeekBook::from_waiting(waiting);
        let keys = book.account_keys();
        let blocked = if keys.len() < 2 {
            BlockedPairs::read_for(keys)
        } else {
            Blocks::new(Beside::Postgres(self.pool.clone()))
                .pairs_among(&keys)
                .await?
        };
        let mut groups = book.take_groups(now_ms, &blocked);
        if groups.is_empty() {
            return Ok(Round::Idle);
        }
        let more = groups.len() > MAX_GROUPS_PER_ROUND;
        groups.truncate(MAX_GROUPS_PER_ROUND);
        // The rooms are made together: each is a write of its own.
        let placed = futures_util::future::join_all(groups.into_iter().map(place)).await;
        for (w, placed) in placed.into_iter().flatten() {
            let placed = serde_json::to_string(&placed).map_err(corrupt)?;
            tx.execute(
                "UPDATE mm_seeks SET placed = $2 WHERE id = $1",
                &[&signed(w.id), &placed],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(if more { Round::More } else { Round::Placed })
    }

    /// This node's seekers placed by a round (the rows go), and its seeks
    /// that vanished without a place: (seek, connection, place or `None`
    /// for lost).
    pub async fn collect(&self) -> Result<Vec<(u64, ConnId, Option<Placed>)>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                "DELETE FROM mm_seeks WHERE gw = $1 AND placed IS NOT NULL RETURNING id, conn, placed",
                &[&self.node],
            )
            .await?;
        let mut out = Vec::new();
        for r in rows {
            let id = unsigned(r.try_get(0)?);
            let conn = ConnId(unsigned(r.try_get(1)?));
            let placed: Option<String> = r.try_get(2)?;
            let placed: Placed =
                serde_json::from_str(placed.as_deref().unwrap_or("")).map_err(corrupt)?;
            out.push((id, conn, Some(placed)));
        }
        // Only seeks known before the read below can be judged by it: a
        // seek is listed here once its row is committed, so one listed
        // meanwhile (a seek racing this round) may be missing from a read
        // that began earlier, and is not lost.
        let known: HashSet<u64> = super::lock(&self.mine).keys().copied().collect();
        let present: HashSet<u64> = client
            .query("SELECT id FROM mm_seeks WHERE gw = $1", &[&self.node])
            .await?
            .iter()
            .filter_map(|r| r.try_get::<_, i64>(0).ok().map(unsigned))
            .collect();
        let mut mine = super::lock(&self.mine);
        for (id, ..) in &out {
            mine.remove(id);
        }
        let lost: Vec<(u64, ConnId)> = mine
            .iter()
            .filter(|(id, _)| known.contains(id) && !present.contains(id))
            .map(|(&id, &conn)| (id, conn))
            .collect();
        for (id, conn) in lost {
            mine.remove(&id);
            out.push((id, conn, None));
        }
        Ok(out)
    }

    /// Adds a challenge within the limits (its id filled in).
    pub async fn add_challenge(
        &self,
        mut open: Open,
    ) -> Result<Result<parlor_protocol::ChallengeInfo, Refused>, StoreError> {
        let client = self.client().await?;
        let from = open.from_key().to_owned();
        let counts = client
            .query_one(
                "SELECT count(*) FILTER (WHERE from_key = $1), count(*) FILTER (WHERE to_key = $2) \
                 FROM mm_challenges",
                &[&from, &open.to_key],
            )
            .await?;
        let (made, received): (i64, i64) = (counts.try_get(0)?, counts.try_get(1)?);
        let count = |n: i64| usize::try_from(n).unwrap_or(usize::MAX);
        if let Err(refused) = challenges::check_limits(count(made), count(received), &open.info.to)
        {
            return Ok(Err(refused));
        }
        let body = serde_json::to_string(&open).map_err(corrupt)?;
        let epoch = epoch(&client).await?;
        let row = client
            .query_one(
                "INSERT INTO mm_challenges (gw, conn, from_key, to_key, expires_ms, body) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                &[
                    &self.node,
                    &signed(open.from.conn.0),
                    &from,
                    &open.to_key,
                    &signed(open.info.expires_at_ms),
                    &body,
                ],
            )
            .await?;
        open.info.challenge = unsigned(row.try_get(0)?);
        let info = open.info.clone();
        super::lock(&self.made).insert(info.challenge, (epoch, open));
        Ok(Ok(info))
    }

    /// The challenges addressed to any of the accounts `keys` still open
    /// at `now_ms`, each with its addressee's key, oldest first.
    pub async fn addressed_to(
        &self,
        keys: &[String],
        now_ms: u64,
    ) -> Result<Vec<(String, parlor_protocol::ChallengeInfo)>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self
            .client()
            .await?
            .query(
                "SELECT id, body FROM mm_challenges WHERE to_key = ANY($1) AND expires_ms > $2 \
                 ORDER BY id",
                &[&keys, &signed(now_ms)],
            )
            .await?;
        Ok(opens(rows)?
            .into_iter()
            .map(|o| (o.to_key, o.info))
            .collect())
    }

    /// Takes challenge `id` if its `column` (`to_key` or `from_key`) is `by`.
    pub async fn take(
        &self,
        id: u64,
        column: TakeBy,
        by: &str,
    ) -> Result<Option<Open>, StoreError> {
        let sql = match column {
            TakeBy::Addressee => {
                "DELETE FROM mm_challenges WHERE id = $1 AND to_key = $2 RETURNING id, body"
            }
            TakeBy::Maker => {
                "DELETE FROM mm_challenges WHERE id = $1 AND from_key = $2 RETURNING id, body"
            }
        };
        let rows = self.client().await?.query(sql, &[&signed(id), &by]).await?;
        let taken = opens(rows)?.into_iter().next();
        if taken.is_some() {
            super::lock(&self.made).remove(&id);
        }
        Ok(taken)
    }

    /// Takes the challenges that expired, whose challenger's node stopped,
    /// or whose player has no connection left.
    pub async fn take_ended(&self, now_ms: u64) -> Result<Vec<(Open, bool)>, StoreError> {
        let client = self.client().await?;
        let now = signed(now_ms);
        let expired = client
            .query(
                &format!(
                    "DELETE FROM mm_challenges WHERE expires_ms <= $1 OR gw NOT IN {LIVE} RETURNING id, body"
                ),
                &[&now],
            )
            .await?;
        let unreachable = client
            .query(
                &format!(
                    "DELETE FROM mm_challenges WHERE to_key NOT IN \
                     (SELECT account FROM mm_presence WHERE gw IN {LIVE}) RETURNING id, body"
                ),
                &[&now],
            )
            .await?;
        let mut out: Vec<(Open, bool)> = opens(expired)?.into_iter().map(|o| (o, true)).collect();
        out.extend(opens(unreachable)?.into_iter().map(|o| (o, false)));
        let mut made = super::lock(&self.made);
        for (open, _) in &out {
            made.remove(&open.info.challenge);
        }
        Ok(out)
    }
}

/// What a pairing round did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Nothing to pair (or another node is pairing).
    Idle,
    /// It placed seekers.
    Placed,
    /// It placed as many as a round may, and more pair: go again.
    More,
}

/// Whom a challenge is taken for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TakeBy {
    /// The challenged player (accept, decline).
    Addressee,
    /// The challenger (withdraw).
    Maker,
}

fn opens(rows: Vec<tokio_postgres::Row>) -> Result<Vec<Open>, StoreError> {
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let mut open: Open = serde_json::from_str(&r.try_get::<_, String>(1)?).map_err(corrupt)?;
        open.info.challenge = unsigned(r.try_get(0)?);
        out.push(open);
    }
    Ok(out)
}
