//! A challenge's or seek's room between accounts holds every seat for
//! its account from the commit that makes it: a crash before the players
//! took their seats brings it back with each seat its player's, never
//! with a free seat a guest could take.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use parlor_games::{GameKind, Seat};
use parlor_protocol::{Clock, ErrorCode, ServerMsg};
use parlor_server::directory::NewRoom;
use parlor_server::limits::Limits;
use parlor_server::room::{Member, RoomCmd, RoomRequest};
use parlor_server::store::{MatchRecord, Origin};
use serde_json::json;

use crate::common::backend::{close, Backend};
use crate::common::store_cases::room;
use crate::common::{directory, directory_on, route, Player};

const PLAYERS: [&str; 2] = ["Ann", "Bob"];

/// Longest wait for an answer: the room answers at once.
const WAIT: std::time::Duration = std::time::Duration::from_secs(10);

fn new_room(matched: Vec<String>) -> NewRoom {
    NewRoom {
        game: GameKind::Nimrod,
        seats: Some(2),
        options: json!({"piles": [5, 7]}),
        clock: Some(Clock::PerMove { ms: 60_000 }),
        private: false,
        creator: None,
        creator_addr: None,
        rated: true,
        by_account: true,
        scheduled: None,
        matched,
    }
}

#[tokio::test]
async fn making_a_matched_room_names_its_players_in_the_same_commit() {
    let dir = directory(Limits::default());
    let names: Vec<String> = PLAYERS.map(String::from).to_vec();
    let made = dir.create(new_room(names.clone())).await.unwrap();
    let log = dir.store().log(made.room.clone()).await.unwrap().unwrap();
    assert_eq!(
        log.header.matched.map(|m| m.players),
        Some(names),
        "the room's one row names both players"
    );
    // A room for anyone names nobody.
    let open = dir.create(new_room(Vec::new())).await.unwrap();
    let log = dir.store().log(open.room).await.unwrap().unwrap();
    assert_eq!(log.header.matched, None);
}

#[tokio::test]
async fn a_matched_room_restored_before_its_players_came_holds_their_seats() {
    let backend = Backend::sqlite();
    // What a crash right after the room's commit leaves: its row alone.
    // (The header as `create` makes it, with its fair deal, from a
    // throwaway server.)
    let id = room("0000000a11ce");
    let maker = directory(Limits::default());
    let made = maker
        .create(new_room(PLAYERS.map(String::from).to_vec()))
        .await
        .unwrap();
    let h = maker.store().log(made.room).await.unwrap().unwrap().header;
    assert!(h.deal.is_some() && h.matched.is_some());
    let (store, task) = backend.open().await;
    store
        .create_match(MatchRecord {
            room: id.clone(),
            header: h,
            private: false,
            origin: Origin::default(),
        })
        .await
        .unwrap();
    tokio::time::timeout(WAIT, close(store, task))
        .await
        .unwrap_or_else(|_| panic!("the store did not close"));
    // The server starts again.
    let (store, _task) = backend.open().await;
    let dir = directory_on(store, Limits::default());
    let restored = tokio::time::timeout(WAIT, dir.restore()).await;
    assert_eq!(
        restored.unwrap_or_else(|_| panic!("restore hung")).unwrap(),
        1
    );
    // A guest finds no seat to take.
    let mut guest = Player::new(&dir, "mallory");
    for seat in [0, 1] {
        route(&dir, &id, guest.join(seat));
        loop {
            let next = tokio::time::timeout(WAIT, guest.next()).await;
            match next.unwrap_or_else(|_| panic!("no answer to the guest's join of {seat}")) {
                ServerMsg::Error { code, .. } => {
                    assert!(
                        matches!(code, ErrorCode::RoomSeatTaken | ErrorCode::RoomFull),
                        "{code}"
                    );
                    break;
                }
                ServerMsg::Joined { seat, .. } => panic!("a guest took seat {}", seat.0),
                _ => {}
            }
        }
    }
    // Ann, signed in on a new connection, takes hers.
    let mut ann = Player::new(&dir, "Ann");
    ann.member = Member {
        name: Arc::from("Ann"),
        account: true,
        ..ann.member.clone()
    };
    route(
        &dir,
        &id,
        RoomCmd::request(
            ann.member.clone(),
            RoomRequest::Join {
                seat: None,
                client_seed: None,
                await_seed: false,
            },
        ),
    );
    loop {
        let next = tokio::time::timeout(WAIT, ann.next()).await;
        if let ServerMsg::Joined { seat, .. } = next.unwrap_or_else(|_| panic!("no joined")) {
            assert_eq!(seat, Seat(0), "Ann's seat is the one the header names");
            break;
        }
    }
}
