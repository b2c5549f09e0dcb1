//! `parlor-server export` / `import`: a single-node install's matches
//! (finished and unfinished, of several games) moved into a cluster's
//! database keep their logs exactly; an unfinished one is claimed and
//! hosted by a cluster node, where its players resume with their tokens
//! and play on; importing again refuses every room and changes nothing.
//! (The PostgreSQL part is skipped without PostgreSQL, except under
//! `CI=true`.)

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use parlor_protocol::{ClientMsg, MatchLog, RoomId, ServerMsg};
use parlor_server::store::{NodeSettings, Store};
use parlor_server::testing::ScratchSchema;
use parlor_server::transfer::{export, import, TransferError};
use parlor_server::{Config, StoreConfig, Sync};
use parlor_tests::{
    add_bot, create_room, match_log, nimrod_move, nimrod_pair, play_out_nimrod, start_server_with,
    Raw,
};
use serde_json::{json, Value};

fn sqlite(db: &Path) -> StoreConfig {
    StoreConfig::Sqlite {
        db: Some(db.to_path_buf()),
        sync: Sync::Normal,
    }
}

/// A room of `game` played to its end by two built-in bots.
async fn bots_match(url: &str, game: &str, options: Value, bots: [&str; 2]) -> RoomId {
    let mut host = Raw::greeted(url, "host").await;
    let room = create_room(&mut host, game, 2, options).await;
    host.send(&ClientMsg::Spectate { room: room.clone() }).await;
    for (seat, strategy) in bots.into_iter().enumerate() {
        add_bot(&mut host, &room, seat as u8, strategy).await;
    }
    while host.update(&room).await.outcome.is_none() {}
    host.close().await;
    room
}

async fn logs(store: &Store, rooms: &[RoomId]) -> Vec<MatchLog> {
    let mut out = Vec::new();
    for room in rooms {
        out.push(store.log(room.clone()).await.unwrap().unwrap());
    }
    out
}

async fn count(db: &tokio_postgres::Client, table: &str) -> i64 {
    db.query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_node_install_moves_into_a_cluster_and_play_goes_on_there() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parlor.db");
    let single = start_server_with(Config {
        store: sqlite(&db),
        ..Config::default()
    })
    .await;
    let url = single.url();
    let cribbage = bots_match(&url, "cribbage", json!({"target": 61}), ["expert", "seed"]).await;
    let rummikub = bots_match(
        &url,
        "rummikub",
        json!({"rack_size": 7}),
        ["greedy", "random"],
    )
    .await;
    let (mut a, mut b, finished, u) = nimrod_pair(&url, [3, 4]).await;
    play_out_nimrod(&mut [a, b], &finished, u).await;
    // Unfinished: a Nimrod match three moves in, and a Mitsudomoe room
    // waiting for its second player.
    let (alice, bob, ongoing, mut u) = nimrod_pair(&url, [12, 20]).await;
    (a, b) = (alice, bob);
    for _ in 0..3 {
        let seat = u.to_act.iter().next().unwrap();
        let p = if seat.0 == 0 { &mut a } else { &mut b };
        p.play(&ongoing, seat.0, u.seq, nimrod_move(&u)).await;
        u = p.update_at(&ongoing, u.seq + 1).await;
    }
    let mut m = Raw::greeted(&url, "mitsu").await;
    let waiting = m.create("mitsudomoe", Value::Null, None).await;
    m.join(&waiting, 0).await;
    // And one with a clock, whose steps keep the clocks after them.
    let (mut c, mut d) = (Raw::greeted(&url, "c").await, Raw::greeted(&url, "d").await);
    let clock = json!({"increment": {"main_ms": 3_600_000, "increment_ms": 1_000}});
    let clocked = c
        .create("nimrod", json!({"piles": [12, 20]}), Some(clock))
        .await;
    c.join(&clocked, 0).await;
    d.join(&clocked, 1).await;
    let start = c.update(&clocked).await;
    let seat = start.to_act.iter().next().unwrap();
    let p = if seat.0 == 0 { &mut c } else { &mut d };
    p.play(&clocked, seat.0, start.seq, nimrod_move(&start))
        .await;
    p.update_at(&clocked, start.seq + 1).await;
    let (tokens, acked) = ([a.token, b.token], u.seq);
    single.stop().await.unwrap();
    let rooms = [
        cribbage,
        rummikub,
        finished,
        ongoing.clone(),
        waiting,
        clocked.clone(),
    ];

    let mut exported = Vec::new();
    let summary = export(&db, &mut exported).unwrap();
    assert_eq!((summary.matches, summary.unfinished), (6, 3));

    let Some(scratch) = ScratchSchema::new().await else {
        return;
    };
    let done = import(&scratch.url(), &exported[..]).await.unwrap();
    assert!(done.refused.is_empty(), "{:?}", done.refused);
    assert_eq!((done.matches, done.unfinished), (6, 3));

    // Every log, read back from the cluster's database, is the original.
    let (original, original_task) = Store::open(&sqlite(&db)).await.unwrap();
    let (cluster, cluster_task) = Store::open(&scratch.config()).await.unwrap();
    let before = logs(&original, &rooms).await;
    assert_eq!(logs(&cluster, &rooms).await, before);
    // What a node restores from: seats (with tokens) and clocks too.
    let restorable = |all: Vec<parlor_server::store::StoredMatch>| {
        let mut out: Vec<_> = all
            .into_iter()
            .map(|m| (m.record, m.seats, m.moves, m.clocks))
            .collect();
        out.sort_by(|x, y| x.0.room.cmp(&y.0.room));
        out
    };
    let unfinished = restorable(original.unfinished().await.unwrap());
    assert_eq!(unfinished.len(), 3);
    assert!(unfinished
        .iter()
        .any(|m| m.0.room == clocked && m.3.is_some()));
    assert_eq!(restorable(cluster.unfinished().await.unwrap()), unfinished);
    drop(cluster);
    cluster_task.finished().await.unwrap();

    // A cluster node claims the unfinished matches; the players resume
    // with their tokens where they were, and play on.
    let node = start_server_with(Config {
        store: StoreConfig::Postgres {
            url: scratch.url(),
            node: NodeSettings::default(),
        },
        ..Config::default()
    })
    .await;
    let mut players = Vec::new();
    for token in tokens {
        let mut c = Raw::greeted(&node.url(), "again").await;
        c.send(&ClientMsg::Resume { token }).await;
        c.expect(|m| matches!(m, ServerMsg::Resumed { .. }).then_some(()))
            .await;
        players.push(c);
    }
    let resumed = players[0].update(&ongoing).await;
    assert_eq!(resumed.seq, acked);
    assert_eq!(resumed.view, u.view);
    let end = play_out_nimrod(&mut players, &ongoing, resumed).await;
    assert!(end.outcome.is_some());
    let log = match_log(&mut players[0], &ongoing).await;
    assert_eq!(log.moves[..acked as usize], before[3].moves[..]);
    assert_eq!(log.moves.len() as u64, end.seq);
    // A finished match's log is served by the node as it was.
    assert_eq!(match_log(&mut players[0], &rooms[0]).await, before[0]);
    node.stop().await.unwrap();

    // Importing again refuses every room and changes nothing.
    let (admin, conn) = tokio_postgres::connect(&scratch.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let counts = (count(&admin, "matches").await, count(&admin, "moves").await);
    let again = import(&scratch.url(), &exported[..]).await.unwrap();
    assert_eq!(again.matches, 0);
    assert_eq!(again.refused.len(), 6, "{:?}", again.refused);
    for (why, room) in again.refused.iter().zip(&rooms) {
        assert!(
            why.contains(room.as_str()) && why.contains("already exists"),
            "{why}"
        );
    }
    assert_eq!(
        (count(&admin, "matches").await, count(&admin, "moves").await),
        counts
    );
    drop(original);
    original_task.finished().await.unwrap();
}

#[tokio::test]
async fn malformed_and_cut_short_exports_are_refused_naming_the_line() {
    let Some(scratch) = ScratchSchema::new().await else {
        return;
    };
    let url = scratch.url();
    let not_export = import(&url, &b"{\"room\":\"x\"}\n"[..]).await;
    assert!(
        matches!(&not_export, Err(TransferError::Format(why)) if why.contains("line 1")),
        "{not_export:?}"
    );
    let newer = import(&url, &b"{\"parlor_export\":99}\n"[..]).await;
    assert!(matches!(newer, Err(TransferError::Format(_))), "{newer:?}");
    let bad = b"{\"parlor_export\":1}\n{\"room\":\n\n{\"parlor_export_end\":1}\n";
    let done = import(&url, &bad[..]).await.unwrap();
    assert_eq!(done.matches, 0);
    assert_eq!(done.refused.len(), 1, "{:?}", done.refused);
    assert!(
        done.refused[0].starts_with("line 2: "),
        "{:?}",
        done.refused
    );
    // A match whose steps do not replay is refused, naming its line.
    let illegal = json!({
        "room": "aaaaaaaaaaaa",
        "header": {"game": "nimrod", "options": {"piles": [3, 5]}, "seats": 2, "seed": 1},
        "private": false,
        "seats": [],
        "steps": [{"seq": 0, "seat": 0, "action": {"move": {"take": [50, 0]}}}],
    });
    let text = format!("{{\"parlor_export\":1}}\n{illegal}\n{{\"parlor_export_end\":1}}\n");
    let done = import(&url, text.as_bytes()).await.unwrap();
    assert_eq!(done.matches, 0);
    assert!(
        done.refused.len() == 1 && done.refused[0].starts_with("line 2: room aaaaaaaaaaaa: "),
        "{:?}",
        done.refused
    );
    // A stream without its last line was cut short.
    let cut = import(&url, &b"{\"parlor_export\":1}\n"[..]).await.unwrap();
    assert_eq!(cut.refused.len(), 1, "{:?}", cut.refused);
    assert!(cut.refused[0].contains("cut short"), "{:?}", cut.refused);
}
