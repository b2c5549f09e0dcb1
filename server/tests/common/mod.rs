//! Helpers for driving rooms through a directory without sockets, so that
//! tests can run on tokio's paused time.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::sync::Arc;

use parlor_protocol::{decode_server, RoomStatus, ServerMsg, Update};
use parlor_server::directory::Directory;
use parlor_server::limits::Limits;
use parlor_server::outbox::{ConnId, Inbox, Outbox, Outgoing};
use parlor_server::room::Member;
use parlor_server::store::Store;
use parlor_server::Sync;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

/// A directory on a throwaway store.
pub fn directory(limits: Limits) -> Arc<Directory> {
    let (store, _thread) = Store::open(None, Sync::Normal).unwrap_or_else(|e| panic!("{e}"));
    directory_on(store, limits)
}

/// A directory on `store`.
pub fn directory_on(store: Store, limits: Limits) -> Arc<Directory> {
    Directory::new(store, TaskTracker::new(), CancellationToken::new(), limits)
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
            },
            out,
            inbox,
        }
    }

    pub async fn next(&mut self) -> ServerMsg {
        loop {
            match self.inbox.recv().await {
                Some(Outgoing::Text(t)) => {
                    self.inbox.written(t.len());
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
