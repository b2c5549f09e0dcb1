//! The `follows` table: one row per account and player it follows, keyed
//! by both name keys. Every statement is written once for both databases
//! ([`Beside`]); the limit is counted by the statement that adds the row,
//! under a lock on the account on PostgreSQL ([`Beside::fetch_alone`]).

use serde::Serialize;

use super::MAX_FOLLOWS_PER_ACCOUNT;
use crate::accounts::name_key;
use crate::store::{Beside, StoreError};

/// A player one follows, as the list keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FollowEntry {
    /// The player's name as its owner spells it.
    pub player: String,
    /// Since when (ms since the epoch).
    pub at_ms: i64,
}

/// The follows; cheap to clone.
#[derive(Clone, Debug)]
pub struct Follows(Beside);

/// Why a follow was not made.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// Refused (oneself, an unknown player, or past the bound); why, for
    /// people.
    #[error("{0}")]
    Refused(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Follows {
    /// The follows in the database beside the match log.
    pub fn new(beside: Beside) -> Self {
        Follows(beside)
    }

    /// The account `by` follows the account `player` (both as their
    /// owners spell them; `player` an existing account) from `now_ms`.
    /// Following again changes nothing; past [`MAX_FOLLOWS_PER_ACCOUNT`]
    /// it is refused.
    pub async fn follow(&self, by: &str, player: &str, now_ms: i64) -> Result<(), FollowError> {
        let key = name_key(by);
        let followed_key = name_key(player);
        if key == followed_key {
            return Err(FollowError::Refused("you cannot follow yourself".into()));
        }
        let cap = i64::try_from(MAX_FOLLOWS_PER_ACCOUNT).unwrap_or(i64::MAX);
        let added = self
            .0
            .fetch_alone(
                &format!("follow:{key}"),
                "INSERT INTO follows (account_key, followed_key, followed, at_ms) \
                 SELECT $1, $2, $3, $4 \
                 WHERE (SELECT count(*) FROM follows WHERE account_key = $1) < $5 \
                 ON CONFLICT DO NOTHING RETURNING at_ms",
                vec![
                    key.clone().into(),
                    followed_key.clone().into(),
                    player.into(),
                    now_ms.into(),
                    cap.into(),
                ],
            )
            .await?;
        if !added.is_empty() || self.follows(&key, &followed_key).await? {
            return Ok(());
        }
        Err(FollowError::Refused(format!(
            "you follow {MAX_FOLLOWS_PER_ACCOUNT} players, as many as one may; unfollow one first"
        )))
    }

    /// The account `by` no longer follows `player`; whether it did.
    pub async fn unfollow(&self, by: &str, player: &str) -> Result<bool, StoreError> {
        let n = self
            .0
            .exec(
                "DELETE FROM follows WHERE account_key = $1 AND followed_key = $2",
                vec![name_key(by).into(), name_key(player).into()],
            )
            .await?;
        Ok(n > 0)
    }

    /// The players the account `by` follows, by name.
    pub async fn list(&self, by: &str) -> Result<Vec<FollowEntry>, StoreError> {
        let rows = self
            .0
            .fetch(
                "SELECT followed, at_ms FROM follows WHERE account_key = $1 ORDER BY followed_key",
                vec![name_key(by).into()],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(FollowEntry {
                    player: r.text(0)?,
                    at_ms: r.int(1)?,
                })
            })
            .collect()
    }

    /// Whether the account keyed `key` follows the one keyed `followed_key`.
    async fn follows(&self, key: &str, followed_key: &str) -> Result<bool, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT 1 FROM follows WHERE account_key = $1 AND followed_key = $2",
                vec![key.into(), followed_key.into()],
            )
            .await?;
        Ok(row.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreTask};

    fn follows() -> (Follows, StoreTask) {
        let (store, task) = Store::throwaway().unwrap_or_else(|e| panic!("{e}"));
        (Follows::new(store.beside()), task)
    }

    #[tokio::test]
    async fn following_is_idempotent_one_way_and_undone_by_unfollowing() {
        let (f, _task) = follows();
        assert!(f.follow("Al", "Bo", 1).await.is_ok());
        assert!(f.follow("al", "BO", 2).await.is_ok());
        assert!(f.follow("Al", "Cy", 3).await.is_ok());
        let list = f.list("AL").await.unwrap_or_default();
        assert_eq!(
            list,
            vec![
                FollowEntry {
                    player: "Bo".into(),
                    at_ms: 1
                },
                FollowEntry {
                    player: "Cy".into(),
                    at_ms: 3
                }
            ]
        );
        assert!(f.list("Bo").await.unwrap_or_default().is_empty(), "one way");
        assert!(matches!(
            f.follow("Al", "al", 3).await,
            Err(FollowError::Refused(_))
        ));
        assert!(f.unfollow("Al", "bo").await.unwrap_or(false));
        assert!(!f.unfollow("Al", "bo").await.unwrap_or(true));
        assert_eq!(f.list("Al").await.unwrap_or_default().len(), 1);
    }

    #[tokio::test]
    async fn the_limit_holds_but_an_existing_follow_may_be_repeated() {
        let (f, _task) = follows();
        for i in 0..MAX_FOLLOWS_PER_ACCOUNT {
            assert!(f.follow("Al", &format!("p{i}"), 0).await.is_ok(), "{i}");
        }
        assert!(matches!(
            f.follow("Al", "one_more", 0).await,
            Err(FollowError::Refused(_))
        ));
        assert!(f.follow("Al", "p0", 0).await.is_ok());
    }
}
