//! The room directory: the one narrow interface between connections and
//! rooms.
//!
//! Sessions send commands to rooms by room id ([`Directory::route`]), ask
//! which seats a token holds, and list rooms a page at a time. Rooms
//! report their changes back as [`RoomEvent`]s and reach connections by
//! id, never holding a session's channel of their own accord. The
//! directory owns room lifetimes: it creates rooms within the caps, keeps
//! finished ones lingering a while, and forgets rooms whose actor stopped
//! (rooms nobody plays in close themselves after [`Lifetimes`]). A
//! cluster's directory is a second implementation of this interface.

mod census;
mod cluster;
mod listing;
mod registry;

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use parlor_games::deal::DealSecret;
use parlor_games::{GameKind, Seat};
use parlor_protocol::{Clock, Deal, ErrorCode, MatchHeader, RoomId, SeatRef};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

pub use listing::{ListQuery, Page};

use crate::admission::address_key;
use crate::bus::Bus;
use crate::limits::{Limits, MAX_CLOCK_MS, MAX_LINGERING_ROOMS, MAX_OPEN_ROOMS_PER_CREATOR};
use crate::outbox::{ConnId, Outbox};
use crate::room::{
    spawn_restored, spawn_room, unix_ms, Lifetimes, RoomCmd, RoomEvent, RoomHost, RoomInit,
};
use crate::shard::Shards;
use crate::store::{MatchRecord, Origin, Store, StoreError, StoredMatch};
use registry::{Entry, Registry};

/// A refusal: its code and message.
pub type Refused = (ErrorCode, String);

/// Why a command did not reach its room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrouted {
    /// No room has that id (or it has closed).
    NotFound,
    /// The room's inbox is full.
    Busy,
}

/// What `create_room` asks for.
#[derive(Debug)]
pub struct NewRoom {
    /// The game.
    pub game: GameKind,
    /// Seats, default the game's fewest.
    pub seats: Option<u8>,
    /// Options, `null` for defaults.
    pub options: Value,
    /// A clock.
    pub clock: Option<Clock>,
    /// Not listed.
    pub private: bool,
    /// The creator's token: besides seated players, only the creator may
    /// seat bots (so a stranger who learns a room's id cannot fill it).
    pub creator: Option<Uuid>,
    /// The creator's address, for the per-address cap.
    pub creator_addr: Option<IpAddr>,
}

/// A room just created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Created {
    /// Its id.
    pub room: RoomId,
    /// Its seats.
    pub seats: u8,
    /// The commitment to its deal seed.
    pub commitment: String,
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it:
/// the maps stay consistent because every update is a single insert/remove.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The rooms one node hosts, and the connections it serves.
pub struct Directory {
    me: Weak<Directory>,
    rooms: Mutex<Registry>,
    seats: Mutex<HashMap<Uuid, BTreeMap<RoomId, Seat>>>,
    conns: Mutex<HashMap<ConnId, Outbox>>,
    /// Which connection speaks for each token now.
    owners: Mutex<HashMap<Uuid, ConnId>>,
    store: Store,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    limits: Limits,
    /// The threads rooms run on.
    shards: Arc<Shards>,
    /// Cluster mode with a bus: forwarding, stand-ins and the shared lobby.
    cluster: Option<cluster::Cluster>,
}

impl std::fmt::Debug for Directory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Directory")
            .field("rooms", &lock(&self.rooms).by_id.len())
            .field("connections", &lock(&self.conns).len())
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
    /// bus, and the lobby is the database's. Rooms run on `shards`.
    pub fn with_bus(
        store: Store,
        tracker: TaskTracker,
        shutdown: CancellationToken,
        limits: Limits,
        bus: Option<Bus>,
        shards: Arc<Shards>,
    ) -> Arc<Self> {
        let (cluster, queues) = match bus.filter(|_| store.is_shared()) {
            Some(bus) => {
                let (c, q) = cluster::Cluster::new(bus);
                (Some(c), Some(q))
            }
            None => (None, None),
        };
        let stop = shutdown.clone();
        let dir = Arc::new_cyclic(|me| Directory {
            me: me.clone(),
            rooms: Mutex::new(Registry::default()),
            seats: Mutex::new(HashMap::new()),
            conns: Mutex::new(HashMap::new()),
            owners: Mutex::new(HashMap::new()),
            store,
            tracker,
            shutdown,
            limits,
            shards,
            cluster,
        });
        if let Some(queues) = queues {
            cluster::Cluster::start(&dir, queues, stop);
        }
        dir
    }

    fn host(&self) -> Option<Arc<dyn RoomHost>> {
        self.me.upgrade().map(|d| d as Arc<dyn RoomHost>)
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The threads rooms and connections run on.
    pub fn shards(&self) -> &Arc<Shards> {
        &self.shards
    }

    /// The shard room `room`'s actor runs on, if it is hosted here on one.
    pub fn shard_of(&self, room: &RoomId) -> Option<usize> {
        lock(&self.rooms).by_id.get(room).and_then(|e| e.shard)
    }

    /// Brings back the unfinished matches this node is to host: on
    /// SQLite every one; in a shared store (cluster mode) its share of the
    /// orphans, after which it keeps claiming orphans as other nodes stop
    /// or die (on the tracker, until shutdown).
    pub async fn restore(&self) -> Result<usize, StoreError> {
        if self.store.is_shared() {
            let claimed = self.store.claim().await?;
            let hosted = self.host_all(claimed);
            if let Some(me) = self.me.upgrade() {
                self.tracker.spawn(me.keep_claiming());
            }
            return Ok(hosted);
        }
        let unfinished = self.store.unfinished().await?;
        Ok(self.host_all(unfinished))
    }

    /// Rebuilds and starts each stored match; how many run.
    fn host_all(&self, matches: Vec<StoredMatch>) -> usize {
        let Some(host) = self.host() else {
            return 0;
        };
        let mut hosted = 0;
        for m in matches {
            let id = m.record.room.clone();
            let origin = m.record.origin;
            let epoch = m.key.epoch();
            // Hosted already at this epoch (or a later one): one actor a room.
            if lock(&self.rooms)
                .by_id
                .get(&id)
                .is_some_and(|e| e.key.epoch() >= epoch)
            {
                tracing::warn!(room = %id, epoch, "a room read back twice is hosted once");
                continue;
            }
            let key = m.key;
            match spawn_restored(&host, m) {
                Ok(prepared) => {
                    let shard = self.shards.place_room();
                    let entry = Entry {
                        tx: prepared.tx.clone(),
                        summary: Arc::new(prepared.summary()),
                        private: prepared.private(),
                        creator: origin.creator,
                        creator_addr: origin.addr,
                        seated: Vec::new(),
                        key,
                        shard,
                    };
                    self.register(&id, entry, &prepared.seated());
                    prepared.start(&self.shards, shard);
                    if let Some(cluster) = &self.cluster {
                        cluster.rehosted(&id);
                    }
                    hosted += 1;
                }
                Err(e) => {
                    tracing::error!(room = %id, error = %e, "cannot restore a match; it stays in the store")
                }
            }
        }
        hosted
    }

    /// Cluster mode: claims orphaned rooms as they appear (a node that
    /// stopped or died), and gives up every room at once when this node
    /// loses its lease (they are claimed again at a higher epoch, by the
    /// others or by this node under its new id). Runs until shutdown.
    async fn keep_claiming(self: Arc<Self>) {
        let Some((mut generations, every)) = self.store.ownership() else {
            return;
        };
        generations.mark_unchanged();
        loop {
            tokio::select! {
                _ = self.shutdown.cancelled() => return,
                changed = generations.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    self.relinquish_all();
                }
                _ = tokio::time::sleep(every) => {}
            }
            match self.store.claim().await {
                Ok(claimed) if !claimed.is_empty() => {
                    // Rooms given up in the meantime go first, so that a
                    // room taken back does not meet its old actor.
                    if generations.has_changed().unwrap_or(false) {
                        generations.mark_unchanged();
                        self.relinquish_all();
                    }
                    self.host_all(claimed);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "cannot claim orphaned rooms"),
            }
        }
    }

    /// Gives up every room this node hosts: each tells its members the
    /// room moved and stops.
    fn relinquish_all(&self) {
        let entries: Vec<(RoomId, Entry)> = {
            let mut rooms = lock(&self.rooms);
            let ids: Vec<RoomId> = rooms.by_id.keys().cloned().collect();
            ids.into_iter()
                .filter_map(|id| rooms.remove(&id).map(|e| (id, e)))
                .collect()
        };
        tracing::warn!(
            rooms = entries.len(),
            "giving up every room: this node lost its lease"
        );
        for (id, entry) in entries {
            // A full inbox: the actor still stops once it is drained, the
            // registry's sender being gone, and its writes are fenced.
            let _ = entry.tx.try_send(RoomCmd::Relinquish);
            self.unindex_room(&id, entry);
        }
    }

    fn register(&self, id: &RoomId, entry: Entry, seated: &[(Uuid, Seat)]) {
        if let Some(cluster) = &self.cluster {
            cluster.host(id);
            if !entry.private {
                self.list_in_cluster(cluster, id, entry.key, &entry.summary);
            }
        }
        let replaced = lock(&self.rooms).insert(id.clone(), entry);
        if let Some(old) = replaced {
            let _ = old.tx.try_send(RoomCmd::Relinquish);
        }
        for (token, seat) in seated {
            self.index_seat(*token, id, *seat);
        }
    }

    /// Refuses a creation over one of the caps.
    fn check_caps(&self, req: &NewRoom) -> Result<(), Refused> {
        let too_many = |m: String| Err((ErrorCode::RoomTooMany, m));
        let rooms = lock(&self.rooms);
        if let Some(creator) = req.creator {
            let open = rooms.open_by(creator);
            if open >= MAX_OPEN_ROOMS_PER_CREATOR {
                return too_many(format!(
                    "you already have {open} unfinished rooms, the most one player may; finish or leave one first"
                ));
            }
        }
        let per_addr = self.limits.rooms_per_address;
        if let (Some(addr), true) = (req.creator_addr, per_addr > 0) {
            let open = rooms.open_from(address_key(addr));
            if open >= per_addr {
                return too_many(format!(
                    "your address already has {open} unfinished rooms, the most one address may; finish one first"
                ));
            }
        }
        Ok(())
    }

    /// Creates a room.
    pub async fn create(&self, req: NewRoom) -> Result<Created, Refused> {
        self.check_caps(&req)?;
        // Finished rooms only linger as a courtesy: they make way first.
        self.make_way(|rooms| rooms.by_id.len() >= self.limits.max_rooms);
        if lock(&self.rooms).by_id.len() >= self.limits.max_rooms {
            return Err((
                ErrorCode::RoomTooMany,
                format!(
                    "the server hosts {} rooms, its limit; try later",
                    self.limits.max_rooms
                ),
            ));
        }
        let bad = |m: String| (ErrorCode::RoomBadOptions, m);
        let game = req.game;
        let seats = req.seats.unwrap_or(game.seat_range().0);
        let options = game
            .parse_config(&req.options)
            .map_err(|e| bad(e.to_string()))?;
        if let Some(clock) = req.clock {
            check_clock(clock).map_err(bad)?;
        }
        // The server's half of the deal, committed to now and revealed in
        // the log once the match is over. Until every seat is taken the
        // room shows a provisional deal from it alone.
        let secret = DealSecret::new(rand::random(), rand::random());
        let commitment = secret.commitment();
        let header = MatchHeader {
            game,
            options,
            seats,
            seed: None,
            deal: Some(Deal {
                commitment: commitment.clone(),
                server_seed: secret.seed_hex(),
                salt: secret.salt_hex(),
                client_seeds: vec![None; usize::from(seats)],
            }),
            clock: req.clock,
        };
        let (instance, rng) = parlor_protocol::replay(&header, &[]).map_err(|e| match e {
            parlor_protocol::ReplayError::Setup(m) => bad(m),
            other => bad(other.to_string()),
        })?;
        let room = loop {
            let id = Uuid::new_v4().simple().to_string();
            if let Some(id) = RoomId::new(&id[..12]) {
                if !lock(&self.rooms).by_id.contains_key(&id) {
                    break id;
                }
            }
        };
        let creator_addr = req.creator_addr.map(address_key);
        let record = MatchRecord {
            room: room.clone(),
            header: header.clone(),
            private: req.private,
            origin: Origin {
                creator: req.creator,
                addr: creator_addr,
                created_ms: Some(unix_ms()),
            },
        };
        let key = self.store.create_match(record).await.map_err(|e| {
            (
                ErrorCode::ServerStorage,
                format!("the room could not be stored: {e}"),
            )
        })?;
        let Some(host) = self.host() else {
            return Err((
                ErrorCode::ServerShuttingDown,
                "the server is stopping".into(),
            ));
        };
        let prepared = spawn_room(
            &host,
            RoomInit {
                room: room.clone(),
                key,
                header,
                private: req.private,
                creator: req.creator,
            },
            instance,
            rng,
        );
        let shard = self.shards.place_room();
        let entry = Entry {
            tx: prepared.tx.clone(),
            summary: Arc::new(prepared.summary()),
            private: req.private,
            creator: req.creator,
            creator_addr,
            seated: Vec::new(),
            key,
            shard,
        };
        self.register(&room, entry, &[]);
        prepared.start(&self.shards, shard);
        Ok(Created {
            room,
            seats,
            commitment,
        })
    }

    /// Closes the oldest lingering finished room if `crowded` says so.
    fn make_way(&self, crowded: impl FnOnce(&Registry) -> bool) {
        let evicted = {
            let mut rooms = lock(&self.rooms);
            if crowded(&rooms) {
                rooms.take_oldest_finished()
            } else {
                None
            }
        };
        if let Some((id, entry)) = evicted {
            self.unindex_room(&id, entry);
        }
    }

    /// Forgets the seats held in a room taken out of the registry. Its
    /// actor stops once the registry's sender is gone and no request is in
    /// flight (requests find no room from now on).
    fn unindex_room(&self, id: &RoomId, entry: Entry) {
        if let Some(cluster) = &self.cluster {
            cluster.unhost(id);
        }
        let mut seats = lock(&self.seats);
        for token in entry.seated {
            if let Some(rooms) = seats.get_mut(&token) {
                rooms.remove(id);
                if rooms.is_empty() {
                    seats.remove(&token);
                }
            }
        }
    }

    /// Sends `cmd` to room `room`: to its actor if it is hosted here, else
    /// (cluster mode) over the bus to the node that hosts it.
    pub fn route(&self, room: &RoomId, cmd: RoomCmd) -> Result<(), Unrouted> {
        // One registry lookup: a room not hosted here hands the command
        // back, for the bus.
        match (self.try_local(room, cmd), &self.cluster) {
            (Ok(()), _) => Ok(()),
            (Err((_, Some(cmd))), Some(cluster)) => cluster.forward(room, cmd),
            (Err((why, _)), _) => Err(why),
        }
    }

    /// Whether this node hosts `room`.
    fn hosts(&self, room: &RoomId) -> bool {
        lock(&self.rooms).by_id.contains_key(room)
    }

    /// Sends `cmd` to room `room`'s actor, here.
    fn route_local(&self, room: &RoomId, cmd: RoomCmd) -> Result<(), Unrouted> {
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
        match (&self.cluster, self.store.cluster()) {
            (Some(_), Some(store)) => cluster::list_cluster(self, store, q).await.map_err(|e| {
                (
                    ErrorCode::ServerStorage,
                    format!("the rooms could not be listed: {e}"),
                )
            }),
            _ => {
                let mut rooms = lock(&self.rooms);
                rooms.prune_recent();
                Ok(listing::page(&rooms.listed, q))
            }
        }
    }

    /// Queues a room's listing for the cluster's lobby.
    fn list_in_cluster(
        &self,
        cluster: &cluster::Cluster,
        room: &RoomId,
        key: crate::store::MatchKey,
        summary: &parlor_protocol::RoomSummary,
    ) {
        cluster.listing(
            room,
            crate::store::Listing {
                key,
                summary: summary.clone(),
                at_ms: i64::try_from(unix_ms()).unwrap_or(i64::MAX),
            },
        );
    }

    /// How many rooms are open.
    pub fn len(&self) -> usize {
        lock(&self.rooms).by_id.len()
    }

    /// Whether no room is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn index_seat(&self, token: Uuid, room: &RoomId, seat: Seat) {
        if let Some(e) = lock(&self.rooms).by_id.get_mut(room) {
            if !e.seated.contains(&token) {
                e.seated.push(token);
            }
        }
        lock(&self.seats)
            .entry(token)
            .or_default()
            .insert(room.clone(), seat);
    }

    fn unindex_seat(&self, token: Uuid, room: &RoomId) {
        let mut seats = lock(&self.seats);
        if let Some(rooms) = seats.get_mut(&token) {
            rooms.remove(room);
            if rooms.is_empty() {
                seats.remove(&token);
            }
        }
    }

    /// The seats `token` holds.
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

    /// The seats `token` holds, for a player resuming. In cluster mode,
    /// the rooms of the token's that nobody hosts any more (their node
    /// stopped or died) are claimed here first, and a room whose node just
    /// died is waited for, at most a lease (it holds its rooms until its
    /// lease runs out). With a bus, the seats are those held anywhere in
    /// the cluster; without one, those in rooms hosted here. `Err`: the
    /// store could not be asked, and no seat of the token is hosted here.
    pub async fn seats_for_resume(&self, token: Uuid) -> Result<Vec<SeatRef>, StoreError> {
        let Some((_, every)) = self.store.ownership() else {
            return Ok(self.seats_of(token));
        };
        let give_up = tokio::time::Instant::now() + self.store.lease().unwrap_or_default() + every;
        loop {
            let found = match self.store.claim_for(token).await {
                Ok((claimed, rooms)) => {
                    self.host_all(claimed);
                    self.seats_where(token, rooms).await
                }
                Err(e) => Err(e),
            };
            match found {
                Ok((seats, settled)) => {
                    if settled || tokio::time::Instant::now() >= give_up {
                        return Ok(seats);
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot look for a resuming player's rooms");
                    // Seats here can be resumed; with none, the player
                    // must not be told the token holds nothing.
                    let here = self.seats_of(token);
                    return if here.is_empty() { Err(e) } else { Ok(here) };
                }
            }
            tokio::select! {
                _ = self.shutdown.cancelled() => return Ok(self.seats_of(token)),
                _ = tokio::time::sleep(every) => {}
            }
        }
    }

    /// The seats a resuming `token` holds (in `rooms` unfinished rooms,
    /// wherever they are), and whether every one of their rooms is hosted
    /// where this node can reach it now.
    async fn seats_where(
        &self,
        token: Uuid,
        rooms: i64,
    ) -> Result<(Vec<SeatRef>, bool), StoreError> {
        let mut seats = self.seats_of(token);
        let (Some(_), Some(store)) = (&self.cluster, self.store.cluster()) else {
            // One seat a room per token: every room is here (a room this
            // node claimed is hosted a moment after).
            let all_here = i64::try_from(seats.len()).unwrap_or(i64::MAX) >= rooms;
            return Ok((seats, all_here));
        };
        let held = store.held_seats(token).await?;
        let settled = held.iter().all(|h| h.hosted || self.hosts(&h.room));
        // Finished rooms lingering here keep their seats too.
        for h in held {
            if !seats.iter().any(|s| s.room == h.room) {
                seats.push(SeatRef {
                    room: h.room,
                    seat: h.seat,
                });
            }
        }
        seats.sort_by(|a, b| a.room.cmp(&b.room));
        Ok((seats, settled))
    }

    /// Registers a connection speaking for `token`.
    pub fn connect(&self, out: &Outbox, token: Uuid) {
        lock(&self.conns).insert(out.id(), out.clone());
        lock(&self.owners).insert(token, out.id());
    }

    /// Makes `conn` the connection speaking for `token`; returns the one
    /// that spoke for it before, if it is another.
    pub fn take_over(&self, token: Uuid, conn: ConnId) -> Option<Outbox> {
        if let Some(cluster) = &self.cluster {
            // A connection on another node that spoke for it closes too.
            cluster.taken_over(token, conn);
        }
        let old = lock(&self.owners).insert(token, conn)?;
        if old == conn {
            return None;
        }
        lock(&self.conns).get(&old).cloned()
    }

    /// `conn` no longer speaks for `token` (if it still did).
    pub fn release(&self, token: Uuid, conn: ConnId) {
        let mut owners = lock(&self.owners);
        if owners.get(&token) == Some(&conn) {
            owners.remove(&token);
        }
    }

    /// Forgets a closed connection.
    pub fn disconnect(&self, conn: ConnId, token: Uuid) {
        if let Some(cluster) = &self.cluster {
            cluster.closed(conn);
        }
        lock(&self.conns).remove(&conn);
        self.release(token, conn);
    }
}

/// Refuses clock times out of range.
fn check_clock(clock: Clock) -> Result<(), String> {
    let (main, inc) = match clock {
        Clock::PerMove { ms } => (ms, 0),
        Clock::Increment {
            main_ms,
            increment_ms,
        } => (main_ms, increment_ms),
    };
    if main == 0 || main > MAX_CLOCK_MS || inc > MAX_CLOCK_MS {
        return Err(format!("clock times must be 1 to {MAX_CLOCK_MS} ms"));
    }
    Ok(())
}

impl RoomHost for Directory {
    fn report(&self, event: RoomEvent) {
        match event {
            RoomEvent::Changed {
                room,
                summary,
                private,
            } => {
                if let Some(cluster) = &self.cluster {
                    let key = lock(&self.rooms).by_id.get(&room).map(|e| e.key);
                    if let (Some(key), false) = (key, private) {
                        self.list_in_cluster(cluster, &room, key, &summary);
                    }
                }
                lock(&self.rooms).set_summary(&room, summary, private);
                // Beyond the lingering cap, the oldest finished room closes.
                self.make_way(|rooms| rooms.lingering > MAX_LINGERING_ROOMS);
            }
            RoomEvent::Seated { room, token, seat } => self.index_seat(token, &room, seat),
            RoomEvent::Unseated { room, token } => self.unindex_seat(token, &room),
            RoomEvent::Stopped { room, epoch } => {
                let entry = {
                    let mut rooms = lock(&self.rooms);
                    // A room taken back runs at a higher epoch: keep it.
                    if rooms
                        .by_id
                        .get(&room)
                        .is_some_and(|e| e.key.epoch() == epoch)
                    {
                        rooms.remove(&room)
                    } else {
                        None
                    }
                };
                if let Some(entry) = entry {
                    self.unindex_room(&room, entry);
                }
            }
        }
    }

    fn outbox(&self, conn: ConnId) -> Option<Outbox> {
        lock(&self.conns)
            .get(&conn)
            .filter(|o| o.is_open())
            .cloned()
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
