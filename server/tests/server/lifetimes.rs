//! Rooms nobody plays in (or, of bots alone, nobody watches) close after
//! their lifetime, driven by tokio's paused time: no test here sleeps.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use crate::common;

use std::time::Duration;

use common::{directory, nimrod_room, route, seat_all, Player};
use parlor_games::{GameKind, Seat};
use parlor_protocol::{Closed, RoomId, RoomStatus, ServerMsg};
use parlor_server::directory::{Directory, ListQuery, NewRoom};
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

/// A room of `game` made by `host`, with a bot in each of its fewest seats, `watcher`
/// watching from before the start if given; every request answered.
async fn bot_room(
    dir: &Directory,
    game: GameKind,
    host: &mut Player,
    watcher: Option<&mut Player>,
) -> RoomId {
    let room = dir
        .create(NewRoom {
            game,
            seats: None,
            options: serde_json::Value::Null,
            clock: None,
            private: false,
            creator: Some(host.member.token),
            creator_addr: None,
            rated: false,
            by_account: false,
            scheduled: None,
            matched: Vec::new(),
        })
        .await
        .unwrap_or_else(|e| panic!("{e:?}"))
        .room;
    if let Some(w) = watcher {
        route(
            dir,
            &room,
            RoomCmd::request(w.member.clone(), RoomRequest::Spectate),
        );
        w.update().await;
    }
    for seat in 0..game.seat_range().0 {
        route(
            dir,
            &room,
            RoomCmd::request(
                host.member.clone(),
                RoomRequest::AddBot {
                    seat: Some(Seat(seat)),
                    strategy: None,
                },
            ),
        );
        // Answered: the room has seen the bot (and, after the last, who
        // is watching) before the test moves the clock.
        loop {
            match host.next().await {
                ServerMsg::BotAdded { .. } => break,
                ServerMsg::Error { code, message, .. } => panic!("{code}: {message}"),
                _ => {}
            }
        }
    }
    room
}

/// Waits (on paused time, a step of the bots at a time) until `dir`
/// hosts no room; false if it still does after many steps.
async fn all_closed(dir: &Directory) -> bool {
    for _ in 0..10_000 {
        if dir.is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    dir.is_empty()
}

#[tokio::test(start_paused = true)]
async fn a_bot_only_room_nobody_watches_closes_as_abandoned_mid_match() {
    let dir = directory(limits());
    let mut host = Player::new(&dir, "host");
    // Cribbage to 121: hundreds of steps, far more than the bots play
    // before the clock below moves.
    let room = bot_room(&dir, GameKind::Cribbage, &mut host, None).await;
    tokio::time::advance(limits().abandoned_room_timeout + Duration::from_secs(1)).await;
    assert!(all_closed(&dir).await, "an unwatched bot room played on");
    let log = dir
        .store()
        .log(room)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no log"));
    assert_eq!(log.closed, Some(Closed::Abandoned));
    assert_eq!(log.outcome, None, "the match had ended by itself");
    assert!(!log.moves.is_empty(), "the bots never played");
}

#[tokio::test(start_paused = true)]
async fn a_watched_bot_only_room_plays_on_until_its_watcher_leaves() {
    let dir = directory(limits());
    let mut host = Player::new(&dir, "host");
    let mut watcher = Player::new(&dir, "watcher");
    let room = bot_room(&dir, GameKind::Cribbage, &mut host, Some(&mut watcher)).await;
    let first = watcher.update_at(1).await;
    tokio::time::advance(limits().abandoned_room_timeout * 3).await;
    // Still playing, and still moving: a watched room does not close.
    let later = watcher.update_at(first.seq + 1).await;
    assert_eq!(later.closed, None);
    assert_eq!(later.status, RoomStatus::Playing);
    assert_eq!(dir.len(), 1);
    // Once nobody watches, the lifetime runs from then.
    route(
        &dir,
        &room,
        RoomCmd::request(watcher.member.clone(), RoomRequest::Leave),
    );
    while !matches!(watcher.next().await, ServerMsg::Left { .. }) {}
    tokio::time::advance(limits().abandoned_room_timeout + Duration::from_secs(1)).await;
    assert!(
        all_closed(&dir).await,
        "a bot room nobody watches any more played on"
    );
    assert_eq!(closed_in_store(&dir, room).await, Some(Closed::Abandoned));
}
