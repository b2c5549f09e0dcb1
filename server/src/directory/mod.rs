//! The room directory: the one narrow interface between connections and
//! rooms.
//!
//! Sessions send commands to rooms by room id ([`Directory::route`]), ask
//! which seats a token holds, and list rooms a page at a time. Rooms
//! report their changes back as [`RoomEvent`]s and reach connections by
//! id, never holding a session's channel of their own accord. The
//! directory owns room lifetimes: it creates rooms within the caps
//! (`create`), hosts restored and claimed ones and forgets rooms whose
//! actor stopped (`hosting`; rooms nobody plays in close themselves after
//! [`Lifetimes`]), and keeps the sessions it serves (`sessions`). A room's
//! lifecycle reads in `room` (its actor) and `hosting` (its place here).
//!
//! There is one directory. How the node runs (`Mode`:
//! alone, on a shared database, or on a shared database with a bus) is
//! decided once, when it is made; with a bus, `cluster` adds forwarding,
//! stand-ins and the shared lobby, through the few `pub(super)` methods
//! below (route here, outbox, sessions, host) and no private field.

mod census;
mod cluster;
mod create;
mod credentials;
mod hosting;
mod listing;
mod mode;
mod players;
mod refused;
mod registry;
mod rematch;
mod resume;
mod sessions;
mod spec;
mod summons;

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use parlor_protocol::{ErrorCode, RoomId};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use create::{check_clock, Created, NewRoom, Schedule, ScheduledRoom};
pub use listing::{ListQuery, Page};
pub use refused::Refused;
pub use spec::RoomSpec;
pub use summons::{Summons, SUMMONS_QUEUE};

use crate::bus::Bus;
use crate::limits::{Limits, MAX_LINGERING_ROOMS};
use crate::outbox::{ConnId, Outbox};
use crate::room::{Lifetimes, RoomCmd, RoomEvent, RoomHost};
use crate::shard::Shards;
use crate::store::Store;
use mode::Mode;
use players::Players;
use registry::Registry;
use sessions::Sessions;
use summons::Summoning;

/// Why a command did not reach its room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrouted {
    /// No room has that id (or it has closed).
    NotFound,
    /// The room's inbox is full.
    Busy,
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it:
/// the maps stay consistent because every update is a single insert/remove.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The rooms one node hosts, and the connections it serves.
pub struct Directory {
    me: Weak<Directory>,
    rooms: Mutex<Registry>,
    sessions: Sessions,
    /// Which connections act as which account.
    players: Players,
    /// Which connections signed in with which credential.
    credentials: credentials::Bound,
    /// Sessions that may be seated from outside.
    summoning: Summoning,
    /// Woken when another node placed seekers (cluster mode).
    placed: tokio::sync::Notify,
    store: Store,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    limits: Limits,
    /// The threads rooms run on.
    shards: Arc<Shards>,
    /// Alone, on a shared database, or with a bus too.
    mode: Mode,
}

impl std::fmt::Debug for Directory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Directory")
            .field("rooms", &lock(&self.rooms).by_id.len())
            .field("connections", &self.sessions.count())
            .finish()
    }
}

impl Directory {
    /// An empty directory writing to `store`; rooms run on `tracker` and
    /// stop when `shutdown` is cancelled.
    pub fn new(
        store: Store,
        tracker: TaskTracker,
        shutdown: CancellationToken,
        limits: Limits,
    ) -> Arc<Self> {
        Self::with_bus(store, tracker, shutdown, limits, None, Shards::inline())
    }

    /// [`Directory::new`], in cluster mode on `bus` when given (the store
    /// must then be shared): rooms hosted elsewhere are reached over the
    /// bus, and the lobby is the database's. Rooms run on `shards`. The
    /// node's `Mode` is decided here, once.
    pub fn with_bus(
        store: Store,
        tracker: TaskTracker,
        shutdown: CancellationToken,
        limits: Limits,
        bus: Option<Bus>,
        shards: Arc<Shards>,
    ) -> Arc<Self> {
        let (mode, queues) = match (store.cluster().cloned(), bus) {
            (None, _) => (Mode::Single, None),
            (Some(shared), None) => (Mode::Shared(shared), None),
            (Some(shared), Some(bus)) => {
                let (cluster, queues) = cluster::Cluster::new(bus, shared.clone());
                (Mode::Bus(shared, Arc::new(cluster)), Some(queues))
            }
        };
        let dir = Arc::new_cyclic(|me| Directory {
            me: me.clone(),
            rooms: Mutex::new(Registry::default()),
            sessions: Sessions::default(),
            players: Players::default(),
            credentials: credentials::Bound::default(),
            summoning: Summoning::default(),
            placed: tokio::sync::Notify::new(),
            store,
            tracker,
            shutdown,
            limits,
            shards,
            mode,
        });
        if let (Some(cluster), Some(queues)) = (dir.mode.bus(), queues) {
            cluster::Cluster::start(cluster, &dir, queues);
        }
        dir
    }

    /// This directory as its rooms' host (`None` once it is dropped).
    fn room_host(&self) -> Option<Arc<dyn RoomHost>> {
        self.me.upgrade().map(|d| d as Arc<dyn RoomHost>)
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The limits the server runs with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The threads rooms and connections run on.
    pub fn shards(&self) -> &Arc<Shards> {
        &self.shards
    }

    /// The shard room `room`'s actor runs on, if it is hosted here on one.
    pub fn shard_of(&self, room: &RoomId) -> Option<usize> {
        lock(&self.rooms).by_id.get(room).and_then(|e| e.shard)
    }

    /// Runs `task` on the node's tracker until shutdown.
    pub(super) fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let stop = self.shutdown.clone();
        self.tracker.spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = task => {}
            }
        });
    }

    /// Sends `cmd` to room `room`: to its actor if it is hosted here, else
    /// (cluster mode) over the bus to the node that hosts it.
    pub fn route(&self, room: &RoomId, cmd: RoomCmd) -> Result<(), Unrouted> {
        // One registry lookup: a room not hosted here hands the command
        // back, for the bus.
        match (self.try_local(room, cmd), self.mode.bus()) {
            (Ok(()), _) => Ok(()),
            (Err((_, Some(cmd))), Some(cluster)) => cluster.forward(room, cmd),
            (Err((why, _)), _) => Err(why),
        }
    }

    /// Whether this node hosts `room`.
    pub(super) fn hosts(&self, room: &RoomId) -> bool {
        lock(&self.rooms).by_id.contains_key(room)
    }

    /// Sends `cmd` to room `room`'s actor, here.
    pub(super) fn route_local(&self, room: &RoomId, cmd: RoomCmd) -> Result<(), Unrouted> {
        self.try_local(room, cmd).map_err(|(why, _)| why)
    }

    /// [`Directory::route_local`], handing the command back when no actor
    /// here takes it (none hosts the room, or it has stopped).
    fn try_local(&self, room: &RoomId, cmd: RoomCmd) -> Result<(), (Unrouted, Option<RoomCmd>)> {
        let tx = lock(&self.rooms).by_id.get(room).map(|e| e.tx.clone());
        let Some(tx) = tx else {
            return Err((Unrouted::NotFound, Some(cmd)));
        };
        tx.try_send(cmd).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => (Unrouted::Busy, None),
            mpsc::error::TrySendError::Closed(cmd) => (Unrouted::NotFound, Some(cmd)),
        })
    }

    /// One page of the public rooms: this node's, or in cluster mode
    /// (with a bus) the cluster's, from the database.
    pub async fn list(&self, q: &ListQuery) -> Result<Page, Refused> {
        match &self.mode {
            Mode::Bus(store, _) => cluster::list_cluster(self, store, q).await.map_err(|e| {
                Refused::new(
                    ErrorCode::ServerStorage,
                    format!("the rooms could not be listed: {e}"),
                )
            }),
            Mode::Single | Mode::Shared(_) => {
                let mut rooms = lock(&self.rooms);
                rooms.prune_recent();
                Ok(listing::page(&rooms.listed, q))
            }
        }
    }

    /// How many rooms are open.
    pub fn len(&self) -> usize {
        lock(&self.rooms).by_id.len()
    }

    /// Whether no room is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl RoomHost for Directory {
    fn report(&self, event: RoomEvent) {
        match event {
            RoomEvent::Changed {
                room,
                summary,
                private,
            } => {
                if let Some(cluster) = self.mode.bus() {
                    let key = lock(&self.rooms).by_id.get(&room).map(|e| e.key);
                    if let (Some(key), false) = (key, private) {
                        cluster.list(&room, key, &summary);
                    }
                }
                lock(&self.rooms).set_summary(&room, summary, private);
                // Beyond the lingering cap, the oldest finished room closes.
                self.make_way(|rooms| rooms.lingering > MAX_LINGERING_ROOMS);
            }
            RoomEvent::Seated { room, token, seat } => self.index_seat(token, &room, seat),
            RoomEvent::Unseated { room, token } => self.sessions.unseat(token, &room),
            RoomEvent::Rematch(plan) => self.start_rematch(plan),
            RoomEvent::Stopped { room, epoch } => self.stopped(&room, epoch),
            RoomEvent::YourTurn {
                account_key,
                room,
                game,
                seat,
                deadline_ms,
                except,
            } => {
                let msg = parlor_protocol::ServerMsg::YourTurn {
                    room,
                    game,
                    seat,
                    deadline_ms,
                };
                self.notify_account(&account_key, &msg, &except);
            }
        }
    }

    fn outbox(&self, conn: ConnId) -> Option<Outbox> {
        self.sessions.outbox(conn)
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn tracker(&self) -> &TaskTracker {
        &self.tracker
    }

    fn shutdown(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    fn lifetimes(&self) -> Lifetimes {
        Lifetimes {
            unstarted: self.limits.unstarted_room_timeout,
            abandoned: self.limits.abandoned_room_timeout,
        }
    }
}
