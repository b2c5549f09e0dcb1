//! Writing an account's standing: its role and what moderation holds
//! against it (`accounts.role`, `closed_ms`, `mark`, `muted_until_ms`,
//! `playban_until_ms`). Reads come with every account
//! (`accounts::store`); the writes are moderation's alone, each one
//! statement by the account's name key, in either database.

use crate::accounts::{name_key, Mark, Role};
use crate::store::{Arg, Beside, StoreError};

/// The standing columns of the accounts table; cheap to clone.
#[derive(Clone, Debug)]
pub struct StandingStore(Beside);

/// Which of the standing's columns a write sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// When the account was closed (`NULL`: open).
    ClosedMs,
    /// Muted until.
    MutedUntilMs,
    /// Play-banned until.
    PlaybanUntilMs,
}

impl StandingStore {
    /// The accounts table in the database beside the log.
    pub fn new(beside: Beside) -> Self {
        StandingStore(beside)
    }

    /// Sets account `name`'s role; whether an account has the name.
    pub async fn set_role(&self, name: &str, role: Role) -> Result<bool, StoreError> {
        let n = self
            .0
            .exec(
                "UPDATE accounts SET role = $1 WHERE name_key = $2",
                vec![role.as_str().into(), name_key(name).into()],
            )
            .await?;
        Ok(n == 1)
    }

    /// Sets account `name`'s mark (`None`: unmarked); whether an account
    /// has the name.
    pub async fn set_mark(&self, name: &str, mark: Option<Mark>) -> Result<bool, StoreError> {
        let mark = mark.map(|m| m.as_str().to_owned());
        let n = self
            .0
            .exec(
                "UPDATE accounts SET mark = $1 WHERE name_key = $2",
                vec![Arg::from(mark), name_key(name).into()],
            )
            .await?;
        Ok(n == 1)
    }

    /// Sets one of account `name`'s times (`None`: clears it); whether an
    /// account has the name.
    pub async fn set_time(
        &self,
        name: &str,
        column: Column,
        ms: Option<i64>,
    ) -> Result<bool, StoreError> {
        // One literal per column: statements beside the log are 'static.
        let sql = match column {
            Column::ClosedMs => "UPDATE accounts SET closed_ms = $1 WHERE name_key = $2",
            Column::MutedUntilMs => "UPDATE accounts SET muted_until_ms = $1 WHERE name_key = $2",
            Column::PlaybanUntilMs => {
                "UPDATE accounts SET playban_until_ms = $1 WHERE name_key = $2"
            }
        };
        let n = self
            .0
            .exec(sql, vec![Arg::from(ms), name_key(name).into()])
            .await?;
        Ok(n == 1)
    }
}
