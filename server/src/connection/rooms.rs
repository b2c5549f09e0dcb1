//! The rooms a connection is in: its requests forwarded to them, the
//! rooms it sat or watched in remembered (to detach from them when it
//! closes), and the shard of the newest one, which it moves to.

use std::collections::HashSet;
use std::sync::Arc;

use parlor_protocol::{ErrorCode, RoomId, ServerMsg};

use super::Session;
use crate::directory::Unrouted;
use crate::room::{Member, RoomCmd, RoomRequest};

/// The rooms a session entered, and where it is to move.
#[derive(Debug, Default)]
pub(super) struct Rooms {
    /// Rooms this connection sat or watched in, to detach from at the end.
    entered: HashSet<RoomId>,
    /// The shard this connection is to move to (see `Session::follow`).
    move_to: Option<usize>,
}

impl Rooms {
    /// Remembers that the session sat or watched in `room`.
    fn enter(&mut self, room: RoomId) {
        self.entered.insert(room);
    }

    /// The shard to move to, if the session is to move (once).
    pub(super) fn take_move(&mut self) -> Option<usize> {
        self.move_to.take()
    }
}

impl Session {
    /// This session as a room sees it.
    fn member(&self) -> Member {
        Member {
            token: self.token,
            name: Arc::clone(&self.name),
            conn: self.conn,
            account: self.account.is_some(),
        }
    }

    /// Sends `req` to `room`; `remember`: the session enters the room
    /// (it sits or watches there), so it follows it and detaches at the end.
    pub(super) fn forward(&mut self, room: RoomId, req: RoomRequest, remember: bool) {
        let cmd = RoomCmd::request(self.member(), req);
        match self.shared.directory.route(&room, cmd) {
            Ok(()) => {
                if remember {
                    self.follow(&room);
                    self.rooms.enter(room);
                }
            }
            Err(Unrouted::Busy) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::ServerBusy,
                    "the room is overloaded; try again",
                ));
            }
            Err(Unrouted::NotFound) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::RoomNotFound,
                    format!("no room {room}"),
                ));
            }
        }
    }

    /// Asks the connection to move to the shard `room` runs on, the room
    /// it just sat, watched or resumed in (a move of that room then wakes
    /// one thread: see `shard`). Rooms it entered before, often finished,
    /// do not hold it back: its newest room is where it plays. A room
    /// hosted on another node leaves it where it is.
    fn follow(&mut self, room: &RoomId) {
        let directory = &self.shared.directory;
        let shards = directory.shards();
        if shards.is_empty() {
            return;
        }
        self.rooms.move_to = directory
            .shard_of(room)
            .filter(|&t| Some(t) != shards.here());
    }

    /// Tells every room this connection sat or watched in that it is gone.
    pub(super) fn detach_all(&mut self) {
        for room in self.rooms.entered.drain() {
            let _ = self.shared.directory.route(
                &room,
                RoomCmd::Detach {
                    token: self.token,
                    conn: self.conn,
                },
            );
        }
    }
}
