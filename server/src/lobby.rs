//! The lobby: the registry of rooms, and of which tokens hold seats where.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use parlor_games::{GameKind, GameRng, Seat};
use parlor_protocol::{Clock, ErrorCode, MatchHeader, RoomId, RoomStatus, RoomSummary, SeatRef};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::limits::{MAX_CLOCK_MS, MAX_LINGERING_ROOMS, MAX_OPEN_ROOMS_PER_CREATOR, MAX_ROOMS};
use crate::room::{spawn_restored, spawn_room, RoomCmd, RoomInit};
use crate::store::{MatchRecord, Store, StoreError};

struct Entry {
    tx: mpsc::Sender<RoomCmd>,
    summary: RoomSummary,
    private: bool,
    creator: Option<Uuid>,
    /// Tokens indexed as seated here, to unindex when the room goes.
    seated: Vec<Uuid>,
}

impl Entry {
    /// Whether the room counts against its creator's open rooms.
    fn open_for(&self) -> Option<Uuid> {
        self.creator
            .filter(|_| self.summary.status != RoomStatus::Finished)
    }
}

/// The rooms by id, and how many unfinished rooms each creator has (kept
/// as a count: scanning every room on each `create_room` cost a tenth of
/// the server's time once thousands of finished rooms were lingering).
#[derive(Default)]
struct Rooms {
    by_id: HashMap<RoomId, Entry>,
    open_by_creator: HashMap<Uuid, usize>,
    /// Finished rooms in the order they finished, oldest first; ids of
    /// rooms already gone are dropped from the front as they come up.
    finished: VecDeque<RoomId>,
    /// Finished rooms still in `by_id` (lingering).
    lingering: usize,
}

impl Rooms {
    fn count(&mut self, creator: Option<Uuid>, up: bool) {
        let Some(c) = creator else { return };
        let n = self.open_by_creator.entry(c).or_default();
        if up {
            *n += 1;
        } else {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.open_by_creator.remove(&c);
            }
        }
    }

    fn insert(&mut self, id: RoomId, entry: Entry) {
        // A replaced entry is accounted as removed.
        self.remove(&id);
        self.count(entry.open_for(), true);
        if entry.summary.status == RoomStatus::Finished {
            self.finished.push_back(id.clone());
            self.lingering += 1;
        }
        self.by_id.insert(id, entry);
    }

    fn remove(&mut self, id: &RoomId) -> Option<Entry> {
        let entry = self.by_id.remove(id)?;
        self.count(entry.open_for(), false);
        if entry.summary.status == RoomStatus::Finished {
            self.lingering -= 1;
        }
        self.forget_gone();
        Some(entry)
    }

    /// Whether `id` is a finished room still lingering.
    fn is_lingering(&self, id: &RoomId) -> bool {
        self.by_id
            .get(id)
            .is_some_and(|e| e.summary.status == RoomStatus::Finished)
    }

    /// Drops the ids of rooms already gone from the front of `finished`:
    /// every room lingers equally long, so they leave in the order they
    /// finished and `finished` stays as long as the rooms lingering.
    fn forget_gone(&mut self) {
        while self
            .finished
            .front()
            .is_some_and(|id| !self.is_lingering(id))
        {
            self.finished.pop_front();
        }
    }

    fn set_summary(&mut self, id: &RoomId, summary: RoomSummary, private: bool) {
        let Some(e) = self.by_id.get_mut(id) else {
            return;
        };
        let was = e.open_for();
        let finishing =
            e.summary.status != RoomStatus::Finished && summary.status == RoomStatus::Finished;
        e.summary = summary;
        e.private = private;
        let now = e.open_for();
        if finishing {
            self.finished.push_back(id.clone());
            self.lingering += 1;
        }
        if was != now {
            self.count(was, false);
            self.count(now, true);
        }
    }

    /// Takes out the oldest lingering finished room, if any.
    fn take_oldest_finished(&mut self) -> Option<(RoomId, Entry)> {
        self.forget_gone();
        let id = self.finished.pop_front()?;
        let entry = self.remove(&id)?;
        Some((id, entry))
    }

    fn open_by(&self, creator: Uuid) -> usize {
        self.open_by_creator.get(&creator).copied().unwrap_or(0)
    }
}

/// The rooms a server hosts.
pub struct Lobby {
    rooms: Mutex<Rooms>,
    seats: Mutex<HashMap<Uuid, BTreeMap<RoomId, Seat>>>,
    store: Store,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    max_rooms: usize,
}

impl std::fmt::Debug for Lobby {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lobby")
            .field("rooms", &lock(&self.rooms).by_id.len())
            .finish()
    }
}

/// A refusal: its code and message.
pub type Refused = (ErrorCode, String);

/// Locks a mutex, recovering the data if a panicking thread poisoned it:
/// the maps stay consistent because every update is a single insert/remove.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
}

impl Lobby {
    /// An empty lobby writing to `store`; rooms run on `tracker` and stop
    /// when `shutdown` is cancelled.
    pub fn new(store: Store, tracker: TaskTracker, shutdown: CancellationToken) -> Arc<Self> {
        Self::with_max_rooms(store, tracker, shutdown, MAX_ROOMS)
    }

    /// Like [`Lobby::new`], hosting at most `max_rooms` rooms at once.
    pub fn with_max_rooms(
        store: Store,
        tracker: TaskTracker,
        shutdown: CancellationToken,
        max_rooms: usize,
    ) -> Arc<Self> {
        Arc::new(Lobby {
            rooms: Mutex::new(Rooms::default()),
            seats: Mutex::new(HashMap::new()),
            store,
            tracker,
            shutdown,
            max_rooms,
        })
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The tracker room tasks run on.
    pub fn tracker(&self) -> &TaskTracker {
        &self.tracker
    }

    /// The server's shutdown signal.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Brings back every unfinished match from the store.
    pub async fn restore(self: &Arc<Self>) -> Result<usize, StoreError> {
        let mut restored = 0;
        for m in self.store.unfinished().await? {
            let id = m.record.room.clone();
            match spawn_restored(self, m) {
                Ok(_) => restored += 1,
                Err(e) => {
                    tracing::error!(room = %id, error = %e, "cannot restore a match; it stays in the store")
                }
            }
        }
        Ok(restored)
    }

    /// Creates a room.
    pub async fn create(self: &Arc<Self>, req: NewRoom) -> Result<(RoomId, u8), Refused> {
        if let Some(creator) = req.creator {
            let open = lock(&self.rooms).open_by(creator);
            if open >= MAX_OPEN_ROOMS_PER_CREATOR {
                return Err((
                    ErrorCode::RoomTooMany,
                    format!(
                        "you already have {open} rooms open, the most one player may; finish or leave one first"
                    ),
                ));
            }
        }
        // Finished rooms only linger as a courtesy: they make way first.
        self.make_way(|rooms| rooms.by_id.len() >= self.max_rooms);
        if lock(&self.rooms).by_id.len() >= self.max_rooms {
            return Err((
                ErrorCode::RoomTooMany,
                format!(
                    "the server hosts {} rooms, its limit; try later",
                    self.max_rooms
                ),
            ));
        }
        let bad = |m: String| (ErrorCode::RoomBadOptions, m);
        let game = req.game;
        let (min, max) = game.seat_range();
        let seats = req.seats.unwrap_or(min);
        if !(min..=max).contains(&seats) {
            return Err(bad(format!(
                "{game} is played by {min} to {max} players, not {seats}"
            )));
        }
        let options = game
            .parse_config(&req.options)
            .map_err(|e| bad(e.to_string()))?;
        if let Some(clock) = req.clock {
            let (main, inc) = match clock {
                Clock::PerMove { ms } => (ms, 0),
                Clock::Increment {
                    main_ms,
                    increment_ms,
                } => (main_ms, increment_ms),
            };
            if main == 0 || main > MAX_CLOCK_MS || inc > MAX_CLOCK_MS {
                return Err(bad(format!("clock times must be 1 to {MAX_CLOCK_MS} ms")));
            }
        }
        let seed: u64 = rand::random();
        let mut rng = GameRng::from_seed(seed);
        let instance = game
            .setup(&options, seats, &mut rng)
            .map_err(|e| bad(e.to_string()))?;
        let room = loop {
            let id = Uuid::new_v4().simple().to_string();
            if let Some(id) = RoomId::new(&id[..12]) {
                if !lock(&self.rooms).by_id.contains_key(&id) {
                    break id;
                }
            }
        };
        let header = MatchHeader {
            game,
            options,
            seats,
            seed,
            clock: req.clock,
        };
        let record = MatchRecord {
            room: room.clone(),
            header: header.clone(),
            private: req.private,
        };
        let key = self.store.create_match(record).await.map_err(|e| {
            (
                ErrorCode::ServerStorage,
                format!("the room could not be stored: {e}"),
            )
        })?;
        spawn_room(
            self,
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
        Ok((room, seats))
    }

    /// Registers a room's inbox and first summary (called by the room).
    pub fn insert(
        &self,
        id: &RoomId,
        tx: mpsc::Sender<RoomCmd>,
        summary: RoomSummary,
        private: bool,
        creator: Option<Uuid>,
        seated: Vec<Uuid>,
    ) {
        lock(&self.rooms).insert(
            id.clone(),
            Entry {
                tx,
                summary,
                private,
                creator,
                seated,
            },
        );
    }

    /// Updates a room's summary (called by the room on every change of
    /// seats or status).
    ///
    /// Beyond [`MAX_LINGERING_ROOMS`] finished rooms, the oldest is closed
    /// at once.
    pub fn publish(&self, id: &RoomId, summary: RoomSummary, private: bool) {
        lock(&self.rooms).set_summary(id, summary, private);
        self.make_way(|rooms| rooms.lingering > MAX_LINGERING_ROOMS);
    }

    /// Closes the oldest lingering finished room if `crowded` says so.
    fn make_way(&self, crowded: impl FnOnce(&Rooms) -> bool) {
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

    /// Forgets a room whose actor stopped.
    pub fn remove(&self, id: &RoomId) {
        let Some(entry) = lock(&self.rooms).remove(id) else {
            return;
        };
        self.unindex_room(id, entry);
    }

    /// A room's inbox.
    pub fn room(&self, id: &RoomId) -> Option<mpsc::Sender<RoomCmd>> {
        lock(&self.rooms).by_id.get(id).map(|e| e.tx.clone())
    }

    /// The public rooms, by id.
    pub fn list(&self) -> Vec<RoomSummary> {
        let mut rooms: Vec<RoomSummary> = lock(&self.rooms)
            .by_id
            .values()
            .filter(|e| !e.private)
            .map(|e| e.summary.clone())
            .collect();
        rooms.sort_by(|a, b| a.room.cmp(&b.room));
        rooms
    }

    /// How many rooms are open.
    pub fn len(&self) -> usize {
        lock(&self.rooms).by_id.len()
    }

    /// Whether no room is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records that `token` holds `seat` in `room`.
    pub fn index_seat(&self, token: Uuid, room: &RoomId, seat: Seat) {
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

    /// Records that `token` no longer sits in `room`.
    pub fn unindex_seat(&self, token: Uuid, room: &RoomId) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(creator: Uuid) -> (RoomId, Entry) {
        let id = RoomId::new(&Uuid::new_v4().simple().to_string()[..12])
            .unwrap_or_else(|| unreachable!("12 hex digits are a room id"));
        let (tx, _) = mpsc::channel(1);
        let summary = RoomSummary {
            room: id.clone(),
            game: GameKind::Nimrod,
            status: RoomStatus::Playing,
            seats: Vec::new(),
            spectators: 0,
        };
        let e = Entry {
            tx,
            summary,
            private: false,
            creator: Some(creator),
            seated: Vec::new(),
        };
        (id, e)
    }

    fn finish(rooms: &mut Rooms, id: &RoomId) {
        let mut summary = rooms.by_id[id].summary.clone();
        summary.status = RoomStatus::Finished;
        rooms.set_summary(id, summary, false);
    }

    #[test]
    fn open_rooms_and_lingering_rooms_are_counted_as_they_change() {
        let mut rooms = Rooms::default();
        let alice = Uuid::new_v4();
        let ids: Vec<RoomId> = (0..3)
            .map(|_| {
                let (id, e) = entry(alice);
                rooms.insert(id.clone(), e);
                id
            })
            .collect();
        assert_eq!(rooms.open_by(alice), 3);
        finish(&mut rooms, &ids[0]);
        finish(&mut rooms, &ids[1]);
        assert_eq!((rooms.open_by(alice), rooms.lingering), (1, 2));
        // The first finished room's linger runs out: it is no longer
        // counted, and the oldest one left to make way is the second.
        assert!(rooms.remove(&ids[0]).is_some());
        assert_eq!((rooms.lingering, rooms.finished.len()), (1, 1));
        let taken = rooms.take_oldest_finished().map(|(id, _)| id);
        assert_eq!(taken.as_ref(), Some(&ids[1]));
        assert_eq!(rooms.lingering, 0);
        // A room still playing never makes way.
        assert!(rooms.take_oldest_finished().is_none());
        assert_eq!(rooms.open_by(alice), 1);
    }
}
