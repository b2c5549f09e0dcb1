//! The store on disk: matches survive a reopen, and a database written by
//! an earlier layout is migrated without losing a step.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use std::path::Path;

use parlor_games::{GameKind, Outcome, Seat, SeatSet};
use parlor_protocol::{LogEntry, LoggedAction, MatchHeader, RoomId};
use parlor_server::store::{MatchRecord, Origin, Store, StoreError, StoredSeat};
use parlor_server::{StoreConfig, Sync};
use rusqlite::{params, Connection};
use serde_json::json;
use uuid::Uuid;

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e:?}"))
}

fn sqlite(path: &Path) -> StoreConfig {
    StoreConfig::Sqlite {
        db: Some(path.to_path_buf()),
        sync: Sync::Normal,
    }
}

fn room(id: &str) -> RoomId {
    RoomId::new(id).unwrap_or_else(|| panic!("bad room id {id}"))
}

fn header(seed: u64) -> MatchHeader {
    MatchHeader {
        game: GameKind::Nimrod,
        options: json!({"piles": [3, 5]}),
        seats: 2,
        seed: Some(seed),
        deal: None,
        clock: None,
    }
}

fn step(seq: u64, seat: u8, take: [u64; 2]) -> LogEntry {
    LogEntry {
        seq,
        seat: Seat(seat),
        action: LoggedAction::Move(json!({ "take": take })),
    }
}

/// Opens the store, runs `f` on it, then closes it and waits for the
/// writer to finish (so the file can be reopened).
async fn with_store<T>(path: &Path, f: impl AsyncFnOnce(&Store) -> T) -> T {
    let (store, task) = ok(Store::open(&sqlite(path)).await);
    let out = f(&store).await;
    drop(store);
    ok(task.finished().await);
    out
}

#[tokio::test]
async fn matches_seats_and_moves_survive_a_reopen() {
    let dir = ok(tempfile::tempdir());
    let db = dir.path().join("parlor.db");
    let token = Uuid::new_v4();
    let (first, second) = with_store(&db, async |s: &Store| {
        let record = |id: &str, seed| MatchRecord {
            room: room(id),
            header: header(seed),
            private: false,
            origin: Origin::default(),
        };
        let a = ok(s.create_match(record("aaaaaaaaaaaa", 1)).await);
        let b = ok(s.create_match(record("bbbbbbbbbbbb", 2)).await);
        let player = StoredSeat::Player {
            token,
            name: "ann".into(),
            client_seed: None,
        };
        ok(s.set_seat(a, Seat(0), Some(player)).await);
        ok(s.set_seat(
            a,
            Seat(1),
            Some(StoredSeat::Bot {
                strategy: "optimal".into(),
            }),
        )
        .await);
        ok(s.append(a, step(0, 0, [1, 0]), None, None).await);
        ok(s.append(a, step(1, 1, [0, 2]), None, None).await);
        // b finishes: it is served as a log, not restored.
        let win = Outcome::Win {
            winners: SeatSet::single(Seat(1)),
        };
        ok(s.append(b, step(0, 0, [3, 5]), None, Some(win)).await);
        (a, b)
    })
    .await;
    assert_ne!(first, second, "every match gets its own number");

    let (unfinished, log) = with_store(&db, async |s: &Store| {
        (
            ok(s.unfinished().await),
            ok(s.log(room("bbbbbbbbbbbb")).await),
        )
    })
    .await;
    assert_eq!(unfinished.len(), 1);
    let m = &unfinished[0];
    assert_eq!(m.key, first);
    assert_eq!(m.record.room, room("aaaaaaaaaaaa"));
    assert_eq!(m.record.header, header(1));
    assert_eq!(m.moves, vec![step(0, 0, [1, 0]), step(1, 1, [0, 2])]);
    assert_eq!(
        m.seats,
        vec![
            (
                Seat(0),
                StoredSeat::Player {
                    token,
                    name: "ann".into(),
                    client_seed: None,
                }
            ),
            (
                Seat(1),
                StoredSeat::Bot {
                    strategy: "optimal".into()
                }
            ),
        ]
    );
    let log = log.unwrap_or_else(|| panic!("the finished match has a log"));
    assert_eq!(log.moves, vec![step(0, 0, [3, 5])]);
    let page: i64 = ok(ok(Connection::open(&db)).query_row("PRAGMA page_size", [], |r| r.get(0)));
    assert_eq!(page, 2048, "new databases use small pages");
    assert_eq!(
        log.outcome,
        Some(Outcome::Win {
            winners: SeatSet::single(Seat(1))
        })
    );
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
    let (unfinished, log) = with_store(&db, async |s: &Store| {
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
            }
        )]
    );
    let log = log.unwrap_or_else(|| panic!("the finished match kept its log"));
    assert_eq!(log.moves, steps);
    assert_eq!(log.outcome, Some(Outcome::Draw));

    let c = ok(Connection::open(&db));
    let version: i64 = ok(c.query_row("PRAGMA user_version", [], |r| r.get(0)));
    assert_eq!(version, 3);
    let leftovers: i64 = ok(c.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_v1'",
        [],
        |r| r.get(0),
    ));
    assert_eq!(leftovers, 0, "the old tables are dropped");
}

#[tokio::test]
async fn a_database_from_a_newer_server_is_refused() {
    let dir = ok(tempfile::tempdir());
    let db = dir.path().join("new.db");
    ok(ok(Connection::open(&db)).pragma_update(None, "user_version", 99));
    match Store::open(&sqlite(&db)).await {
        Err(StoreError::Corrupt(why)) => assert!(why.contains("layout 99"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}
