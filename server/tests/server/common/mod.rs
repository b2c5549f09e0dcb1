//! Helpers for driving rooms through a directory without sockets, so that
//! tests can run on tokio's paused time.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, dead_code)]

pub mod backend;
pub mod event_lane;
pub mod fault_cases;
pub mod live;
pub mod rated;
pub mod seekers;
pub mod store_cases;

use std::sync::Arc;

use parlor_games::{GameKind, Seat};
use parlor_protocol::{decode_server, Clock, RoomId, RoomStatus, ServerMsg, Update};
use parlor_server::directory::{Directory, NewRoom};
use parlor_server::limits::Limits;
use parlor_server::outbox::{ConnId, Inbox, Outbox, Outgoing};
use parlor_server::room::{Member, RoomCmd, RoomRequest};
use parlor_server::store::Store;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

/// A directory on a throwaway store.
pub fn directory(limits: Limits) -> Arc<Directory> {
    let (store, _task) = Store::throwaway().unwrap_or_else(|e| panic!("{e}"));
    directory_on(store, limits)
}

/// A directory on `store`.
pub fn directory_on(store: Store, limits: Limits) -> Arc<Directory> {
    Directory::new(store, TaskTracker::new(), CancellationToken::new(), limits)
}

/// Makes a Nimrod room with `piles` (and `clock`) through `dir`.
pub async fn nimrod_room(dir: &Directory, piles: [u64; 2], clock: Option<Clock>) -> RoomId {
    dir.create(NewRoom {
        game: GameKind::Nimrod,
        seats: None,
        options: serde_json::json!({ "piles": piles }),
        clock,
        private: false,
        creator: None,
        creator_addr: None,
        rated: false,
        by_account: false,
        scheduled: None,
        matched: Vec::new(),
    })
    .await
    .unwrap_or_else(|e| panic!("{e:?}"))
    .room
}

/// Sends `cmd` to `room`.
pub fn route(dir: &Directory, room: &RoomId, cmd: RoomCmd) {
    dir.route(room, cmd).unwrap_or_else(|e| panic!("{e:?}"));
}

/// Seats each player in turn, from seat 0.
pub fn seat_all(dir: &Directory, room: &RoomId, players: &[&Player]) {
    for (i, p) in players.iter().enumerate() {
        route(dir, room, p.join(i as u8));
    }
}

/// A connection registered with a directory, read by the test.
pub struct Player {
    pub member: Member,
    pub out: Outbox,
    inbox: Inbox,
}

impl Player {
    pub fn new(dir: &Directory, name: &str) -> Player {
        let (out, inbox) = Outbox::new(ConnId::next());
        let token = Uuid::new_v4();
        dir.connect(&out, token);
        Player {
            member: Member {
                token,
                name: Arc::from(name),
                conn: out.id(),
                account: false,
            },
            out,
            inbox,
        }
    }

    /// Its request to sit in `seat`.
    pub fn join(&self, seat: u8) -> RoomCmd {
        RoomCmd::request(
            self.member.clone(),
            RoomRequest::Join {
                seat: Some(Seat(seat)),
                client_seed: None,
                await_seed: false,
            },
        )
    }

    /// Its connection closing.
    pub fn detach(&self) -> RoomCmd {
        RoomCmd::Detach {
            token: self.member.token,
            conn: self.member.conn,
        }
    }

    pub async fn next(&mut self) -> ServerMsg {
        loop {
            match self.inbox.recv().await {
                Some(Outgoing::Text(t)) => {
                    return decode_server(t.as_str()).unwrap_or_else(|e| panic!("{e:?}"));
                }
                Some(_) => {}
                None => panic!("outbox closed"),
            }
        }
    }

    /// The next update of a started match at `seq` or later.
    pub async fn update_at(&mut self, seq: u64) -> Update {
        loop {
            if let ServerMsg::Update(u) = self.next().await {
                if u.seq >= seq && u.status != RoomStatus::Waiting {
                    return u;
                }
            }
        }
    }

    /// The next update of any kind.
    pub async fn update(&mut self) -> Update {
        loop {
            if let ServerMsg::Update(u) = self.next().await {
                return u;
            }
        }
    }
}
