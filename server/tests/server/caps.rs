//! Room caps hold when rooms are made at once: matchmaking makes a
//! round's rooms together, and a cap checked before each write and counted
//! after it let them pass it together.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::net::IpAddr;

use parlor_games::GameKind;
use parlor_protocol::ErrorCode;
use parlor_server::directory::NewRoom;
use parlor_server::limits::Limits;
use uuid::Uuid;

fn new_room(creator: Option<Uuid>, addr: Option<IpAddr>) -> NewRoom {
    NewRoom {
        game: GameKind::Nimrod,
        seats: None,
        options: serde_json::Value::Null,
        clock: None,
        private: false,
        creator,
        creator_addr: addr,
        rated: false,
        by_account: false,
        scheduled: None,
        matched: Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_made_at_once_never_pass_the_address_creator_or_server_caps() {
    let limits = Limits {
        rooms_per_address: 5,
        max_rooms: 12,
        ..Limits::default()
    };
    let dir = common::directory(limits);
    let addr = IpAddr::from([10, 9, 8, 7]);
    let made =
        futures_util::future::join_all((0..40).map(|_| dir.create(new_room(None, Some(addr)))))
            .await;
    let ok = made.iter().filter(|r| r.is_ok()).count();
    assert_eq!(ok, 5, "the address cap");
    assert!(made
        .iter()
        .filter_map(|r| r.as_ref().err())
        .all(|refused| refused.code == ErrorCode::RoomTooMany));

    let creator = Uuid::new_v4();
    let made =
        futures_util::future::join_all((0..40).map(|_| dir.create(new_room(Some(creator), None))))
            .await;
    let by_creator = made.iter().filter(|r| r.is_ok()).count();
    assert_eq!(by_creator, 7, "the server's cap of 12, 5 taken");
    assert_eq!(dir.len(), 12);
}
