//! The fair-play counts beside the log (`fairplay_games`): one row per
//! rated match and human account, with the match's pool, end time and
//! the account's `choices` and `agreed`. A row is inserted once: the key
//! is (room, account), so a match processed twice (two nodes, or a retry)
//! counts once.

use crate::store::{Arg, Beside, Row, StoreError};

/// The most rooms listed per account in the review's answer: enough to
/// open a few games of each kind, few enough to keep the answer small.
pub const ROOMS_LISTED: usize = 20;

/// One account's row for one match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameCounts {
    /// The match's room.
    pub room: String,
    /// The account's name key (lower case).
    pub account_key: String,
    /// The account's name as its owner spells it.
    pub name: String,
    /// The rating pool (the game's name).
    pub pool: String,
    /// When the match ended (ms since the epoch).
    pub at_ms: u64,
    /// Decisions with a real choice.
    pub choices: u32,
    /// Of those, the ones agreeing with the engine.
    pub agreed: u32,
}

/// One account's counts over a pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountCounts {
    /// The account's name key (lower case).
    pub account_key: String,
    /// The account's name.
    pub name: String,
    /// Decisions with a real choice, over every match counted.
    pub choices: u64,
    /// Of those, the ones agreeing with the engine.
    pub agreed: u64,
    /// Matches counted.
    pub games: u64,
    /// The account's moderation mark (`engine`, `booster`), if any.
    pub mark: Option<String>,
}

/// The fair-play counts; cheap to clone.
#[derive(Clone, Debug)]
pub struct FairPlayStore(Beside);

fn int(n: u64) -> Arg {
    Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

fn count(r: &Row, i: usize) -> Result<u64, StoreError> {
    Ok(u64::try_from(r.int(i)?).unwrap_or(0))
}

impl FairPlayStore {
    /// The counts in the database beside the match log.
    pub fn new(beside: Beside) -> Self {
        FairPlayStore(beside)
    }

    /// Stores `row` unless the match was counted for the account already;
    /// whether it was new.
    pub async fn insert(&self, row: GameCounts) -> Result<bool, StoreError> {
        let n = self
            .0
            .exec(
                "INSERT INTO fairplay_games (room, account_key, name, pool, at_ms, choices, agreed) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
                vec![
                    row.room.into(),
                    row.account_key.into(),
                    row.name.into(),
                    row.pool.into(),
                    int(row.at_ms),
                    int(u64::from(row.choices)),
                    int(u64::from(row.agreed)),
                ],
            )
            .await?;
        Ok(n == 1)
    }

    /// Every account's counts in `pool`, with its mark.
    pub async fn pool(&self, pool: &str) -> Result<Vec<AccountCounts>, StoreError> {
        // SUM of a bigint is numeric in PostgreSQL: cast back to read it
        // as an integer on both databases.
        let rows = self
            .0
            .fetch(
                "SELECT f.account_key, MAX(f.name), CAST(SUM(f.choices) AS BIGINT), \
                 CAST(SUM(f.agreed) AS BIGINT), COUNT(*), MAX(a.mark) \
                 FROM fairplay_games f LEFT JOIN accounts a ON a.name_key = f.account_key \
                 WHERE f.pool = $1 GROUP BY f.account_key ORDER BY f.account_key",
                vec![pool.into()],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(AccountCounts {
                    account_key: r.text(0)?,
                    name: r.text(1)?,
                    choices: count(r, 2)?,
                    agreed: count(r, 3)?,
                    games: count(r, 4)?,
                    mark: r.opt_text(5)?,
                })
            })
            .collect()
    }

    /// The rooms of `account_key`'s counted matches in `pool` with at
    /// least one choice, newest first, at most [`ROOMS_LISTED`].
    pub async fn rooms(&self, pool: &str, account_key: &str) -> Result<Vec<String>, StoreError> {
        let rows = self
            .0
            .fetch(
                "SELECT room FROM fairplay_games WHERE pool = $1 AND account_key = $2 \
                 AND choices > 0 ORDER BY at_ms DESC, room LIMIT $3",
                vec![pool.into(), account_key.into(), int(ROOMS_LISTED as u64)],
            )
            .await?;
        rows.iter().map(|r| r.text(0)).collect()
    }

    /// Whether the account `key` is a human's (a bot account's play is a
    /// program's by design, and is not reviewed).
    pub async fn is_human(&self, key: &str) -> Result<bool, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT kind FROM accounts WHERE name_key = $1",
                vec![key.into()],
            )
            .await?;
        Ok(match row {
            Some(r) => r.text(0)? == crate::accounts::AccountKind::Human.as_str(),
            None => false,
        })
    }

    /// The moderation mark of the account `key`, if it has one.
    pub async fn mark_of(&self, key: &str) -> Result<Option<String>, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT mark FROM accounts WHERE name_key = $1",
                vec![key.into()],
            )
            .await?;
        match row {
            Some(r) => r.opt_text(0),
            None => Ok(None),
        }
    }
}
