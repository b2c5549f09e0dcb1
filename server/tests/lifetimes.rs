//! Rooms nobody plays in close after their lifetime, driven by tokio's
//! paused time: no test here sleeps.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

mod common;

use std::time::Duration;

use common::{directory, nimrod_room, route, seat_all, Player};
use parlor_protocol::{Closed, RoomId, RoomStatus};
use parlor_server::directory::{Directory, ListQuery};
use parlor_server::limits::Limits;
use parlor_server::room::{RoomCmd, RoomRequest};

fn limits() -> Limits {
    Limits {
        unstarted_room_timeout: Duration::from_secs(600),
        abandoned_room_timeout: Duration::from_secs(300),
        ..Limits::default()
    }
}

/// Why the store says `room` closed without an outcome.
async fn closed_in_store(dir: &Directory, room: RoomId) -> Option<Closed> {
    dir.store()
        .log(room)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no log"))
        .closed
}

#[tokio::test(start_paused = true)]
async fn a_room_that_never_starts_closes_and_says_why() {
    let dir = directory(limits());
    let room = nimrod_room(&dir, [10, 20], None).await;
    let mut a = Player::new(&dir, "a");
    seat_all(&dir, &room, &[&a]);
    let waiting = a.update().await;
    assert_eq!(waiting.status, RoomStatus::Waiting);
    let start = tokio::time::Instant::now();
    let last = a.update().await;
    assert!(
        start.elapsed() >= Duration::from_secs(590),
        "closed too early"
    );
    assert_eq!(last.status, RoomStatus::Finished);
    assert_eq!(last.closed, Some(Closed::NeverStarted));
    assert_eq!(last.outcome, None);
    // Gone from memory, the listing and the seat index (the actor reports
    // its end in the same step as that last update) ...
    assert!(dir.is_empty());
    let listed = dir.list(&ListQuery::default()).await;
    assert!(listed.is_ok_and(|page| page.rooms.is_empty()));
    assert!(dir.seats_of(a.member.token).is_empty());
    // ... and from the store's unfinished matches: it does not come back.
    let unfinished = dir
        .store()
        .unfinished()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(unfinished.iter().all(|m| m.record.room != room));
    assert_eq!(
        closed_in_store(&dir, room).await,
        Some(Closed::NeverStarted)
    );
}

#[tokio::test(start_paused = true)]
async fn a_started_room_whose_players_are_all_gone_closes_as_abandoned() {
    let dir = directory(limits());
    let room = nimrod_room(&dir, [10, 20], None).await;
    let (mut a, b) = (Player::new(&dir, "a"), Player::new(&dir, "b"));
    seat_all(&dir, &room, &[&a, &b]);
    a.update_at(0).await;
    // A spectator sees the room to its end (spectators do not keep a room).
    let mut watcher = Player::new(&dir, "watcher");
    route(
        &dir,
        &room,
        RoomCmd::request(watcher.member.clone(), RoomRequest::Spectate),
    );
    watcher.update().await;
    // One player leaving is not enough: the other is still there.
    route(&dir, &room, b.detach());
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(dir.len(), 1, "a room with a player present closed");
    // When the last one goes too, the abandoned lifetime starts.
    route(&dir, &room, a.detach());
    let gone = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(299)).await;
    assert_eq!(dir.len(), 1, "closed before its lifetime");
    let last = loop {
        let u = watcher.update().await;
        if u.closed.is_some() {
            break u;
        }
    };
    assert!(gone.elapsed() >= Duration::from_secs(300));
    assert_eq!(last.closed, Some(Closed::Abandoned));
    assert_eq!(last.status, RoomStatus::Finished);
    assert!(dir.is_empty());
    assert_eq!(closed_in_store(&dir, room).await, Some(Closed::Abandoned));
}

#[tokio::test(start_paused = true)]
async fn a_player_coming_back_keeps_the_room_open() {
    let dir = directory(limits());
    let room = nimrod_room(&dir, [10, 20], None).await;
    let (a, b) = (Player::new(&dir, "a"), Player::new(&dir, "b"));
    seat_all(&dir, &room, &[&a, &b]);
    route(&dir, &room, a.detach());
    route(&dir, &room, b.detach());
    tokio::time::sleep(Duration::from_secs(200)).await;
    // Seat 0 resumes on a new connection before the lifetime is up.
    let mut back = Player::new(&dir, "a again");
    back.member.token = a.member.token;
    route(
        &dir,
        &room,
        RoomCmd::request(back.member.clone(), RoomRequest::Resume),
    );
    back.update().await;
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(dir.len(), 1, "a room with a player back closed");
}
