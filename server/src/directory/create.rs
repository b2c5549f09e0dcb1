//! Creating rooms: the caps (per creator, per address, per node), the
//! options and clock checked, the deal committed to, the match stored,
//! and lingering finished rooms making way for new ones.

use std::net::IpAddr;
use std::sync::Arc;

use parlor_games::deal::DealSecret;
use parlor_games::GameKind;
use parlor_protocol::{
    Clock, Deal, ErrorCode, EventGame, LadderGame, MatchHeader, MatchedGame, RoomId,
};
use serde_json::Value;
use uuid::Uuid;

use super::registry::{Entry, Registry};
use super::{lock, Directory, Refused};
use crate::admission::address_key;
use crate::clock::now_ms;
use crate::limits::{MAX_CLOCK_MS, MAX_DAYS_PER_MOVE, MAX_OPEN_ROOMS_PER_CREATOR};
use crate::room::{spawn_room, RoomInit};
use crate::store::{MatchRecord, Origin};

/// How long making a room with named seats waits for its actor to store
/// them before going on: a few store writes, so seconds mean the store
/// is in trouble, and the room's making should not hang on it.
const SEATED_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

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
    /// Rated (made by matchmaking, a challenge or a rematch between
    /// accounts that asked for it).
    pub rated: bool,
    /// Whether the creator is signed in to an account (only accounts may
    /// make correspondence rooms).
    pub by_account: bool,
    /// A tournament's or the ladder's game: its id, deal and players are
    /// theirs.
    pub scheduled: Option<ScheduledRoom>,
    /// The accounts a challenge or seek seats, by seat (empty: none): the
    /// header names them and the room holds their seats from its start,
    /// so that making the room and seating its players is one commit.
    pub matched: Vec<String>,
}

/// What a tournament or the ladder decides of one of its games' rooms.
#[derive(Debug)]
pub struct ScheduledRoom {
    /// The room's id, chosen by the scheduler (so that making it again
    /// after a crash finds it made).
    pub id: RoomId,
    /// The deal (an event's is derived from its seed).
    pub secret: DealSecret,
    /// Whose game it is, with its players by seat.
    pub of: Schedule,
}

/// Whose game a scheduled room is (kept in its header).
#[derive(Debug)]
pub enum Schedule {
    /// A tournament's: where in the event, and its players.
    Event(EventGame),
    /// The ladder's: its players, and which are anchors.
    Ladder(LadderGame),
}

/// A room being made, counted against the caps until dropped.
struct Reservation<'a> {
    dir: &'a Directory,
    creator: Option<Uuid>,
    addr: Option<IpAddr>,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        lock(&self.dir.rooms).reserve(self.creator, self.addr, false);
    }
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

impl Directory {
    /// Refuses a creation over one of the caps, or counts the room to be
    /// made against them until the returned reservation is dropped (in
    /// one lock, so that rooms made at once cannot pass a cap together).
    fn check_caps(&self, req: &NewRoom) -> Result<Reservation<'_>, Refused> {
        let too_many = |m: String| Err(Refused::new(ErrorCode::RoomTooMany, m));
        let mut rooms = lock(&self.rooms);
        if rooms.by_id.len() + rooms.reserved >= self.limits.max_rooms {
            return too_many(format!(
                "the server hosts {} rooms, its limit; try later",
                self.limits.max_rooms
            ));
        }
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
        let addr = req.creator_addr.map(address_key);
        rooms.reserve(req.creator, addr, true);
        Ok(Reservation {
            dir: self,
            creator: req.creator,
            addr,
        })
    }

    /// Creates a room.
    pub async fn create(&self, req: NewRoom) -> Result<Created, Refused> {
        // Finished rooms only linger as a courtesy: they make way first.
        self.make_way(|rooms| rooms.by_id.len() + rooms.reserved >= self.limits.max_rooms);
        // Held until the room is registered (or not made): a moment of
        // counting it twice errs on the side of the caps.
        let _reservation = self.check_caps(&req)?;
        let bad = |m: String| Refused::new(ErrorCode::RoomBadOptions, m);
        let game = req.game;
        let seats = req.seats.unwrap_or(game.seat_range().0);
        let options = game
            .parse_config(&req.options)
            .map_err(|e| bad(e.to_string()))?;
        if let Some(clock) = req.clock {
            check_clock(clock).map_err(bad)?;
            if clock.is_correspondence() && !req.by_account {
                return Err(Refused::new(
                    ErrorCode::AuthRequired,
                    "only players with an account may create correspondence rooms; log in first",
                ));
            }
        }
        // The server's half of the deal, committed to now and revealed in
        // the log once the match is over. Until every seat is taken the
        // room shows a provisional deal from it alone.
        // A scheduled game's players are named in its header: the room
        // seats them as it starts.
        let (secret, schedule, fixed_id) = match req.scheduled {
            Some(s) => (s.secret, Some(s.of), Some(s.id)),
            None => (DealSecret::new(rand::random(), rand::random()), None, None),
        };
        let (event_game, ladder_game) = match schedule {
            Some(Schedule::Event(e)) => (Some(Box::new(e)), None),
            Some(Schedule::Ladder(l)) => (None, Some(Box::new(l))),
            None => (None, None),
        };
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
                bot_seats: Vec::new(),
            }),
            rated: req.rated,
            event: event_game,
            ladder: ladder_game,
            matched: (!req.matched.is_empty()).then(|| {
                Box::new(MatchedGame {
                    players: req.matched.clone(),
                })
            }),
            clock: req.clock,
        };
        let names_seats =
            header.event.is_some() || header.ladder.is_some() || header.matched.is_some();
        let (instance, rng) = parlor_protocol::replay(&header, &[]).map_err(|e| match e {
            parlor_protocol::ReplayError::Setup(m) => bad(m),
            other => bad(other.to_string()),
        })?;
        let room = if let Some(id) = fixed_id {
            if lock(&self.rooms).by_id.contains_key(&id) {
                return Err(Refused::new(
                    ErrorCode::RoomBadOptions,
                    format!("room {id} exists"),
                ));
            }
            id
        } else {
            loop {
                let id = Uuid::new_v4().simple().to_string();
                if let Some(id) = RoomId::new(&id[..12]) {
                    if !lock(&self.rooms).by_id.contains_key(&id) {
                        break id;
                    }
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
                created_ms: Some(now_ms()),
            },
        };
        let key = self.store.create_match(record).await.map_err(|e| {
            Refused::new(
                ErrorCode::ServerStorage,
                format!("the room could not be stored: {e}"),
            )
        })?;
        let Some(host) = self.room_host() else {
            return Err(Refused::new(
                ErrorCode::ServerShuttingDown,
                "the server is stopping",
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
            generation: prepared.generation(),
        };
        self.register(&room, entry, &[]);
        let seated = prepared.start_seating(&self.shards, shard);
        if names_seats {
            // Its maker tells the players next: their games list must
            // hold it by then (a client that connected meanwhile misses
            // the notice and reads the list). A slow store only delays
            // the notice; the seats come all the same.
            if tokio::time::timeout(SEATED_WITHIN, seated).await.is_err() {
                tracing::warn!(room = %room, "a new room's named seats were not stored in time");
            }
        }
        Ok(Created {
            room,
            seats,
            commitment,
        })
    }

    /// Closes the oldest lingering finished room if `crowded` says so.
    pub(super) fn make_way(&self, crowded: impl FnOnce(&Registry) -> bool) {
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
}

/// Refuses clock times out of range.
pub fn check_clock(clock: Clock) -> Result<(), String> {
    let (main, inc) = match clock {
        Clock::PerMove { ms } => (ms, 0),
        Clock::Increment {
            main_ms,
            increment_ms,
        } => (main_ms, increment_ms),
        Clock::DaysPerMove(d) if (1..=MAX_DAYS_PER_MOVE).contains(&d) => return Ok(()),
        Clock::DaysPerMove(_) => {
            return Err(format!(
                "days_per_move must be 1 to {MAX_DAYS_PER_MOVE} days"
            ))
        }
    };
    if main == 0 || main > MAX_CLOCK_MS || inc > MAX_CLOCK_MS {
        return Err(format!("clock times must be 1 to {MAX_CLOCK_MS} ms"));
    }
    Ok(())
}
