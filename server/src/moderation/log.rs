//! The moderation log: every moderator's action, appended and never
//! changed, beside the match log in both stores. Moderators read it whole
//! (`GET /api/mod/log`, newest first); a player page shows the public
//! part of an account's entries (what was done, the reason's public
//! words, when), never the free text or the moderator's name.

use serde::Serialize;
use serde_json::Value;

use super::reason::ModReason;
use crate::store::{Arg, Beside, Row, StoreError};

/// The most entries one read of the log returns: a page of a moderator's
/// screen; older ones are read with `before`.
pub const MOD_LOG_PAGE: usize = 100;

/// What a moderator did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModAction {
    /// Closed an account.
    Close,
    /// Reopened a closed account.
    Reopen,
    /// Marked an account `engine` or `booster` (the detail says which,
    /// and from when its rated results were voided, if they were).
    Mark,
    /// Took a mark away.
    Unmark,
    /// Muted an account in chat for a time.
    Mute,
    /// Banned an account from play for a time.
    Playban,
    /// Granted or took away a role.
    Role,
    /// Resolved a report (the detail says how, and which report).
    Resolve,
}

impl ModAction {
    /// Every action.
    pub const ALL: [ModAction; 8] = [
        ModAction::Close,
        ModAction::Reopen,
        ModAction::Mark,
        ModAction::Unmark,
        ModAction::Mute,
        ModAction::Playban,
        ModAction::Role,
        ModAction::Resolve,
    ];

    /// The action as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ModAction::Close => "close",
            ModAction::Reopen => "reopen",
            ModAction::Mark => "mark",
            ModAction::Unmark => "unmark",
            ModAction::Mute => "mute",
            ModAction::Playban => "playban",
            ModAction::Role => "role",
            ModAction::Resolve => "resolve",
        }
    }

    /// The action stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// An action to append.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEntry {
    /// When (ms since the epoch).
    pub at_ms: i64,
    /// The moderator's name (or `server` for the machine's own command).
    pub moderator: String,
    /// What was done.
    pub action: ModAction,
    /// The account acted on, as its owner spells it, if any.
    pub account: Option<String>,
    /// The room concerned, if any.
    pub room: Option<String>,
    /// Why, from the closed set.
    pub reason: ModReason,
    /// Why, in the moderator's words (for moderators only).
    pub text: String,
    /// What else the action needs said (a mark, minutes, a report id).
    pub detail: Option<Value>,
}

/// An entry as stored.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// Its number, rising.
    pub id: i64,
    /// When (ms since the epoch).
    pub at_ms: i64,
    /// The moderator's name.
    pub moderator: String,
    /// What was done.
    pub action: ModAction,
    /// The account acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// The room concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// Why, from the closed set.
    pub reason: ModReason,
    /// Why, in the moderator's words.
    pub text: String,
    /// What else the action said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

/// What a player page shows of an entry: no text, no moderator.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PublicEntry {
    /// When (ms since the epoch).
    pub at_ms: i64,
    /// What was done.
    pub action: ModAction,
    /// Why, from the closed set.
    pub reason: ModReason,
    /// The reason in words, as the page says it ("fair-play violation").
    pub why: &'static str,
}

/// The moderation log; cheap to clone.
#[derive(Clone, Debug)]
pub struct ModLog(Beside);

/// `SELECT` of the columns [`entry`] reads followed by `$tail`, as one
/// literal (statements beside the log are `'static`).
macro_rules! select_entries {
    ($tail:literal) => {
        concat!(
            "SELECT id, at_ms, moderator, action, account, room, reason, text, detail ",
            $tail
        )
    };
}

/// The insert of an entry followed by `$tail`, as one literal.
macro_rules! append_sql {
    ($tail:literal) => {
        concat!(
            "INSERT INTO mod_log (at_ms, moderator, action, account_key, account, room, ",
            "reason, text, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            $tail
        )
    };
}

impl ModLog {
    /// The log in the database beside the match log.
    pub fn new(beside: Beside) -> Self {
        ModLog(beside)
    }

    /// Appends `e`; its id.
    pub async fn append(&self, e: NewEntry) -> Result<i64, StoreError> {
        let (_, args) = append_statement(e);
        let row = self.0.fetch_opt(append_sql!(" RETURNING id"), args).await?;
        let row = row.ok_or_else(|| StoreError::Corrupt("an insert returned no id".into()))?;
        row.int(0)
    }

    /// Up to `limit` (at most [`MOD_LOG_PAGE`]) entries older than
    /// `before` (all if `None`), newest first; only `account`'s if given.
    pub async fn list(
        &self,
        account: Option<&str>,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        let limit = i64::try_from(limit.min(MOD_LOG_PAGE)).unwrap_or(0);
        let before = before.unwrap_or(i64::MAX);
        let rows = match account {
            Some(a) => {
                self.0
                    .fetch(
                        select_entries!(
                            "FROM mod_log WHERE account_key = $1 AND id < $2 \
                             ORDER BY id DESC LIMIT $3"
                        ),
                        vec![a.to_ascii_lowercase().into(), before.into(), limit.into()],
                    )
                    .await?
            }
            None => {
                self.0
                    .fetch(
                        select_entries!("FROM mod_log WHERE id < $1 ORDER BY id DESC LIMIT $2"),
                        vec![before.into(), limit.into()],
                    )
                    .await?
            }
        };
        rows.iter().map(entry).collect()
    }

    /// The public part of `account`'s entries, newest first (the latest
    /// [`MOD_LOG_PAGE`]).
    pub async fn public(&self, account: &str) -> Result<Vec<PublicEntry>, StoreError> {
        let entries = self.list(Some(account), None, MOD_LOG_PAGE).await?;
        Ok(entries
            .into_iter()
            .filter(|e| e.action != ModAction::Resolve && e.action != ModAction::Role)
            .map(|e| PublicEntry {
                at_ms: e.at_ms,
                action: e.action,
                reason: e.reason,
                why: e.reason.public(),
            })
            .collect())
    }
}

/// The statement appending `e` (no `RETURNING`), for an action that
/// appends its entry in the transaction making its change
/// ([`Beside::guarded`]): the change and its record stand or fall
/// together.
pub fn append_statement(e: NewEntry) -> (&'static str, Vec<Arg>) {
    let key = e.account.as_ref().map(|a| a.to_ascii_lowercase());
    let detail = e.detail.as_ref().map(Value::to_string);
    (
        append_sql!(""),
        vec![
            e.at_ms.into(),
            e.moderator.into(),
            e.action.as_str().into(),
            key.into(),
            e.account.into(),
            e.room.into(),
            e.reason.as_str().into(),
            e.text.into(),
            detail.into(),
        ],
    )
}

/// An entry from its row, as [`select_entries!`] lists them.
fn entry(r: &Row) -> Result<Entry, StoreError> {
    let action = r.text(3)?;
    let action = ModAction::parse(&action)
        .ok_or_else(|| StoreError::Corrupt(format!("moderation action {action:?}")))?;
    let reason = r.text(6)?;
    let reason = ModReason::parse(&reason)
        .ok_or_else(|| StoreError::Corrupt(format!("moderation reason {reason:?}")))?;
    let detail = match r.opt_text(8)? {
        Some(text) => Some(
            serde_json::from_str(&text)
                .map_err(|e| StoreError::Corrupt(format!("a moderation detail: {e}")))?,
        ),
        None => None,
    };
    Ok(Entry {
        id: r.int(0)?,
        at_ms: r.int(1)?,
        moderator: r.text(2)?,
        action,
        account: r.opt_text(4)?,
        room: r.opt_text(5)?,
        reason,
        text: r.text(7)?,
        detail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_reads_back_what_it_stores() {
        for a in ModAction::ALL {
            assert_eq!(ModAction::parse(a.as_str()), Some(a));
        }
        assert_eq!(ModAction::parse("ban"), None);
    }
}
