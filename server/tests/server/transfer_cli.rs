//! `parlor-server export | parlor-server import` as a real pipe between
//! two processes: the matches arrive whole, a second import refuses every
//! room with a non-zero exit status, and an export of a missing file
//! writes nothing. (The import is skipped without PostgreSQL, except
//! under `CI=true`.)

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use std::process::{Command, Output, Stdio};

use parlor_games::{GameKind, Seat};
use parlor_protocol::{Closed, LogEntry, LoggedAction, MatchHeader, RoomId};
use parlor_server::store::{MatchRecord, Origin, Store, StoredSeat};
use parlor_server::testing::ScratchSchema;
use parlor_server::{StoreConfig, Sync};
use serde_json::json;
use uuid::Uuid;

const BIN: &str = env!("CARGO_BIN_EXE_parlor-server");

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e:?}"))
}

fn room(n: u8) -> RoomId {
    RoomId::new(format!("pipe{n:08}")).unwrap_or_else(|| panic!("room id"))
}

/// `export --db db | import --cluster url`: both processes' outputs.
fn pipe(db: &std::path::Path, url: &str) -> (Output, Output) {
    let mut export = ok(Command::new(BIN)
        .args(["export", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn());
    let stream = export.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let import = ok(Command::new(BIN)
        .args(["import", "--cluster", url])
        .stdin(Stdio::from(stream))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn());
    let import = ok(import.wait_with_output());
    (ok(export.wait_with_output()), import)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_piped_into_import_moves_every_match_and_a_rerun_changes_nothing() {
    let dir = ok(tempfile::tempdir());
    let db = dir.path().join("parlor.db");
    let config = StoreConfig::Sqlite {
        db: Some(db.clone()),
        sync: Sync::Normal,
    };
    // Three matches: one with steps and seats, one closed, one empty.
    let (store, task) = ok(Store::open(&config).await);
    for n in 0..3 {
        let key = ok(store
            .create_match(MatchRecord {
                room: room(n),
                header: MatchHeader {
                    game: GameKind::Nimrod,
                    options: json!({"piles": [30, 30]}),
                    seats: 2,
                    seed: Some(7 + u64::from(n)),
                    deal: None,
                    clock: None,
                    rated: false,
                    event: None,
                    ladder: None,
                    matched: None,
                },
                private: n == 1,
                origin: Origin {
                    creator: Some(Uuid::new_v4()),
                    addr: Some([10, 0, 0, n].into()),
                    created_ms: Some(1_700_000_000_000),
                },
            })
            .await);
        if n == 0 {
            let seat = StoredSeat::Player {
                token: Uuid::new_v4(),
                name: "ann".into(),
                client_seed: None,
                account: true,
            };
            ok(store.set_seat(key, Seat(0), Some(seat)).await);
            // An anchor's seat: its account travels with it.
            let bot = StoredSeat::Bot {
                strategy: "perfect".into(),
                account: Some("nimrod-perfect".into()),
            };
            ok(store.set_seat(key, Seat(1), Some(bot)).await);
            for seq in 0..4 {
                let step = LogEntry {
                    seq,
                    seat: Seat((seq % 2) as u8),
                    action: LoggedAction::Move(json!({"take": [1, 0]})),
                };
                ok(store.append(key, step, None, None).await);
            }
        }
        if n == 1 {
            ok(store.close_match(key, Closed::NeverStarted).await);
        }
    }
    drop(store);
    ok(task.finished().await);

    // A missing file: the export fails and writes nothing.
    let missing = ok(Command::new(BIN)
        .args(["export", "--db"])
        .arg(dir.path().join("missing.db"))
        .output());
    assert!(!missing.status.success());
    assert!(missing.stdout.is_empty());

    let Some(scratch) = ScratchSchema::new().await else {
        return;
    };
    let (export, import) = pipe(&db, &scratch.url());
    let said = String::from_utf8_lossy(&import.stderr).into_owned();
    assert!(export.status.success(), "{export:?}");
    assert!(import.status.success(), "{said}");
    assert!(said.contains("imported 3 matches (2 unfinished"), "{said}");

    let (original, original_task) = ok(Store::open(&config).await);
    let (cluster, cluster_task) = ok(Store::open(&scratch.config()).await);
    for n in 0..3 {
        let a = ok(original.log(room(n)).await);
        assert!(a.is_some());
        assert_eq!(ok(cluster.log(room(n)).await), a);
    }

    // Again: every room is refused, the exit status says so.
    let (_, again) = pipe(&db, &scratch.url());
    let said = String::from_utf8_lossy(&again.stderr).into_owned();
    assert!(!again.status.success(), "{said}");
    assert!(said.contains("imported 0 matches"), "{said}");
    assert_eq!(said.matches("already exists").count(), 3, "{said}");
    for n in 0..3 {
        assert_eq!(
            ok(cluster.log(room(n)).await),
            ok(original.log(room(n)).await)
        );
    }
    drop((original, cluster));
    ok(original_task.finished().await);
    ok(cluster_task.finished().await);
}
