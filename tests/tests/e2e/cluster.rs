//! Cluster mode across nodes sharing one PostgreSQL schema (skipped
//! without PostgreSQL, except under `CI=true`): a node that loses its
//! lease gives its rooms up, another node takes them over at a higher
//! epoch, and the players resume there with nothing lost.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{ErrorCode, ServerMsg};
use parlor_server::testing::ScratchSchema;
use parlor_server::Config;
use parlor_tests::{
    assert_log_of_moves, nimrod_move, nimrod_pair, play_out_nimrod, resume_at, start_server_with,
    TestServer,
};
use tokio_postgres::{Client, NoTls};

/// Short, so that the test does not wait long for a lease to run out.
const LEASE: Duration = Duration::from_millis(600);

async fn node(scratch: &ScratchSchema) -> TestServer {
    start_server_with(Config {
        store: scratch.config_with_lease(LEASE),
        ..Config::default()
    })
    .await
}

async fn admin(scratch: &ScratchSchema) -> Client {
    let (client, conn) = tokio_postgres::connect(&scratch.url(), NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
}

/// The room's owner and epoch.
async fn owner(db: &Client, room: &str) -> (Option<String>, i64) {
    let row = db
        .query_one("SELECT owner, epoch FROM matches WHERE room = $1", &[&room])
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

/// Waits until a node other than `old` owns the room; the URL it
/// advertises, and the epoch.
async fn claimed(db: &Client, room: &str, old: Option<&str>) -> (String, i64) {
    for _ in 0..3_000 {
        let row = db
            .query_one(
                "SELECT n.url, m.epoch FROM matches m JOIN nodes n ON n.id = m.owner \
                 WHERE m.room = $1 AND m.owner IS DISTINCT FROM $2",
                &[&room, &old],
            )
            .await;
        if let Ok(row) = row {
            return (row.get(0), row.get(1));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("nobody claimed room {room}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_lost_its_lease_gives_its_rooms_up_and_play_goes_on_at_another() {
    let Some(scratch) = ScratchSchema::new().await else {
        return;
    };
    let db = admin(&scratch).await;
    let a = node(&scratch).await;
    let b = node(&scratch).await;
    let (mut alice, mut bob, room, mut u) = nimrod_pair(&a.url(), [12, 20]).await;
    // A few moves, acknowledged by A.
    for _ in 0..3 {
        let seat = u.to_act.iter().next().unwrap();
        let p = if seat.0 == 0 { &mut alice } else { &mut bob };
        p.play(&room, seat.0, u.seq, nimrod_move(&u)).await;
        u = p.update_at(&room, u.seq + 1).await;
    }
    let acked = u.seq;
    let (a_id, epoch) = owner(&db, room.as_str()).await;
    assert_eq!(epoch, 1);
    // A's lease runs out as far as the database knows (A was paused or
    // cut off): B claims the room, and A, at its next renewal, gives its
    // rooms up and tells their players.
    db.execute(
        "UPDATE nodes SET lease_until = now() - interval '1 second' WHERE id = $1",
        &[&a_id],
    )
    .await
    .unwrap();
    for p in [&mut alice, &mut bob] {
        let moved = p.expect_error(ErrorCode::RoomMoved).await;
        assert!(matches!(moved, ServerMsg::Error { room: Some(r), .. } if r == room));
    }
    // It is claimed at a higher epoch: by B, or by A under a new id.
    let (host, b_epoch) = claimed(&db, room.as_str(), a_id.as_deref()).await;
    assert!(b_epoch > epoch, "the takeover bumped the epoch");
    // The old connection no longer plays the room.
    alice
        .play(
            &room,
            u.to_act.iter().next().unwrap().0,
            u.seq,
            nimrod_move(&u),
        )
        .await;
    let refused = alice
        .expect(|m| matches!(m, ServerMsg::Error { .. }).then(|| m.clone()))
        .await;
    assert!(
        matches!(
            refused,
            ServerMsg::Error {
                // room/moved when the claimer's announcement that it
                // rebuilt the room reaches A after A forwarded this play.
                code: ErrorCode::RoomNotFound | ErrorCode::ActionNotYourSeat | ErrorCode::RoomMoved,
                ..
            }
        ),
        "{refused:?}"
    );
    // The players resume where the room is hosted now, and the game goes
    // on from where it was.
    assert!(host == a.url() || host == b.url(), "{host}");
    let mut players = Vec::new();
    for p in [alice, bob] {
        players.push(resume_at(&host, p.token).await);
        p.close().await;
    }
    let resumed = players[0].update(&room).await;
    assert_eq!(resumed.seq, acked, "every acknowledged move is kept");
    assert_eq!(resumed.view, u.view);
    let end = play_out_nimrod(&mut players, &room, resumed).await;
    assert!(end.outcome.is_some());
    assert_log_of_moves(&mut players[0], &room, &end).await;
    b.stop().await.unwrap();
    a.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_resuming_at_another_node_after_a_clean_stop_finds_the_room_there() {
    let Some(scratch) = ScratchSchema::new().await else {
        return;
    };
    let db = admin(&scratch).await;
    let a = node(&scratch).await;
    let b = node(&scratch).await;
    let (alice, bob, room, u) = nimrod_pair(&a.url(), [5, 9]).await;
    let (a_id, _) = owner(&db, room.as_str()).await;
    // A stops cleanly: its rooms are handed over at once, not after the lease.
    a.stop().await.unwrap();
    let (owner_now, _) = owner(&db, room.as_str()).await;
    assert_ne!(owner_now, a_id);
    let mut players = Vec::new();
    for p in [alice, bob] {
        players.push(resume_at(&b.url(), p.token).await);
    }
    let resumed = players[0].update(&room).await;
    assert_eq!(resumed.seq, u.seq);
    let end = play_out_nimrod(&mut players, &room, resumed).await;
    assert!(end.outcome.is_some());
    b.stop().await.unwrap();
}
