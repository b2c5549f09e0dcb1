//! The room directory across a cluster's nodes: what a node does for rooms
//! it does not host (forwarding over the bus), for connections held by
//! other nodes (stand-ins), and for the lobby (kept in the database).
//!
//! Any node accepts any connection. A command for a room hosted here goes
//! straight to its actor; one for a room hosted elsewhere is published on
//! the room's channel, which only its owner hears. Commands go out in the
//! order they came, through one publisher task: a room never sees a
//! connection's `play` before its `join`. A publish that nobody hears
//! means nobody hosts the room now: the database says whether it is over,
//! unknown, orphaned (then this node claims it and hosts it) or owned by
//! a live node that is not listening yet (then it is tried again, at most
//! a lease); meanwhile that room's later commands wait behind it.

mod inbound;
mod lobby;
mod proxy;
mod wire;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};

use parlor_protocol::{ErrorCode, RoomId, RoomSummary, ServerMsg};
use tokio::sync::{mpsc, Notify};
use uuid::Uuid;

use super::{lock, Directory, Unrouted};
use crate::bus::Bus;
use crate::outbox::ConnId;
use crate::room::{RoomCmd, RoomRequest};
use crate::store::{ClusterStore, Listing, MatchKey, Whereabouts};

pub use lobby::list as list_cluster;
use proxy::Proxies;
pub(in crate::directory) use wire::Envelope;

/// How often a command for a room that nobody on the bus hosts, though a
/// live node owns it, is tried again (the owner is subscribing, or is
/// dying and its lease not yet out).
pub(super) const BUS_RETRY_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// Commands for one room waiting while its node is looked for: a client
/// that keeps sending meanwhile is refused `server/busy` beyond this.
pub(super) const BUS_PENDING_PER_ROOM: usize = 64;

/// Commands the publisher task has not yet sent: past this, a command
/// is refused `server/busy` (the bus is far behind).
const OUTBOUND_QUEUE: usize = 16_384;

/// What the publisher task sends, in order.
#[derive(Debug)]
enum Outbound {
    /// A command for a room hosted elsewhere.
    Cmd(RoomId, RoomCmd),
    /// A message for every node.
    Announce(Box<Envelope>),
}

/// A room subscription to make or drop.
#[derive(Debug)]
enum Sub {
    Host(RoomId),
    Unhost(RoomId),
}

/// A node's part of the cluster's directory.
pub(in crate::directory) struct Cluster {
    bus: Bus,
    /// The shared store: where rooms are, claims, the lobby, the lease.
    store: ClusterStore,
    outbound: mpsc::Sender<Outbound>,
    subs: mpsc::UnboundedSender<Sub>,
    /// Rooms whose node is being looked for, with the commands waiting
    /// for it, in order.
    pending: Mutex<HashMap<RoomId, VecDeque<RoomCmd>>>,
    proxies: Mutex<Proxies>,
    /// Listings to write, the latest per room.
    listings: Mutex<HashMap<RoomId, Listing>>,
    listed: Notify,
    /// Local connections that sent a command over the bus, with the
    /// rooms they sent them to: told to the cluster when they close,
    /// closed if the bus was lost (their rooms' frames meanwhile are
    /// gone), and told `room/moved` when one of those rooms is rebuilt on
    /// a node (the one they reached died: nothing else would tell them).
    forwarded: Mutex<HashMap<ConnId, HashSet<RoomId>>>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("bus", &self.bus).finish()
    }
}

/// The receiving ends of a cluster's queues, for its tasks.
pub(in crate::directory) struct Queues {
    outbound: mpsc::Receiver<Outbound>,
    subs: mpsc::UnboundedReceiver<Sub>,
}

impl Cluster {
    /// A node's cluster directory on `bus`, and its queues.
    pub fn new(bus: Bus, store: ClusterStore) -> (Cluster, Queues) {
        let (outbound, outbound_rx) = mpsc::channel(OUTBOUND_QUEUE);
        let (subs, subs_rx) = mpsc::unbounded_channel();
        (
            Cluster {
                bus,
                store,
                outbound,
                subs,
                pending: Mutex::default(),
                proxies: Mutex::default(),
                listings: Mutex::default(),
                listed: Notify::new(),
                forwarded: Mutex::default(),
            },
            Queues {
                outbound: outbound_rx,
                subs: subs_rx,
            },
        )
    }

    /// Starts the cluster's tasks for `dir`, until its shutdown.
    pub fn start(cluster: &Arc<Cluster>, dir: &Arc<Directory>, queues: Queues) {
        let weak = Arc::downgrade(dir);
        let c = || Arc::clone(cluster);
        dir.spawn(publish(weak.clone(), c(), queues.outbound));
        dir.spawn(subscriptions(c(), queues.subs));
        dir.spawn(inbound::listen(weak.clone(), c()));
        dir.spawn(inbound::watch_losses(weak.clone(), c()));
        dir.spawn(lobby::flush(weak, c()));
    }

    /// Sends `cmd` for `room`, hosted elsewhere (or nowhere yet).
    pub fn forward(&self, room: &RoomId, cmd: RoomCmd) -> Result<(), Unrouted> {
        if let Some(conn) = cmd.conn() {
            // Every forwarded move passes here: the room is cloned only the
            // first time.
            let mut forwarded = lock(&self.forwarded);
            let rooms = forwarded.entry(conn).or_default();
            if !rooms.contains(room) {
                rooms.insert(room.clone());
            }
        }
        self.outbound
            .try_send(Outbound::Cmd(room.clone(), cmd))
            .map_err(|e| match e {
                mpsc::error::TrySendError::Full(_) => Unrouted::Busy,
                mpsc::error::TrySendError::Closed(_) => Unrouted::NotFound,
            })
    }

    /// Tells every node that `token` speaks on `conn` now.
    pub fn taken_over(&self, token: Uuid, conn: ConnId, account: Option<&str>) {
        let _ = self
            .outbound
            .try_send(Outbound::Announce(Box::new(Envelope::TakenOver {
                gw: self.bus.me().to_string(),
                conn: conn.0,
                token,
                account: account.map(str::to_owned),
            })));
    }

    /// Tells every node `env` (matchmaking's messages to players).
    pub fn announce(&self, env: Envelope) {
        if self
            .outbound
            .try_send(Outbound::Announce(Box::new(env)))
            .is_err()
        {
            tracing::warn!("the bus is far behind: a message to players was dropped");
        }
    }

    /// The gateway and its connection that the stand-in `conn` here
    /// stands for, if it is one.
    pub fn remote_of(&self, conn: ConnId) -> Option<(Arc<str>, u64)> {
        lock(&self.proxies).remote_of(conn)
    }

    /// This node's name on the bus.
    pub fn me(&self) -> &Arc<str> {
        self.bus.me()
    }

    /// A local connection closed: its stand-ins elsewhere go.
    pub fn closed(&self, conn: ConnId) {
        if lock(&self.forwarded).remove(&conn).is_some() {
            let _ = self
                .outbound
                .try_send(Outbound::Announce(Box::new(Envelope::Gone {
                    gw: self.bus.me().to_string(),
                    conn: conn.0,
                })));
        }
    }

    /// Tells every node that `room` was rebuilt here from its log (a
    /// claim), so that connections that reached it elsewhere resume.
    pub fn rehosted(&self, room: &RoomId) {
        let _ = self
            .outbound
            .try_send(Outbound::Announce(Box::new(Envelope::Rehosted {
                room: room.clone(),
            })));
    }

    /// The local connections that reached `room` over the bus, which are
    /// forgotten as its members.
    fn reached(&self, room: &RoomId) -> Vec<ConnId> {
        lock(&self.forwarded)
            .iter_mut()
            .filter_map(|(conn, rooms)| rooms.remove(room).then_some(*conn))
            .collect()
    }

    /// This node hosts `room` now: listen on its channel.
    pub fn host(&self, room: &RoomId) {
        let _ = self.subs.send(Sub::Host(room.clone()));
    }

    /// This node no longer hosts `room`.
    pub fn unhost(&self, room: &RoomId) {
        let _ = self.subs.send(Sub::Unhost(room.clone()));
    }

    /// Queues a room's listing for the cluster's lobby.
    pub fn list(&self, room: &RoomId, key: MatchKey, summary: &RoomSummary) {
        let listing = Listing {
            key,
            summary: summary.clone(),
            at_ms: i64::try_from(crate::clock::now_ms()).unwrap_or(i64::MAX),
        };
        lock(&self.listings).insert(room.clone(), listing);
        self.listed.notify_one();
    }
}

/// Tells the connection a command came on why it went nowhere (a
/// `Detach` has nobody to tell).
fn refuse(dir: &Directory, room: &RoomId, cmd: &RoomCmd, code: ErrorCode, message: &str) {
    let Some(conn) = cmd.conn() else { return };
    if let Some(out) = dir.sessions().outbox(conn) {
        out.send(&ServerMsg::room_error(room, code, message));
    }
}

/// The publisher: sends commands and announcements in order.
async fn publish(dir: Weak<Directory>, shared: Arc<Cluster>, mut queue: mpsc::Receiver<Outbound>) {
    let cluster = &*shared;
    while let Some(job) = queue.recv().await {
        let Some(dir) = dir.upgrade() else { return };
        match job {
            Outbound::Announce(env) => {
                if let Err(e) = cluster.bus.publish(cluster.bus.all_channel(), &env).await {
                    tracing::warn!(error = %e, "a cluster announcement was lost");
                }
            }
            Outbound::Cmd(room, cmd) => {
                {
                    let mut pending = lock(&cluster.pending);
                    if let Some(waiting) = pending.get_mut(&room) {
                        if waiting.len() >= BUS_PENDING_PER_ROOM {
                            drop(pending);
                            refuse(
                                &dir,
                                &room,
                                &cmd,
                                ErrorCode::ServerBusy,
                                "the room is moving between servers; try again",
                            );
                        } else {
                            waiting.push_back(cmd);
                        }
                        continue;
                    }
                }
                match send(&dir, cluster, &room, &cmd).await {
                    Sent::Heard => {}
                    Sent::Unheard => {
                        lock(&cluster.pending).insert(room.clone(), VecDeque::from([cmd]));
                        dir.spawn(resolve(Arc::downgrade(&dir), Arc::clone(&shared), room));
                    }
                    Sent::Failed => refuse(
                        &dir,
                        &room,
                        &cmd,
                        ErrorCode::ServerUnreachable,
                        "the server hosting the room cannot be reached now; try again shortly",
                    ),
                }
            }
        }
    }
}

/// What became of a publish.
enum Sent {
    Heard,
    Unheard,
    Failed,
}

async fn send(dir: &Directory, cluster: &Cluster, room: &RoomId, cmd: &RoomCmd) -> Sent {
    if !cmd.travels() {
        return Sent::Heard;
    }
    // A command whose connection has closed meanwhile (it waited for its
    // room's node) is dropped: sent late, a `resume` would take the seats
    // from the connection the player uses now.
    if cmd
        .conn()
        .is_some_and(|c| dir.sessions().outbox(c).is_none())
    {
        return Sent::Heard;
    }
    let env = Envelope::Cmd {
        gw: cluster.bus.me().to_string(),
        room: room.clone(),
        cmd: cmd.clone(),
    };
    match cluster
        .bus
        .publish(cluster.bus.room_channel(room), &env)
        .await
    {
        Ok(0) => Sent::Unheard,
        Ok(_) => Sent::Heard,
        Err(e) => {
            tracing::warn!(room = %room, error = %e, "a command could not be forwarded");
            Sent::Failed
        }
    }
}

/// Finds where `room` went, for the commands waiting for it: claims it
/// here if it is an orphan, waits for its live owner to listen (at most
/// a lease), or refuses them if it is over or unknown.
async fn resolve(dir: Weak<Directory>, cluster: Arc<Cluster>, room: RoomId) {
    let cluster = &*cluster;
    let give_up = {
        let lease = cluster.store.lease();
        tokio::time::Instant::now() + lease + lease
    };
    loop {
        let Some(d) = dir.upgrade() else { return };
        // Hosted here meanwhile (claimed by a sweep or a resume).
        if d.hosts(&room) {
            return drain(&d, cluster, &room).await;
        }
        let store = &cluster.store;
        match store.whereabouts(&room).await {
            Ok(Whereabouts::Unknown | Whereabouts::Over) => {
                let message = format!("no room {room}");
                return fail(&d, cluster, &room, ErrorCode::RoomNotFound, &message);
            }
            Ok(Whereabouts::Orphaned) => match store.claim_room(&room).await {
                Ok(claimed) => {
                    d.host_claimed(claimed);
                    continue;
                }
                Err(e) => tracing::warn!(room = %room, error = %e, "cannot claim an orphaned room"),
            },
            Ok(Whereabouts::Hosted) => {
                // Its owner may be listening by now.
                let head = lock(&cluster.pending)
                    .get_mut(&room)
                    .and_then(VecDeque::pop_front);
                let Some(head) = head else { return };
                match send(&d, cluster, &room, &head).await {
                    Sent::Heard => {
                        return drain(&d, cluster, &room).await;
                    }
                    Sent::Unheard => {
                        if let Some(q) = lock(&cluster.pending).get_mut(&room) {
                            q.push_front(head);
                        }
                    }
                    Sent::Failed => {
                        refuse(
                            &d,
                            &room,
                            &head,
                            ErrorCode::ServerUnreachable,
                            "the server hosting the room cannot be reached now; try again shortly",
                        );
                    }
                }
            }
            Err(e) => tracing::warn!(room = %room, error = %e, "cannot look a room up"),
        }
        if tokio::time::Instant::now() >= give_up {
            return fail(
                &d,
                cluster,
                &room,
                ErrorCode::ServerUnreachable,
                "the server hosting the room does not answer; try again shortly",
            );
        }
        drop(d);
        tokio::time::sleep(BUS_RETRY_EVERY).await;
    }
}

/// Sends the commands waiting for `room` in order, to its actor if it is
/// hosted here or else over the bus, and stops waiting for it.
async fn drain(dir: &Directory, cluster: &Cluster, room: &RoomId) {
    loop {
        let next = {
            let mut pending = lock(&cluster.pending);
            match pending.get_mut(room).and_then(VecDeque::pop_front) {
                Some(cmd) => cmd,
                None => {
                    pending.remove(room);
                    return;
                }
            }
        };
        if dir.hosts(room) {
            // A join, resume or spectate that waited while the room was
            // rebuilt here attaches its connection to the rebuilt room:
            // that connection is not to be told the room moved.
            if let RoomCmd::Request {
                who,
                req: RoomRequest::Join { .. } | RoomRequest::Resume | RoomRequest::Spectate,
            } = &next
            {
                if let Some(rooms) = lock(&cluster.forwarded).get_mut(&who.conn) {
                    rooms.remove(room);
                }
            }
            if let Err(e) = dir.route_local(room, next) {
                tracing::debug!(room = %room, ?e, "a waiting command found its room gone");
            }
            continue;
        }
        if let Sent::Failed | Sent::Unheard = send(dir, cluster, room, &next).await {
            refuse(
                dir,
                room,
                &next,
                ErrorCode::ServerUnreachable,
                "the server hosting the room cannot be reached now; try again shortly",
            );
        }
    }
}

/// Refuses every command waiting for `room`, and stops waiting for it.
fn fail(dir: &Directory, cluster: &Cluster, room: &RoomId, code: ErrorCode, message: &str) {
    let waiting = lock(&cluster.pending).remove(room).unwrap_or_default();
    for cmd in waiting {
        refuse(dir, room, &cmd, code, message);
    }
}

/// Makes and drops room subscriptions, in order.
async fn subscriptions(cluster: Arc<Cluster>, mut queue: mpsc::UnboundedReceiver<Sub>) {
    while let Some(sub) = queue.recv().await {
        let bus = &cluster.bus;
        let (room, done) = match &sub {
            Sub::Host(room) => (room, bus.subscribe(bus.room_channel(room)).await),
            Sub::Unhost(room) => (room, bus.unsubscribe(bus.room_channel(room)).await),
        };
        if let Err(e) = done {
            tracing::warn!(room = %room, error = %e, ?sub, "a room's bus subscription failed");
        }
    }
}
