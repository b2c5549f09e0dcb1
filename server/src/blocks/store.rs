//! The `blocks` table: one row per account and player it blocks, keyed
//! by both name keys. Every statement is written once for both databases
//! ([`Beside`]); the limit is counted by the statement that adds the
//! row, under a lock on the account on PostgreSQL
//! ([`Beside::fetch_alone`]).

use std::collections::HashSet;

use serde::Serialize;

use super::pairs::BlockedPairs;
use super::{BLOCKS_READ_CHUNK, MAX_BLOCKS_PER_ACCOUNT};
use crate::accounts::name_key;
use crate::store::{Arg, Beside, StoreError};

/// A player one blocks, as the list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockEntry {
    /// The player's name as its owner spells it.
    pub player: String,
    /// Since when (ms since the epoch).
    pub at_ms: i64,
}

/// Who blocks whom between two accounts, seen from the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// Neither blocks the other.
    Neither,
    /// The first blocks the second (perhaps also the other way).
    ByFirst,
    /// Only the second blocks the first.
    BySecond,
}

/// The blocks; cheap to clone.
#[derive(Clone, Debug)]
pub struct Blocks(Beside);

/// Why a block was not made.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    /// Refused (oneself, or past the bound); why, for people.
    #[error("{0}")]
    Refused(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Blocks {
    /// The blocks in the database beside the match log.
    pub fn new(beside: Beside) -> Self {
        Blocks(beside)
    }

    /// The account `by` blocks the account `player` (both as their owners
    /// spell them; `player` an existing account) at `now_ms`. Blocking
    /// again changes nothing; past [`MAX_BLOCKS_PER_ACCOUNT`] it is
    /// refused.
    pub async fn block(&self, by: &str, player: &str, now_ms: i64) -> Result<(), BlockError> {
        let key = name_key(by);
        let blocked_key = name_key(player);
        if key == blocked_key {
            return Err(BlockError::Refused("you cannot block yourself".into()));
        }
        let cap = i64::try_from(MAX_BLOCKS_PER_ACCOUNT).unwrap_or(i64::MAX);
        let added = self
            .0
            .fetch_alone(
                &format!("block:{key}"),
                "INSERT INTO blocks (account_key, blocked_key, blocked, at_ms) \
                 SELECT $1, $2, $3, $4 \
                 WHERE (SELECT count(*) FROM blocks WHERE account_key = $1) < $5 \
                 ON CONFLICT DO NOTHING RETURNING at_ms",
                vec![
                    key.clone().into(),
                    blocked_key.clone().into(),
                    player.into(),
                    now_ms.into(),
                    cap.into(),
                ],
            )
            .await?;
        if !added.is_empty() || self.blocks(&key, &blocked_key).await? {
            return Ok(());
        }
        Err(BlockError::Refused(format!(
            "you block {MAX_BLOCKS_PER_ACCOUNT} players, as many as one may; unblock one first"
        )))
    }

    /// The account `by` no longer blocks `player`; whether it did.
    pub async fn unblock(&self, by: &str, player: &str) -> Result<bool, StoreError> {
        let n = self
            .0
            .exec(
                "DELETE FROM blocks WHERE account_key = $1 AND blocked_key = $2",
                vec![name_key(by).into(), name_key(player).into()],
            )
            .await?;
        Ok(n > 0)
    }

    /// The players the account `by` blocks, by name.
    pub async fn list(&self, by: &str) -> Result<Vec<BlockEntry>, StoreError> {
        let rows = self
            .0
            .fetch(
                "SELECT blocked, at_ms FROM blocks WHERE account_key = $1 ORDER BY blocked_key",
                vec![name_key(by).into()],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(BlockEntry {
                    player: r.text(0)?,
                    at_ms: r.int(1)?,
                })
            })
            .collect()
    }

    /// Whether the account keyed `key` blocks the one keyed `blocked_key`.
    async fn blocks(&self, key: &str, blocked_key: &str) -> Result<bool, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT 1 FROM blocks WHERE account_key = $1 AND blocked_key = $2",
                vec![key.into(), blocked_key.into()],
            )
            .await?;
        Ok(row.is_some())
    }

    /// Who blocks whom between the accounts named `a` and `b`.
    pub async fn between(&self, a: &str, b: &str) -> Result<Blocked, StoreError> {
        let (a, b) = (name_key(a), name_key(b));
        let rows = self
            .0
            .fetch(
                "SELECT account_key FROM blocks WHERE (account_key = $1 AND blocked_key = $2) \
                 OR (account_key = $2 AND blocked_key = $1)",
                vec![a.clone().into(), b.into()],
            )
            .await?;
        let blockers: Vec<String> = rows.iter().filter_map(|r| r.text(0).ok()).collect();
        Ok(if blockers.contains(&a) {
            Blocked::ByFirst
        } else if blockers.is_empty() {
            Blocked::Neither
        } else {
            Blocked::BySecond
        })
    }

    /// Whether either of the accounts named `a` and `b` blocks the other
    /// (what chat asks before a message passes between them).
    pub async fn either_blocks(&self, a: &str, b: &str) -> Result<bool, StoreError> {
        Ok(self.between(a, b).await? != Blocked::Neither)
    }

    /// The pairs among the accounts keyed `keys` that a block keeps apart
    /// (one read per [`BLOCKS_READ_CHUNK`] of them: a pairing round's).
    pub async fn pairs_among(&self, keys: &[String]) -> Result<BlockedPairs, StoreError> {
        let mut pairs = BlockedPairs::read_for(keys.iter().cloned());
        let all: HashSet<&str> = keys.iter().map(String::as_str).collect();
        if all.len() < 2 {
            return Ok(pairs);
        }
        let unique: Vec<&str> = all.iter().copied().collect();
        for chunk in unique.chunks(BLOCKS_READ_CHUNK) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT account_key, blocked_key FROM blocks WHERE account_key IN ({})",
                marks.join(", ")
            );
            let args: Vec<Arg> = chunk.iter().map(|k| Arg::from(*k)).collect();
            for r in self.0.fetch(sql, args).await? {
                let (a, b) = (r.text(0)?, r.text(1)?);
                if all.contains(b.as_str()) {
                    pairs.insert(&a, &b);
                }
            }
        }
        Ok(pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreTask};

    fn blocks() -> (Blocks, StoreTask) {
        let (store, task) = Store::throwaway().unwrap_or_else(|e| panic!("{e}"));
        (Blocks::new(store.beside()), task)
    }

    #[tokio::test]
    async fn blocking_is_idempotent_one_way_and_undone_by_unblocking() {
        let (b, _task) = blocks();
        assert!(b.block("Al", "Bo", 1).await.is_ok());
        assert!(b.block("al", "BO", 2).await.is_ok());
        let list = b.list("AL").await.unwrap_or_default();
        assert_eq!(
            list,
            vec![BlockEntry {
                player: "Bo".into(),
                at_ms: 1
            }]
        );
        assert_eq!(b.between("Al", "Bo").await.ok(), Some(Blocked::ByFirst));
        assert_eq!(b.between("Bo", "Al").await.ok(), Some(Blocked::BySecond));
        assert_eq!(b.between("Bo", "Cy").await.ok(), Some(Blocked::Neither));
        assert!(b.either_blocks("bo", "al").await.unwrap_or(false));
        assert!(matches!(
            b.block("Al", "al", 3).await,
            Err(BlockError::Refused(_))
        ));
        assert!(b.unblock("Al", "bo").await.unwrap_or(false));
        assert!(!b.unblock("Al", "bo").await.unwrap_or(true));
        assert!(!b.either_blocks("Al", "Bo").await.unwrap_or(true));
    }

    #[tokio::test]
    async fn pairs_among_seekers_are_those_blocked_either_way_among_them() {
        let (b, _task) = blocks();
        for (x, y) in [("a", "b"), ("c", "a"), ("d", "z")] {
            assert!(b.block(x, y, 0).await.is_ok());
        }
        let keys: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let pairs = b.pairs_among(&keys).await.unwrap_or_default();
        assert!(pairs.apart("a", "b") && pairs.apart("a", "c"));
        assert!(!pairs.apart("b", "c"));
        // z is not among them: d's block is no pair here.
        assert!(!pairs.apart("d", "z"));
    }

    #[tokio::test]
    async fn the_limit_holds_but_an_existing_block_may_be_repeated() {
        let (b, _task) = blocks();
        for i in 0..MAX_BLOCKS_PER_ACCOUNT {
            assert!(b.block("Al", &format!("p{i}"), 0).await.is_ok(), "{i}");
        }
        assert!(matches!(
            b.block("Al", "one_more", 0).await,
            Err(BlockError::Refused(_))
        ));
        assert!(b.block("Al", "p0", 0).await.is_ok());
    }
}
