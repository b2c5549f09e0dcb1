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

use rusqlite::{params, OptionalExtension};

use super::{AccountKind, AccountName, PasswordHash, TokenHash};
#[cfg(doc)]
use crate::store::BESIDE_BUSY_TIMEOUT;
use crate::store::{Beside, StoreError};

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

const ACCOUNT_COLUMNS: &str = "a.id, a.name, a.kind, a.password, a.created_ms, a.builtin";

/// What a built-in account keeps as its password hash: not a PHC string,
/// so that no password ever verifies against it.
const NO_PASSWORD: &str = "!builtin";

impl AccountStore {
    /// The facade over the database beside the log.
    pub fn new(backend: Beside) -> Self {
        AccountStore(backend)
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
        let (spelled, key, kind, hash) = (
            name.as_str().to_owned(),
            name.key(),
            kind.as_str(),
            password.as_str().to_owned(),
        );
        let result = match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.query_row(
                        "INSERT INTO accounts (name, name_key, kind, password, created_ms) \
                         VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
                        params![spelled, key, kind, hash, now_ms],
                        |r| r.get::<_, i64>(0),
                    )
                })
                .await
            }
            Beside::Postgres(pool) => {
                let client = Beside::pg_client(pool).await?;
                client
                    .query_one(
                        "INSERT INTO accounts (name, name_key, kind, password, created_ms) \
                         VALUES ($1, $2, $3, $4, $5) RETURNING id",
                        &[&spelled, &key, &kind, &hash, &now_ms],
                    )
                    .await
                    .and_then(|r| r.try_get::<_, i64>(0))
                    .map_err(StoreError::from)
            }
        };
        match result {
            Ok(id) => Ok(AccountId(id)),
            Err(e) if e.is_duplicate() => Err(CreateError::Taken),
            Err(e) => Err(CreateError::Store(e)),
        }
    }

    /// Makes the built-in bot account `name` unless it exists (several
    /// nodes starting at once may all try: the first insert wins, the
    /// others change nothing). It has no password and no tokens.
    pub async fn ensure_builtin(&self, name: &AccountName, now_ms: i64) -> Result<(), StoreError> {
        let (spelled, key, kind) = (
            name.as_str().to_owned(),
            name.key(),
            AccountKind::Bot.as_str(),
        );
        match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        "INSERT INTO accounts (name, name_key, kind, password, created_ms, builtin) \
                         VALUES (?1, ?2, ?3, ?4, ?5, 1) ON CONFLICT (name_key) DO NOTHING",
                        params![spelled, key, kind, NO_PASSWORD, now_ms],
                    )
                })
                .await?;
            }
            Beside::Postgres(pool) => {
                Beside::pg_client(pool)
                    .await?
                    .execute(
                        "INSERT INTO accounts (name, name_key, kind, password, created_ms, builtin) \
                         VALUES ($1, $2, $3, $4, $5, true) ON CONFLICT (name_key) DO NOTHING",
                        &[&spelled, &key, &kind, &NO_PASSWORD, &now_ms],
                    )
                    .await?;
            }
        }
        Ok(())
    }

    /// The account named `name` in any case.
    pub async fn by_name(&self, name: &str) -> Result<Option<Account>, StoreError> {
        let key = name.to_ascii_lowercase();
        self.one_account(
            "FROM accounts a WHERE a.name_key = ?1",
            "FROM accounts a WHERE a.name_key = $1",
            key,
        )
        .await
    }

    async fn one_account(
        &self,
        sqlite_tail: &'static str,
        pg_tail: &'static str,
        arg: String,
    ) -> Result<Option<Account>, StoreError> {
        match &self.0 {
            Beside::Sqlite(conn) => {
                let row = Beside::on_sqlite(conn, move |c| {
                    c.query_row(
                        &format!("SELECT {ACCOUNT_COLUMNS} {sqlite_tail}"),
                        params![arg],
                        sqlite_row,
                    )
                    .optional()
                })
                .await?;
                row.map(account).transpose()
            }
            Beside::Postgres(pool) => {
                let client = Beside::pg_client(pool).await?;
                let row = client
                    .query_opt(&format!("SELECT {ACCOUNT_COLUMNS} {pg_tail}"), &[&arg])
                    .await?;
                row.map(|r| account(pg_row(&r)?)).transpose()
            }
        }
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
        let (hash, label, id) = (hash.to_hex(), label.to_owned(), account.0);
        let max = i64::try_from(MAX_TOKENS_PER_ACCOUNT).unwrap_or(i64::MAX);
        match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.query_row(
                        "INSERT INTO tokens (account, hash, label, created_ms) \
                         SELECT ?1, ?2, ?3, ?4 \
                         WHERE (SELECT count(*) FROM tokens WHERE account = ?1) < ?5 \
                         RETURNING id",
                        params![id, hash, label, now_ms, max],
                        |r| r.get(0),
                    )
                    .optional()
                })
                .await
            }
            Beside::Postgres(pool) => {
                let client = Beside::pg_client(pool).await?;
                let row = client
                    .query_opt(
                        "INSERT INTO tokens (account, hash, label, created_ms) \
                         SELECT $1, $2, $3, $4 \
                         WHERE (SELECT count(*) FROM tokens WHERE account = $1) < $5 \
                         RETURNING id",
                        &[&id, &hash, &label, &now_ms, &max],
                    )
                    .await?;
                Ok(row.map(|r| r.try_get(0)).transpose()?)
            }
        }
    }

    /// The account's API tokens, oldest first.
    pub async fn tokens(&self, account: AccountId) -> Result<Vec<TokenInfo>, StoreError> {
        let id = account.0;
        match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    let mut st = c.prepare(
                        "SELECT id, label, created_ms, last_used_ms FROM tokens \
                         WHERE account = ?1 ORDER BY id",
                    )?;
                    let rows = st.query_map(params![id], |r| {
                        Ok(TokenInfo {
                            id: r.get(0)?,
                            label: r.get(1)?,
                            created: r.get(2)?,
                            last_used: r.get(3)?,
                        })
                    })?;
                    rows.collect()
                })
                .await
            }
            Beside::Postgres(pool) => {
                let client = Beside::pg_client(pool).await?;
                let rows = client
                    .query(
                        "SELECT id, label, created_ms, last_used_ms FROM tokens \
                         WHERE account = $1 ORDER BY id",
                        &[&id],
                    )
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(TokenInfo {
                            id: r.try_get(0)?,
                            label: r.try_get(1)?,
                            created: r.try_get(2)?,
                            last_used: r.try_get(3)?,
                        })
                    })
                    .collect()
            }
        }
    }

    /// Revokes the account's token `token`; false if it holds no such token.
    pub async fn revoke_token(&self, account: AccountId, token: i64) -> Result<bool, StoreError> {
        let id = account.0;
        let n = match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        "DELETE FROM tokens WHERE id = ?1 AND account = ?2",
                        params![token, id],
                    )
                })
                .await?
            }
            Beside::Postgres(pool) => {
                let client = Beside::pg_client(pool).await?;
                let n = client
                    .execute(
                        "DELETE FROM tokens WHERE id = $1 AND account = $2",
                        &[&token, &id],
                    )
                    .await?;
                usize::try_from(n).unwrap_or(usize::MAX)
            }
        };
        Ok(n > 0)
    }

    /// The account an API token with this hash belongs to, noting its use.
    pub async fn by_token(
        &self,
        hash: TokenHash,
        now_ms: i64,
    ) -> Result<Option<Account>, StoreError> {
        let hex = hash.to_hex();
        let found = self
            .one_account(
                "FROM tokens t JOIN accounts a ON a.id = t.account WHERE t.hash = ?1",
                "FROM tokens t JOIN accounts a ON a.id = t.account WHERE t.hash = $1",
                hex.clone(),
            )
            .await?;
        if found.is_some() {
            // Best effort: a failed note of use must not refuse the token.
            let noted = match &self.0 {
                Beside::Sqlite(conn) => Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        "UPDATE tokens SET last_used_ms = ?1 WHERE hash = ?2",
                        params![now_ms, hex],
                    )
                })
                .await
                .map(|_| ()),
                Beside::Postgres(pool) => match Beside::pg_client(pool).await {
                    Ok(client) => client
                        .execute(
                            "UPDATE tokens SET last_used_ms = $1 WHERE hash = $2",
                            &[&now_ms, &hex],
                        )
                        .await
                        .map(|_| ())
                        .map_err(StoreError::from),
                    Err(e) => Err(e),
                },
            };
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
        let (hex, id) = (hash.to_hex(), account.0);
        match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        "INSERT INTO sessions (hash, account, expires_ms) VALUES (?1, ?2, ?3)",
                        params![hex, id, expires_ms],
                    )
                })
                .await?;
            }
            Beside::Postgres(pool) => {
                Beside::pg_client(pool)
                    .await?
                    .execute(
                        "INSERT INTO sessions (hash, account, expires_ms) VALUES ($1, $2, $3)",
                        &[&hex, &id, &expires_ms],
                    )
                    .await?;
            }
        }
        Ok(())
    }

    /// The account whose unexpired session has this hash.
    pub async fn by_session(
        &self,
        hash: TokenHash,
        now_ms: i64,
    ) -> Result<Option<Account>, StoreError> {
        let hex = hash.to_hex();
        match &self.0 {
            Beside::Sqlite(conn) => {
                let row = Beside::on_sqlite(conn, move |c| {
                    c.query_row(
                        &format!(
                            "SELECT {ACCOUNT_COLUMNS} FROM sessions s JOIN accounts a \
                             ON a.id = s.account WHERE s.hash = ?1 AND s.expires_ms > ?2"
                        ),
                        params![hex, now_ms],
                        sqlite_row,
                    )
                    .optional()
                })
                .await?;
                row.map(account).transpose()
            }
            Beside::Postgres(pool) => {
                let row = Beside::pg_client(pool)
                    .await?
                    .query_opt(
                        &format!(
                            "SELECT {ACCOUNT_COLUMNS} FROM sessions s JOIN accounts a \
                             ON a.id = s.account WHERE s.hash = $1 AND s.expires_ms > $2"
                        ),
                        &[&hex, &now_ms],
                    )
                    .await?;
                row.map(|r| account(pg_row(&r)?)).transpose()
            }
        }
    }

    /// Ends the session with this hash (logout), and drops every expired
    /// session on the way (so the table holds only live ones).
    pub async fn end_session(&self, hash: TokenHash, now_ms: i64) -> Result<(), StoreError> {
        let hex = hash.to_hex();
        match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        "DELETE FROM sessions WHERE hash = ?1 OR expires_ms <= ?2",
                        params![hex, now_ms],
                    )
                })
                .await?;
            }
            Beside::Postgres(pool) => {
                Beside::pg_client(pool)
                    .await?
                    .execute(
                        "DELETE FROM sessions WHERE hash = $1 OR expires_ms <= $2",
                        &[&hex, &now_ms],
                    )
                    .await?;
            }
        }
        Ok(())
    }
}

/// An account's columns ([`ACCOUNT_COLUMNS`]) as read, before checking.
type AccountRow = (i64, String, String, String, i64, bool);

fn sqlite_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AccountRow> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    ))
}

fn pg_row(r: &tokio_postgres::Row) -> Result<AccountRow, tokio_postgres::Error> {
    Ok((
        r.try_get(0)?,
        r.try_get(1)?,
        r.try_get(2)?,
        r.try_get(3)?,
        r.try_get(4)?,
        r.try_get(5)?,
    ))
}

/// An account from its columns.
fn account(
    (id, name, kind, password, created_ms, builtin): AccountRow,
) -> Result<Account, StoreError> {
    let kind = AccountKind::parse(&kind)
        .ok_or_else(|| StoreError::Corrupt(format!("account kind {kind:?}")))?;
    Ok(Account {
        id: AccountId(id),
        name,
        kind,
        password: PasswordHash::from_stored(password),
        created_ms,
        builtin,
    })
}
