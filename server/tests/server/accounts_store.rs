//! The account store on both backends (SQLite here, PostgreSQL in a
//! scratch schema, skipped when it cannot be used except under `CI=true`):
//! names unique across case, tokens and sessions found by their hash
//! only, revocation and expiry, and no secret in clear in the database.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use crate::common;

use common::backend::{close, Backend};
use parlor_server::accounts::store::{AccountStore, CreateError};
use parlor_server::accounts::{AccountKind, AccountName, Password, Token};

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e:?}"))
}

fn name(s: &str) -> AccountName {
    ok(AccountName::new(s))
}

/// Everything the store does, against `backend`; returns the secrets made
/// (a token, a session) so that the caller can look for them in the data.
async fn the_cases(accounts: &AccountStore) -> (Token, Token) {
    let hash = ok(Password::new("correct horse".into()).hash());
    let id = ok(accounts
        .create(&name("Alice"), AccountKind::Human, &hash, 1_000)
        .await);
    let again = accounts
        .create(&name("aLiCe"), AccountKind::Bot, &hash, 2_000)
        .await;
    assert!(matches!(again, Err(CreateError::Taken)), "{again:?}");
    let found = ok(accounts.by_name("ALICE").await).unwrap_or_else(|| panic!("alice is found"));
    assert_eq!(found.id, id);
    assert_eq!(found.name, "Alice");
    assert_eq!(found.kind, AccountKind::Human);
    assert_eq!(found.created_ms, 1_000);
    assert!(Password::new("correct horse".into()).verify(&found.password));
    assert!(ok(accounts.by_name("bob").await).is_none());

    let token = Token::generate();
    let tid = ok(accounts.add_token(id, token.hash(), "my bot", 3_000).await)
        .unwrap_or_else(|| panic!("a first token is stored"));
    let listed = ok(accounts.tokens(id).await);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, tid);
    assert_eq!(listed[0].label, "my bot");
    assert_eq!(listed[0].last_used, None);
    let by = ok(accounts.by_token(token.hash(), 4_000).await);
    assert_eq!(by.map(|a| a.id), Some(id));
    assert_eq!(ok(accounts.tokens(id).await)[0].last_used, Some(4_000));
    assert!(ok(accounts.by_token(Token::generate().hash(), 4_000).await).is_none());

    let revoked = Token::generate();
    let rid = ok(accounts.add_token(id, revoked.hash(), "", 3_000).await)
        .unwrap_or_else(|| panic!("a second token is stored"));
    let bob = ok(accounts
        .create(&name("bob"), AccountKind::Bot, &hash, 1_000)
        .await);
    assert!(
        ok(accounts.revoke_token(bob, rid).await).is_none(),
        "not bob's"
    );
    let ended = ok(accounts.revoke_token(id, rid).await);
    assert!(
        ended.is_some_and(|h| h.matches(&revoked.hash())),
        "the revoked token's hash, to end its connections by"
    );
    assert!(
        ok(accounts.revoke_token(id, rid).await).is_none(),
        "already gone"
    );
    assert!(ok(accounts.by_token(revoked.hash(), 5_000).await).is_none());

    let session = Token::generate();
    ok(accounts.add_session(id, session.hash(), 10_000).await);
    assert_eq!(
        ok(accounts.by_session(session.hash(), 9_999).await).map(|a| a.id),
        Some(id)
    );
    assert!(
        ok(accounts.by_session(session.hash(), 10_000).await).is_none(),
        "expired"
    );
    let other = Token::generate();
    ok(accounts.add_session(id, other.hash(), 20_000).await);
    ok(accounts.end_session(other.hash(), 0).await);
    assert!(
        ok(accounts.by_session(other.hash(), 1).await).is_none(),
        "logged out"
    );
    (token, session)
}

#[tokio::test]
async fn accounts_tokens_and_sessions_on_sqlite_keep_only_hashes() {
    let backend = Backend::sqlite();
    let (store, task) = backend.open().await;
    let (token, session) = the_cases(&AccountStore::new(store.beside())).await;
    close(store, task).await;
    let file = backend.sqlite_file().unwrap_or_else(|| panic!("a file"));
    let mut bytes = ok(std::fs::read(&file));
    let mut wal = file.clone().into_os_string();
    wal.push("-wal");
    if let Ok(more) = std::fs::read(&wal) {
        bytes.extend(more);
    }
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains(&token.hash().to_hex()), "the hash is stored");
    assert!(!text.contains(token.reveal()), "the token is not");
    assert!(!text.contains(session.reveal()), "nor the session");
    assert!(!text.contains("correct horse"), "nor the password");
}

#[tokio::test]
async fn accounts_tokens_and_sessions_on_postgres_keep_only_hashes() {
    let Some(backend) = Backend::postgres().await else {
        return;
    };
    let (store, task) = backend.open().await;
    let (token, session) = the_cases(&AccountStore::new(store.beside())).await;
    close(store, task).await;
    let Backend::Postgres(schema) = &backend else {
        panic!("a schema");
    };
    let (client, conn) = ok(tokio_postgres::connect(&schema.url(), tokio_postgres::NoTls).await);
    tokio::spawn(conn);
    let dump: String = ok(client
        .query_one(
            "SELECT (SELECT coalesce(string_agg(t::text, ' '), '') FROM tokens t) || \
             (SELECT coalesce(string_agg(s::text, ' '), '') FROM sessions s) || \
             (SELECT coalesce(string_agg(a::text, ' '), '') FROM accounts a)",
            &[],
        )
        .await)
    .get(0);
    assert!(dump.contains(&token.hash().to_hex()), "the hash is stored");
    assert!(!dump.contains(token.reveal()));
    assert!(!dump.contains(session.reveal()));
    assert!(!dump.contains("correct horse"));
}
