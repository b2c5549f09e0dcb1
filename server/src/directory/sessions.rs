//! The sessions a node serves: its open connections, which connection
//! speaks for each token now, and the seats each token holds in the rooms
//! hosted here (the seat index a resume reads).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use parlor_games::Seat;
use parlor_protocol::{RoomId, SeatRef};
use uuid::Uuid;

use super::{lock, Directory};
use crate::outbox::{ConnId, Outbox};

/// Connections, owners and the seat index; each map behind its own lock,
/// every update a single insert or remove.
#[derive(Default)]
pub(super) struct Sessions {
    conns: Mutex<HashMap<ConnId, Outbox>>,
    /// Which connection speaks for each token now.
    owners: Mutex<HashMap<Uuid, ConnId>>,
    seats: Mutex<HashMap<Uuid, BTreeMap<RoomId, Seat>>>,
}

impl Sessions {
    /// How many connections are open.
    pub fn count(&self) -> usize {
        lock(&self.conns).len()
    }

    /// Adds a connection (a local one, or a stand-in for another node's).
    pub fn add(&self, out: &Outbox) {
        lock(&self.conns).insert(out.id(), out.clone());
    }

    /// Forgets a connection.
    pub fn remove(&self, conn: ConnId) {
        lock(&self.conns).remove(&conn);
    }

    /// Connection `conn`'s queue, open or not.
    pub fn get(&self, conn: ConnId) -> Option<Outbox> {
        lock(&self.conns).get(&conn).cloned()
    }

    /// Connection `conn`'s queue, if it is still open.
    pub fn outbox(&self, conn: ConnId) -> Option<Outbox> {
        lock(&self.conns)
            .get(&conn)
            .filter(|o| o.is_open())
            .cloned()
    }

    /// Makes `conn` speak for `token`; the connection that did before.
    fn own(&self, token: Uuid, conn: ConnId) -> Option<ConnId> {
        lock(&self.owners).insert(token, conn)
    }

    /// `conn` no longer speaks for `token` (if it still did).
    fn release(&self, token: Uuid, conn: ConnId) {
        let mut owners = lock(&self.owners);
        if owners.get(&token) == Some(&conn) {
            owners.remove(&token);
        }
    }

    /// `token` speaks elsewhere now: the connection here that spoke for
    /// it (unless it is `keep`) no longer does, and is returned, to close.
    /// A connection for which `stays` holds keeps speaking for it.
    pub fn displace(
        &self,
        token: Uuid,
        keep: Option<ConnId>,
        stays: impl Fn(ConnId) -> bool,
    ) -> Option<Outbox> {
        let old = {
            let mut owners = lock(&self.owners);
            match owners.get(&token) {
                Some(&c) if keep != Some(c) && !stays(c) => {
                    owners.remove(&token);
                    Some(c)
                }
                _ => None,
            }
        };
        old.and_then(|c| self.get(c))
    }

    /// `token` holds `seat` in `room`.
    fn seat(&self, token: Uuid, room: &RoomId, seat: Seat) {
        lock(&self.seats)
            .entry(token)
            .or_default()
            .insert(room.clone(), seat);
    }

    /// `token` no longer holds a seat in `room`.
    pub fn unseat(&self, token: Uuid, room: &RoomId) {
        let mut seats = lock(&self.seats);
        if let Some(rooms) = seats.get_mut(&token) {
            rooms.remove(room);
            if rooms.is_empty() {
                seats.remove(&token);
            }
        }
    }

    /// The seats `token` holds here.
    pub fn seats_of(&self, token: Uuid) -> Vec<SeatRef> {
        lock(&self.seats)
            .get(&token)
            .map(|rooms| {
                rooms
                    .iter()
                    .map(|(room, seat)| SeatRef {
                        room: room.clone(),
                        seat: *seat,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Directory {
    /// Registers a connection speaking for `token`.
    pub fn connect(&self, out: &Outbox, token: Uuid) {
        self.sessions.add(out);
        self.sessions.own(token, out.id());
    }

    /// Makes `conn` the connection speaking for `token`; returns the one
    /// that spoke for it before, if it is another and is to close. The
    /// connection resuming is signed in as `account` (its key) if any: a
    /// connection of that same account that spoke for the token stays
    /// open, both speaking for it (an account's tabs and devices never
    /// take each other's place; only a guest's token moves).
    pub fn take_over(&self, token: Uuid, conn: ConnId, account: Option<&str>) -> Option<Outbox> {
        if let Some(cluster) = self.mode.bus() {
            // A connection on another node that spoke for it closes too.
            cluster.taken_over(token, conn, account);
        }
        let old = self.sessions.own(token, conn)?;
        if old == conn || account.is_some_and(|k| self.signed_in_as(old, k)) {
            return None;
        }
        self.sessions.get(old)
    }

    /// `conn` no longer speaks for `token` (if it still did).
    pub fn release(&self, token: Uuid, conn: ConnId) {
        self.sessions.release(token, conn);
    }

    /// Connection `conn`'s queue, if it is open here.
    pub fn outbox_of(&self, conn: ConnId) -> Option<Outbox> {
        self.sessions.outbox(conn)
    }

    /// Forgets a closed connection.
    pub fn disconnect(&self, conn: ConnId, token: Uuid) {
        if let Some(cluster) = self.mode.bus() {
            cluster.closed(conn);
        }
        self.sessions.remove(conn);
        self.sessions.release(token, conn);
        self.sign_out(conn);
        self.credentials.unbind(conn);
        self.stop_listening(conn);
    }

    /// The seats `token` holds in rooms hosted here.
    pub fn seats_of(&self, token: Uuid) -> Vec<SeatRef> {
        self.sessions.seats_of(token)
    }

    /// `token` holds `seat` in `room`: indexed both ways, so that the
    /// room's seats are forgotten with it.
    pub(super) fn index_seat(&self, token: Uuid, room: &RoomId, seat: Seat) {
        if let Some(e) = lock(&self.rooms).by_id.get_mut(room) {
            if !e.seated.contains(&token) {
                e.seated.push(token);
            }
        }
        self.sessions.seat(token, room, seat);
    }

    /// The sessions served here (cluster mode's stand-ins join them).
    pub(super) fn sessions(&self) -> &Sessions {
        &self.sessions
    }
}
