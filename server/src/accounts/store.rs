//! Where accounts, API tokens and browser sessions are kept: the match
//! log's database (SQLite's file, or the cluster's PostgreSQL schema), in
//! tables of their own, behind this facade (the log's `Store` stays the
//! match log).
//!
//! Only hashes of secrets are stored: a password's Argon2id PHC string, a
//! token's or session's SHA-256 in hex. A lookup by token hashes what
//! was presented and finds the row by that hash (a unique index), so the
//! token itself never reaches the database.
//!
//! # SQLite and the moves' hot path
//!
//! Account writes are rare (a registration, a login, a token) and each is
//! one statement in its own implicit transaction on a connection of its
//! own, run on a blocking thread. SQLite has one write lock per file: the
//! shards' and the writer's commits wait for it through their busy
//! handler while an account statement holds it. An account statement
//! touches a row or two (tens of microseconds), and the Argon2 work is
//! done before it, never inside, so a commit of moves waits at most that
//! long. Routing account writes through the log's writer instead would
//! queue them behind batches of moves and tie two unrelated concerns
//! together; the separate connection's worst case is the smaller cost.
//! Its busy timeout ([`BESIDE_BUSY_TIMEOUT`]) covers the converse: an
//! account write waiting out a batch of moves.
//!
//! PostgreSQL: the log's connection pool, one statement per call.
//!
//! Each statement is written once, in PostgreSQL's spelling, and run on
//! either database through [`Beside`]; the tables themselves are made by
//! the store's migrations.

use super::{AccountKind, AccountName, Mark, PasswordHash, Role, Standing, TokenHash};
#[cfg(doc)]
use crate::store::BESIDE_BUSY_TIMEOUT;
use crate::store::{Beside, Row, StoreError};

/// The most tokens one account may hold: a bot owner needs a handful; a
/// bound keeps a compromised session from filling the table.
pub const MAX_TOKENS_PER_ACCOUNT: usize = 50;

/// The longest token label in characters: enough to say which bot and
/// where, short enough for a list.
pub const MAX_TOKEN_LABEL_CHARS: usize = 64;

/// An account's row id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AccountId(pub i64);

/// An account as stored.
#[derive(Clone, Debug)]
pub struct Account {
    /// Its row id.
    pub id: AccountId,
    /// The name as its owner spelled it.
    pub name: String,
    /// Human or bot.
    pub kind: AccountKind,
    /// The Argon2id hash of its password.
    pub password: PasswordHash,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// One of the server's built-in bots (a ladder's anchor): it has no
    /// password and no tokens, so nobody signs in as it.
    pub builtin: bool,
    /// Its role and what moderation holds against it.
    pub standing: Standing,
}

/// An API token as its owner sees it listed (never the token itself).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TokenInfo {
    /// Its id, to revoke it by.
    pub id: i64,
    /// What its owner called it.
    pub label: String,
    /// When it was made (ms since the epoch).
    pub created: i64,
    /// When it last authenticated a request (ms since the epoch), if ever.
    pub last_used: Option<i64>,
}

/// Why an account could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// Another account has the name, in some spelling.
    #[error("the name is taken")]
    Taken,
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Accounts, tokens and sessions; cheap to clone.
#[derive(Clone, Debug)]
pub struct AccountStore(Beside);

/// `SELECT` of an account's columns (read by [`account`]) followed by
/// `$tail`, as one literal (statements beside the log are `'static`).
macro_rules! select_account {
    ($tail:literal) => {
        concat!(
            "SELECT a.id, a.name, a.kind, a.password, a.created_ms, a.builtin, ",
            "a.role, a.closed_ms, a.mark, a.muted_until_ms, a.playban_until_ms ",
            $tail
        )
    };
}

/// What a built-in account keeps as its password hash: not a PHC string,
/// so that no password ever verifies against it.
const NO_PASSWORD: &str = "!builtin";

impl AccountStore {
    /// The facade over the database beside the log.
    pub fn new(backend: Beside) -> Self {
        AccountStore(backend)
    }

    /// The database beside the log (for the device cookies' statements).
    pub(super) fn beside(&self) -> &Beside {
        &self.0
    }

    /// Creates an account; [`CreateError::Taken`] if its name (in any
    /// case) is someone's.
    pub async fn create(
        &self,
        name: &AccountName,
        kind: AccountKind,
        password: &PasswordHash,
        now_ms: i64,
    ) -> Result<AccountId, CreateError> {
        let row = self
            .0
            .fetch_opt(
                "INSERT INTO accounts (name, name_key, kind, password, created_ms) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                vec![
                    name.as_str().into(),
                    name.key().into(),
                    kind.as_str().into(),
                    password.as_str().into(),
                    now_ms.into(),
                ],
            )
            .await;
        match row {
            Ok(Some(row)) => Ok(AccountId(row.int(0)?)),
            Ok(None) => Err(CreateError::Store(StoreError::Corrupt(
                "an insert returned no id".into(),
            ))),
            Err(e) if e.is_duplicate() => Err(CreateError::Taken),
            Err(e) => Err(CreateError::Store(e)),
        }
    }

    /// Makes the built-in bot account `name` unless it exists (several
    /// nodes starting at once may all try: the first insert wins, the
    /// others change nothing). It has no password and no tokens.
    pub async fn ensure_builtin(&self, name: &AccountName, now_ms: i64) -> Result<(), StoreError> {
        self.0
            .exec(
                "INSERT INTO accounts (name, name_key, kind, password, created_ms, builtin) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name_key) DO NOTHING",
                vec![
                    name.as_str().into(),
                    name.key().into(),
                    AccountKind::Bot.as_str().into(),
                    NO_PASSWORD.into(),
                    now_ms.into(),
                    true.into(),
                ],
            )
            .await?;
        Ok(())
    }

    /// The account named `name` in any case.
    pub async fn by_name(&self, name: &str) -> Result<Option<Account>, StoreError> {
        let row = self
            .0
            .fetch_opt(
                select_account!("FROM accounts a WHERE a.name_key = $1"),
                vec![name.to_ascii_lowercase().into()],
            )
            .await?;
        row.as_ref().map(account).transpose()
    }

    /// Stores a new API token's hash for `account`, with its label; its id.
    /// `None` if the account holds [`MAX_TOKENS_PER_ACCOUNT`] already.
    pub async fn add_token(
        &self,
        account: AccountId,
        hash: TokenHash,
        label: &str,
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        let max = i64::try_from(MAX_TOKENS_PER_ACCOUNT).unwrap_or(i64::MAX);
        let row = self
            .0
            .fetch_opt(
                "INSERT INTO tokens (account, hash, label, created_ms) \
                 SELECT $1, $2, $3, $4 \
                 WHERE (SELECT count(*) FROM tokens WHERE account = $1) < $5 \
                 RETURNING id",
                vec![
                    account.0.into(),
                    hash.to_hex().into(),
                    label.into(),
                    now_ms.into(),
                    max.into(),
                ],
            )
            .await?;
        row.map(|r| r.int(0)).transpose()
    }

    /// The account's API tokens, oldest first.
    pub async fn tokens(&self, account: AccountId) -> Result<Vec<TokenInfo>, StoreError> {
        let rows = self
            .0
            .fetch(
                "SELECT id, label, created_ms, last_used_ms FROM tokens \
                 WHERE account = $1 ORDER BY id",
                vec![account.0.into()],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(TokenInfo {
                    id: r.int(0)?,
                    label: r.text(1)?,
                    created: r.int(2)?,
                    last_used: r.opt_int(3)?,
                })
            })
            .collect()
    }

    /// Revokes the account's token `token`: its hash (to end the
    /// connections made with it), `None` if the account holds no such
    /// token.
    pub async fn revoke_token(
        &self,
        account: AccountId,
        token: i64,
    ) -> Result<Option<TokenHash>, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "DELETE FROM tokens WHERE id = $1 AND account = $2 RETURNING hash",
                vec![token.into(), account.0.into()],
            )
            .await?;
        row.map(|r| stored_hash(&r)).transpose()
    }

    /// Sets the account's password hash, and ends its browser sessions
    /// but `keep` (the one that asked, if it was a session) and, if
    /// `revoke_tokens`, all its API tokens: the hashes of what ended.
    pub async fn change_password(
        &self,
        account: AccountId,
        password: &PasswordHash,
        keep: Option<TokenHash>,
        revoke_tokens: bool,
    ) -> Result<Vec<TokenHash>, StoreError> {
        self.0
            .exec(
                "UPDATE accounts SET password = $1 WHERE id = $2",
                vec![password.as_str().into(), account.0.into()],
            )
            .await?;
        // No hash is empty: `keep` absent ends every session.
        let keep = keep.map(|k| k.to_hex()).unwrap_or_default();
        let mut ended = self
            .0
            .fetch(
                "DELETE FROM sessions WHERE account = $1 AND hash <> $2 RETURNING hash",
                vec![account.0.into(), keep.into()],
            )
            .await?;
        if revoke_tokens {
            ended.extend(
                self.0
                    .fetch(
                        "DELETE FROM tokens WHERE account = $1 RETURNING hash",
                        vec![account.0.into()],
                    )
                    .await?,
            );
        }
        ended.iter().map(stored_hash).collect()
    }

    /// Ends every credential of the account: its API tokens, browser
    /// sessions and device cookies (for closing it). The hashes of the
    /// tokens and sessions that ended.
    pub async fn end_credentials(&self, account: AccountId) -> Result<Vec<TokenHash>, StoreError> {
        let mut ended = Vec::new();
        for table in [
            "DELETE FROM tokens WHERE account = $1 RETURNING hash",
            "DELETE FROM sessions WHERE account = $1 RETURNING hash",
        ] {
            ended.extend(self.0.fetch(table, vec![account.0.into()]).await?);
        }
        self.0
            .exec(
                "DELETE FROM devices WHERE account = $1",
                vec![account.0.into()],
            )
            .await?;
        ended.iter().map(stored_hash).collect()
    }

    /// The account an API token with this hash belongs to, noting its use.
    pub async fn by_token(
        &self,
        hash: TokenHash,
        now_ms: i64,
    ) -> Result<Option<Account>, StoreError> {
        let hex = hash.to_hex();
        let found = self
            .0
            .fetch_opt(
                select_account!(
                    "FROM tokens t JOIN accounts a ON a.id = t.account WHERE t.hash = $1"
                ),
                vec![hex.clone().into()],
            )
            .await?
            .as_ref()
            .map(account)
            .transpose()?;
        if found.is_some() {
            // Best effort: a failed note of use must not refuse the token.
            let noted = self
                .0
                .exec(
                    "UPDATE tokens SET last_used_ms = $1 WHERE hash = $2",
                    vec![now_ms.into(), hex.into()],
                )
                .await;
            if let Err(e) = noted {
                tracing::debug!(error = %e, "noting a token's use");
            }
        }
        Ok(found)
    }

    /// Stores a browser session's hash for `account`, valid until
    /// `expires_ms`.
    pub async fn add_session(
        &self,
        account: AccountId,
        hash: TokenHash,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        self.0
            .exec(
                "INSERT INTO sessions (hash, account, expires_ms) VALUES ($1, $2, $3)",
                vec![hash.to_hex().into(), account.0.into(), expires_ms.into()],
            )
            .await?;
        Ok(())
    }

    /// The account whose unexpired session has this hash.
    pub async fn by_session(
        &self,
        hash: TokenHash,
        now_ms: i64,
    ) -> Result<Option<Account>, StoreError> {
        let row = self
            .0
            .fetch_opt(
                select_account!(
                    "FROM sessions s JOIN accounts a \
                     ON a.id = s.account WHERE s.hash = $1 AND s.expires_ms > $2"
                ),
                vec![hash.to_hex().into(), now_ms.into()],
            )
            .await?;
        row.as_ref().map(account).transpose()
    }

    /// Ends the session with this hash (logout), and drops every expired
    /// session on the way (so the table holds only live ones).
    pub async fn end_session(&self, hash: TokenHash, now_ms: i64) -> Result<(), StoreError> {
        self.0
            .exec(
                "DELETE FROM sessions WHERE hash = $1 OR expires_ms <= $2",
                vec![hash.to_hex().into(), now_ms.into()],
            )
            .await?;
        Ok(())
    }
}

/// A token's, session's or device's hash as stored, in a row's first
/// column.
fn stored_hash(r: &Row) -> Result<TokenHash, StoreError> {
    let hex = r.text(0)?;
    TokenHash::from_hex(&hex).ok_or_else(|| StoreError::Corrupt("a stored hash".into()))
}

/// An account from its columns, as [`select_account!`] lists them.
fn account(r: &Row) -> Result<Account, StoreError> {
    let kind = r.text(2)?;
    let kind = AccountKind::parse(&kind)
        .ok_or_else(|| StoreError::Corrupt(format!("account kind {kind:?}")))?;
    Ok(Account {
        id: AccountId(r.int(0)?),
        name: r.text(1)?,
        kind,
        password: PasswordHash::from_stored(r.text(3)?),
        created_ms: r.int(4)?,
        builtin: r.bool(5)?,
        standing: standing(r, 6)?,
    })
}

/// An account's standing from the five columns from `at` on, as
/// [`select_account!`] lists them.
fn standing(r: &Row, at: usize) -> Result<Standing, StoreError> {
    let role = r.text(at)?;
    let role = Role::parse(&role).ok_or_else(|| StoreError::Corrupt(format!("role {role:?}")))?;
    let mark = match r.opt_text(at + 2)? {
        Some(m) => Some(Mark::parse(&m).ok_or_else(|| StoreError::Corrupt(format!("mark {m:?}")))?),
        None => None,
    };
    Ok(Standing {
        role,
        closed_ms: r.opt_int(at + 1)?,
        mark,
        muted_until_ms: r.opt_int(at + 3)?,
        playban_until_ms: r.opt_int(at + 4)?,
    })
}
