//! Making a room's actor: for a new match, or for one restored from the store.

use std::sync::Arc;

use std::time::Duration;

use parlor_games::{AnyBot, AnyGame, GameRng};
use parlor_protocol::{LoggedAction, MatchHeader, RoomId, RoomSummary};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use uuid::Uuid;

use super::actor::Room;
use super::attached::Attached;
use super::clock::Clocks;
use super::expiry::Lifetime;
use super::fencing::Fencing;
use super::rating::RoomRatings;
use super::rematch::Offers;
use super::slot::Slot;
use super::{RoomCmd, RoomHost};
use crate::limits::ROOM_INBOX_CAPACITY;
use crate::shard::Shards;
use crate::store::{MatchKey, StoredMatch, StoredSeat};

/// A new room's identity and header.
#[derive(Debug)]
pub struct RoomInit {
    /// Its id.
    pub room: RoomId,
    /// Its number in the store.
    pub key: MatchKey,
    /// Game, options, seats, seed and clock.
    pub header: MatchHeader,
    /// Not listed.
    pub private: bool,
    /// Who created it (may seat bots without sitting down).
    pub creator: Option<Uuid>,
}

/// Bots draw from their own RNG, so that their choices never shift the
/// game's chance stream; their moves are logged, so it needs no seed
/// anyone could replay.
fn bot_rng() -> GameRng {
    GameRng::from_seed(rand::random())
}

/// A room ready to run: its host registers it, then starts it (so that
/// nothing the actor reports can arrive before the registration).
#[derive(Debug)]
pub struct Prepared {
    room: Room,
    rx: mpsc::Receiver<RoomCmd>,
    /// Its inbox.
    pub tx: mpsc::Sender<RoomCmd>,
}

impl Prepared {
    fn new(room: Room) -> Self {
        let (tx, rx) = mpsc::channel(ROOM_INBOX_CAPACITY);
        Prepared { room, rx, tx }
    }

    /// Its listing.
    pub fn summary(&self) -> RoomSummary {
        self.room.summary()
    }

    /// Not listed.
    pub fn private(&self) -> bool {
        self.room.private
    }

    /// Cluster mode: the node's lease generation it is held under.
    pub fn generation(&self) -> Option<u64> {
        self.room.fencing.generation()
    }

    /// Tokens seated in it (restored rooms come with their players).
    pub fn seated(&self) -> Vec<(Uuid, parlor_games::Seat)> {
        self.room.seated()
    }

    /// Starts the actor on shard `at` of `shards` (see
    /// [`Shards::place_room`]).
    pub fn start(self, shards: &Arc<Shards>, at: Option<usize>) {
        let tracker = self.room.host.tracker().clone();
        shards.spawn_room(&tracker, at, self.room.run(self.rx, None));
    }

    /// Starts the actor as [`Prepared::start`] does; the answer comes
    /// once the seats its header names are stored (at once if it names
    /// none), so that whoever made it tells the players only when their
    /// games list already holds it.
    pub fn start_seating(self, shards: &Arc<Shards>, at: Option<usize>) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        let tracker = self.room.host.tracker().clone();
        shards.spawn_room(&tracker, at, self.room.run(self.rx, Some(tx)));
        rx
    }
}

/// Prepares the actor of a new room whose header is already stored.
pub fn spawn_room(
    host: &Arc<dyn RoomHost>,
    init: RoomInit,
    game: AnyGame,
    rng: GameRng,
) -> Prepared {
    let n = usize::from(init.header.seats);
    let room = Room {
        id: init.room,
        key: init.key,
        creator: init.creator,
        clocks: init
            .header
            .clock
            .map(|c| Clocks::new(c, init.header.seats, None)),
        bot_rng: bot_rng(),
        header: init.header,
        private: init.private,
        game,
        rng,
        seq: 0,
        seats: (0..n).map(|_| Slot::Empty).collect(),
        bots: (0..n).map(|_| None).collect(),
        spectators: Vec::new(),
        host: Arc::clone(host),
        has_moved: vec![false; n],
        lifetime: Lifetime::new(Instant::now() + host.lifetimes().unstarted, None),
        fencing: Fencing::new(host.store().cluster().map(|c| c.generation())),
        rematch: Offers::default(),
        ratings: RoomRatings::default(),
        chat: super::chat::RoomChat::fresh(),
    };
    Prepared::new(room)
}

/// Rebuilds a stored, unfinished match and prepares its actor. Players
/// come back disconnected and resume with their tokens; bots carry on.
///
/// `generation`: in cluster mode, the node's lease generation the match
/// was claimed under (its hold on the room lasts that long).
pub fn spawn_restored(
    host: &Arc<dyn RoomHost>,
    stored: StoredMatch,
    generation: Option<u64>,
) -> Result<Prepared, String> {
    let StoredMatch {
        key,
        record,
        seats: stored_seats,
        moves,
        clocks,
        turn,
    } = stored;
    let (game, rng) = parlor_protocol::replay(&record.header, &moves).map_err(|e| e.to_string())?;
    let n = usize::from(record.header.seats);
    let mut seats: Vec<Slot> = (0..n).map(|_| Slot::Empty).collect();
    let mut bots: Vec<Option<AnyBot>> = (0..n).map(|_| None).collect();
    for (seat, who) in stored_seats {
        let i = seat.index();
        if i >= n {
            return Err(format!("seat {} beyond the match's {n} seats", seat.0));
        }
        seats[i] = match who {
            StoredSeat::Player {
                token,
                name,
                client_seed,
                account,
            } => {
                // Stored before its deal, waiting for its seed: it waits
                // again, the whole wait (its player resumes first).
                let awaited = client_seed.as_deref() == Some(super::slot::AWAITED_SEED);
                Slot::Player {
                    token,
                    name,
                    outs: Attached::none(),
                    client_seed: client_seed.filter(|_| !awaited),
                    account,
                    seed_due: if awaited { Room::seed_wait() } else { None },
                }
            }
            StoredSeat::Bot { strategy, account } => {
                bots[i] = record.header.game.bot(&strategy);
                Slot::Bot { strategy, account }
            }
        };
    }
    let seq = moves.last().map_or(0, |e| e.seq + 1);
    let mut has_moved = vec![false; n];
    for entry in &moves {
        if let (LoggedAction::Move(_), Some(m)) =
            (&entry.action, has_moved.get_mut(entry.seat.index()))
        {
            *m = true;
        }
    }
    let now = Instant::now();
    let mut restored_clocks = record
        .header
        .clock
        .map(|c| Clocks::new(c, record.header.seats, clocks.as_deref()));
    if let (Some(c), Some(turn)) = (restored_clocks.as_mut(), turn.as_ref()) {
        c.restore_deadlines(turn, now, crate::clock::now_ms());
    }
    let room = Room {
        id: record.room.clone(),
        key,
        // Stored since layout 3 (older matches: seated players seat bots).
        creator: record.origin.creator,
        clocks: restored_clocks,
        bot_rng: bot_rng(),
        header: record.header,
        private: record.private,
        game,
        rng,
        seq,
        seats,
        bots,
        spectators: Vec::new(),
        host: Arc::clone(host),
        has_moved,
        // The time to start counts from the room's making, restarts
        // included; restored players are all away until they resume.
        lifetime: Lifetime::new(
            now + unstarted_left(host, record.origin.created_ms),
            Some(now),
        ),
        fencing: Fencing::new(generation),
        rematch: Offers::default(),
        ratings: RoomRatings::default(),
        chat: super::chat::RoomChat::default(),
    };
    Ok(Prepared::new(room))
}

/// What is left of a room's time to start, `created_ms` being when it was
/// made (unknown for rooms stored by older servers: a full lifetime).
fn unstarted_left(host: &Arc<dyn RoomHost>, created_ms: Option<u64>) -> Duration {
    let lifetime = host.lifetimes().unstarted;
    let Some(created) = created_ms else {
        return lifetime;
    };
    let age = Duration::from_millis(crate::clock::now_ms().saturating_sub(created));
    lifetime.saturating_sub(age)
}
