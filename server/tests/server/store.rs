//! The store on disk, on SQLite (the cases shared with Postgres are in
//! `common/store_cases.rs`; `store_pg.rs` runs them there): matches
//! survive a reopen, a duplicate step is refused, a newer layout is
//! refused, and a database written by an earlier layout is migrated
//! without losing a step.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use crate::common;

use std::path::Path;

use common::backend::{close, Backend};
use common::store_cases::{self as cases, header, room, step};
use parlor_games::{Outcome, Seat};
use parlor_server::store::{Store, StoredSeat};
use parlor_server::{StoreConfig, Sync};
use rusqlite::{params, Connection};
use uuid::Uuid;

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e:?}"))
}

#[tokio::test]
async fn matches_seats_and_moves_survive_a_reopen() {
    let backend = Backend::sqlite();
    cases::matches_seats_and_moves_survive_a_reopen(&backend).await;
    let file = backend.sqlite_file().unwrap_or_else(|| panic!("a file"));
    let page: i64 = ok(ok(Connection::open(file)).query_row("PRAGMA page_size", [], |r| r.get(0)));
    assert_eq!(page, 2048, "new databases use small pages");
}

#[tokio::test]
async fn a_duplicate_step_is_refused_and_changes_nothing() {
    cases::a_duplicate_step_is_refused_and_changes_nothing(&Backend::sqlite()).await;
}

#[tokio::test]
async fn an_accounts_games_are_listed_with_whose_turn_it_is() {
    cases::an_accounts_games_are_listed_with_whose_turn_it_is(&Backend::sqlite()).await;
}

#[tokio::test]
async fn the_previous_layout_is_migrated_and_keeps_its_rows() {
    let backend = Backend::sqlite();
    cases::the_previous_layout_is_migrated_and_keeps_its_rows(&backend).await;
    let file = backend.sqlite_file().unwrap_or_else(|| panic!("a file"));
    let version: i64 =
        ok(ok(Connection::open(file)).query_row("PRAGMA user_version", [], |r| r.get(0)));
    assert_eq!(version, 14);
}

#[tokio::test]
async fn voiding_a_marked_accounts_results_refolds_exactly() {
    cases::voiding_a_marked_accounts_results_refolds_exactly(&Backend::sqlite()).await;
}

#[tokio::test]
async fn a_duplicate_sets_log_is_embargoed_until_the_set_is_over() {
    cases::a_duplicate_sets_log_is_embargoed_until_the_set_is_over(&Backend::sqlite()).await;
}

#[tokio::test]
async fn a_database_from_a_newer_server_is_refused() {
    cases::a_database_from_a_newer_server_is_refused(&Backend::sqlite()).await;
}

/// Opens the SQLite store at `path`, runs `f` on it, then closes it.
async fn with_file<T>(path: &Path, f: impl AsyncFnOnce(&Store) -> T) -> T {
    let config = StoreConfig::Sqlite {
        db: Some(path.to_path_buf()),
        sync: Sync::Normal,
    };
    let (store, task) = ok(Store::open(&config).await);
    let out = f(&store).await;
    close(store, task).await;
    out
}

/// The first layout: seats and moves keyed by the room's id.
const LAYOUT_1: &str = "
CREATE TABLE matches (
    room TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
    seats INTEGER NOT NULL, seed INTEGER NOT NULL, clock TEXT,
    private INTEGER NOT NULL, finished INTEGER NOT NULL DEFAULT 0, outcome TEXT
);
CREATE TABLE seats (
    room TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL,
    token TEXT, name TEXT, strategy TEXT, PRIMARY KEY (room, seat)
) WITHOUT ROWID;
CREATE TABLE moves (
    room TEXT NOT NULL, seq INTEGER NOT NULL, seat INTEGER NOT NULL,
    action TEXT NOT NULL, clocks TEXT, PRIMARY KEY (room, seq)
) WITHOUT ROWID;
CREATE INDEX matches_unfinished ON matches (finished);
";

fn to_text<T: serde::Serialize>(v: &T) -> String {
    ok(serde_json::to_string(v))
}

#[tokio::test]
async fn a_layout_1_database_is_migrated_with_every_step() {
    let dir = ok(tempfile::tempdir());
    let db = dir.path().join("old.db");
    let token = Uuid::new_v4();
    {
        let c = ok(Connection::open(&db));
        ok(c.execute_batch(LAYOUT_1));
        for (id, seed, finished) in [("zzzzzzzzzzzz", 7_u64, false), ("mmmmmmmmmmmm", 8, true)] {
            ok(c.execute(
                "INSERT INTO matches (room, game, options, seats, seed, private, finished, outcome) VALUES (?1, 'nimrod', ?2, 2, ?3, 0, ?4, ?5)",
                params![
                    id,
                    to_text(&header(seed).options),
                    seed as i64,
                    finished,
                    finished.then(|| to_text(&Outcome::Draw))
                ],
            ));
            ok(c.execute(
                "INSERT INTO seats (room, seat, kind, token, name) VALUES (?1, 0, 'player', ?2, 'bo')",
                params![id, token.to_string()],
            ));
            for (seq, take) in [[1_u64, 1], [0, 1], [2, 0]].iter().enumerate() {
                let e = step(seq as u64, (seq % 2) as u8, *take);
                ok(c.execute(
                    "INSERT INTO moves (room, seq, seat, action) VALUES (?1, ?2, ?3, ?4)",
                    params![id, seq as i64, e.seat.0, to_text(&e.action)],
                ));
            }
        }
    }
    let (unfinished, log) = with_file(&db, async |s: &Store| {
        (
            ok(s.unfinished().await),
            ok(s.log(room("mmmmmmmmmmmm")).await),
        )
    })
    .await;
    let steps = vec![step(0, 0, [1, 1]), step(1, 1, [0, 1]), step(2, 0, [2, 0])];
    assert_eq!(unfinished.len(), 1);
    assert_eq!(unfinished[0].record.room, room("zzzzzzzzzzzz"));
    assert_eq!(unfinished[0].record.header, header(7));
    assert_eq!(unfinished[0].moves, steps);
    assert_eq!(
        unfinished[0].seats,
        vec![(
            Seat(0),
            StoredSeat::Player {
                token,
                name: "bo".into(),
                client_seed: None,
                account: false,
            }
        )]
    );
    let log = log.unwrap_or_else(|| panic!("the finished match kept its log"));
    assert_eq!(log.moves, steps);
    assert_eq!(log.outcome, Some(Outcome::Draw));

    let c = ok(Connection::open(&db));
    let version: i64 = ok(c.query_row("PRAGMA user_version", [], |r| r.get(0)));
    assert_eq!(version, 14);
    let event_chat: i64 = ok(c.query_row("SELECT count(*) FROM event_chat", [], |r| r.get(0)));
    assert_eq!(
        event_chat, 0,
        "the event chat table is made by the migration"
    );
    let follows: i64 = ok(c.query_row("SELECT count(*) FROM follows", [], |r| r.get(0)));
    assert_eq!(follows, 0, "the follows table is made by the migration");
    let events: i64 = ok(c.query_row("SELECT count(*) FROM events", [], |r| r.get(0)));
    assert_eq!(events, 0, "the events table is made by the migration");
    let entries: i64 = ok(c.query_row("SELECT count(*) FROM ladder_entries", [], |r| r.get(0)));
    assert_eq!(entries, 0, "the ladder's tables are made by the migration");
    let accounts: i64 = ok(c.query_row("SELECT count(*) FROM accounts", [], |r| r.get(0)));
    assert_eq!(accounts, 0, "the account tables are made by the migration");
    let leftovers: i64 = ok(c.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_v1'",
        [],
        |r| r.get(0),
    ));
    assert_eq!(leftovers, 0, "the old tables are dropped");
}
