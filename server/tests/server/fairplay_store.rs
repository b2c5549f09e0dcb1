//! The fair-play counts beside the log, on both backends (SQLite here,
//! PostgreSQL in a scratch schema, skipped when it cannot be used except
//! under `CI=true`): a match is counted once per account however often
//! it is processed (two nodes, a retry), a pool's counts are summed per
//! account with its mark, and an account's rooms come newest first.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use crate::common;

use common::backend::{close, Backend};
use parlor_server::accounts::store::AccountStore;
use parlor_server::accounts::{AccountKind, AccountName, Password};
use parlor_server::fair_play::review::store::{FairPlayStore, GameCounts};

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e:?}"))
}

fn row(room: &str, name: &str, at_ms: u64, choices: u32, agreed: u32) -> GameCounts {
    GameCounts {
        room: room.into(),
        account_key: name.to_ascii_lowercase(),
        name: name.into(),
        pool: "nimrod".into(),
        at_ms,
        choices,
        agreed,
    }
}

async fn the_cases(backend: &Backend) {
    let (store, task) = backend.open().await;
    let accounts = AccountStore::new(store.beside());
    let hash = ok(Password::new("correct horse".into()).hash());
    for (name, kind) in [("Ada", AccountKind::Human), ("Robo", AccountKind::Bot)] {
        ok(accounts
            .create(&ok(AccountName::new(name)), kind, &hash, 1)
            .await);
    }
    let counts = FairPlayStore::new(store.beside());
    assert!(ok(counts.is_human("ada").await));
    assert!(!ok(counts.is_human("robo").await));
    assert!(!ok(counts.is_human("nobody").await));

    assert!(ok(counts.insert(row("r1", "Ada", 10, 4, 3)).await));
    // The same match processed again (another node, a retry): ignored,
    // even with other numbers.
    assert!(!ok(counts.insert(row("r1", "Ada", 10, 9, 9)).await));
    assert!(ok(counts.insert(row("r2", "Ada", 20, 5, 5)).await));
    assert!(ok(counts.insert(row("r3", "Ada", 30, 0, 0)).await));
    assert!(ok(counts.insert(row("r2", "Eve", 20, 6, 1)).await));
    let mut other_pool = row("r9", "Ada", 40, 7, 7);
    other_pool.pool = "cribbage".into();
    assert!(ok(counts.insert(other_pool).await));

    backend
        .execute("UPDATE accounts SET mark = 'engine' WHERE name_key = 'ada'")
        .await;
    let pool = ok(counts.pool("nimrod").await);
    assert_eq!(pool.len(), 2, "{pool:?}");
    let ada = &pool[0];
    assert_eq!(
        (ada.name.as_str(), ada.choices, ada.agreed, ada.games),
        ("Ada", 9, 8, 3)
    );
    assert_eq!(ada.mark.as_deref(), Some("engine"));
    let eve = &pool[1];
    assert_eq!((eve.choices, eve.agreed, eve.games), (6, 1, 1));
    assert_eq!(eve.mark, None, "no account: no mark");
    // Newest first, and only matches with a choice.
    assert_eq!(ok(counts.rooms("nimrod", "ada").await), ["r2", "r1"]);
    close(store, task).await;
}

#[tokio::test]
async fn fair_play_counts_on_sqlite_are_kept_once_per_match() {
    the_cases(&Backend::sqlite()).await;
}

#[tokio::test]
async fn fair_play_counts_on_postgres_are_kept_once_per_match() {
    let Some(backend) = Backend::postgres().await else {
        return;
    };
    the_cases(&backend).await;
}
