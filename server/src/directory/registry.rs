//! The rooms a node hosts, with the counts the caps and the listing need.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Arc;

use parlor_protocol::{RoomId, RoomStatus, RoomSummary};
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

use crate::limits::{FINISHED_LISTED_FOR, MAX_LISTED_FINISHED};
use crate::room::RoomCmd;
use crate::store::MatchKey;

/// One hosted room.
pub(super) struct Entry {
    /// Its inbox.
    pub tx: mpsc::Sender<RoomCmd>,
    /// As the lobby lists it (shared with the listing: a room's summary
    /// changes a few times a game, and copying it twice showed).
    pub summary: Arc<RoomSummary>,
    /// Not listed.
    pub private: bool,
    /// The creator's token.
    pub creator: Option<Uuid>,
    /// The creator's address, as caps count it (IPv6 by /64).
    pub creator_addr: Option<IpAddr>,
    /// Tokens indexed as seated here, to unindex when the room goes.
    pub seated: Vec<Uuid>,
    /// Its match, at the epoch its actor holds it (see
    /// `RoomEvent::Stopped`).
    pub key: MatchKey,
    /// The shard its actor runs on (`None`: inline).
    pub shard: Option<usize>,
    /// Cluster mode: the node's lease generation it is held under (given
    /// up when the node loses that lease).
    pub generation: Option<u64>,
}

impl Entry {
    fn unfinished(&self) -> bool {
        self.summary.status != RoomStatus::Finished
    }
}

/// Whether a room's match was played to its end in public: every seat
/// filled and finished (not a room that closed before it started).
fn played_out(e: &Entry) -> bool {
    !e.private
        && !e.unfinished()
        && e.summary
            .seats
            .iter()
            .all(|s| !matches!(s.occupant, parlor_protocol::Occupant::Empty))
}

/// The rooms by id, with counts kept as they change (scanning every room
/// on each `create_room` cost a tenth of the server's time once thousands
/// of finished rooms were lingering).
#[derive(Default)]
pub(super) struct Registry {
    pub by_id: HashMap<RoomId, Entry>,
    /// Public rooms in id order: what `list_rooms` pages through.
    pub listed: BTreeMap<RoomId, Arc<RoomSummary>>,
    open_by_creator: HashMap<Uuid, usize>,
    open_by_addr: HashMap<IpAddr, usize>,
    /// Finished rooms in the order they finished, oldest first; ids of
    /// rooms already gone are dropped from the front as they come up.
    finished: VecDeque<RoomId>,
    /// Finished rooms still in `by_id` (lingering).
    pub lingering: usize,
    /// Rooms being made (checked against the caps, not yet registered):
    /// counted with the open rooms, so that rooms made at once cannot
    /// pass a cap together.
    pub reserved: usize,
    /// Public matches that were played and finished, whose rooms have
    /// closed, oldest first: still listed (as finished) for
    /// [`FINISHED_LISTED_FOR`], so that last hour's games can be found.
    recent: VecDeque<(Instant, RoomId)>,
}

fn bump<K: std::hash::Hash + Eq + Copy>(map: &mut HashMap<K, usize>, key: Option<K>, up: bool) {
    let Some(k) = key else { return };
    let n = map.entry(k).or_default();
    if up {
        *n += 1;
    } else {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(&k);
        }
    }
}

impl Registry {
    fn count(&mut self, e: &Entry, up: bool) {
        self.count_open(e.unfinished(), e.creator, e.creator_addr, up);
    }

    fn count_open(&mut self, open: bool, creator: Option<Uuid>, addr: Option<IpAddr>, up: bool) {
        if open {
            bump(&mut self.open_by_creator, creator, up);
            bump(&mut self.open_by_addr, addr, up);
        }
    }

    fn list(&mut self, id: &RoomId, e: &Entry) {
        if e.private {
            self.listed.remove(id);
        } else {
            self.listed.insert(id.clone(), Arc::clone(&e.summary));
        }
    }

    /// Adds a room; returns the entry it replaced (accounted as removed).
    pub fn insert(&mut self, id: RoomId, entry: Entry) -> Option<Entry> {
        let replaced = self.remove(&id);
        self.count(&entry, true);
        self.list(&id, &entry);
        if !entry.unfinished() {
            self.finished.push_back(id.clone());
            self.lingering += 1;
        }
        self.by_id.insert(id, entry);
        replaced
    }

    pub fn remove(&mut self, id: &RoomId) -> Option<Entry> {
        let entry = self.by_id.remove(id)?;
        self.count(&entry, false);
        if played_out(&entry) {
            // Its summary stays listed, as finished, for a while.
            self.recent.push_back((Instant::now(), id.clone()));
            self.prune_recent();
        } else {
            self.listed.remove(id);
        }
        if !entry.unfinished() {
            self.lingering -= 1;
        }
        self.forget_gone();
        Some(entry)
    }

    /// Drops finished matches listed longer than [`FINISHED_LISTED_FOR`],
    /// or beyond [`MAX_LISTED_FINISHED`], from the listing (unless their
    /// room is open again: a room taken back by this node).
    pub fn prune_recent(&mut self) {
        let now = Instant::now();
        while let Some((at, id)) = self.recent.front() {
            let stale = now.duration_since(*at) >= FINISHED_LISTED_FOR
                || self.recent.len() > MAX_LISTED_FINISHED;
            if !stale {
                break;
            }
            if !self.by_id.contains_key(id) {
                self.listed.remove(id);
            }
            self.recent.pop_front();
        }
    }

    /// Whether `id` is a finished room still lingering.
    fn is_lingering(&self, id: &RoomId) -> bool {
        self.by_id.get(id).is_some_and(|e| !e.unfinished())
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

    pub fn set_summary(&mut self, id: &RoomId, summary: RoomSummary, private: bool) {
        let Some(e) = self.by_id.get_mut(id) else {
            return;
        };
        let was_open = e.unfinished();
        let (creator, addr) = (e.creator, e.creator_addr);
        e.summary = Arc::new(summary);
        e.private = private;
        let now_open = e.unfinished();
        let listed = (!private).then(|| Arc::clone(&e.summary));
        if was_open != now_open {
            self.count_open(was_open, creator, addr, false);
            self.count_open(now_open, creator, addr, true);
        }
        match listed {
            Some(s) => {
                self.listed.insert(id.clone(), s);
            }
            None => {
                self.listed.remove(id);
            }
        }
        if was_open && !now_open {
            self.finished.push_back(id.clone());
            self.lingering += 1;
        }
    }

    /// Takes out the oldest lingering finished room, if any.
    pub fn take_oldest_finished(&mut self) -> Option<(RoomId, Entry)> {
        self.forget_gone();
        let id = self.finished.pop_front()?;
        let entry = self.remove(&id)?;
        Some((id, entry))
    }

    /// Counts a room about to be made against the caps (`up`), or stops
    /// counting it (made and registered, or given up).
    pub fn reserve(&mut self, creator: Option<Uuid>, addr: Option<IpAddr>, up: bool) {
        self.count_open(true, creator, addr, up);
        if up {
            self.reserved += 1;
        } else {
            self.reserved = self.reserved.saturating_sub(1);
        }
    }

    /// Unfinished rooms created under `creator`.
    pub fn open_by(&self, creator: Uuid) -> usize {
        self.open_by_creator.get(&creator).copied().unwrap_or(0)
    }

    /// Unfinished rooms created from `addr` (already keyed).
    pub fn open_from(&self, addr: IpAddr) -> usize {
        self.open_by_addr.get(&addr).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::GameKind;

    fn entry(creator: Uuid, addr: IpAddr) -> (RoomId, Entry) {
        let id = RoomId::new(&Uuid::new_v4().simple().to_string()[..12])
            .unwrap_or_else(|| unreachable!("12 hex digits are a room id"));
        let (tx, _) = mpsc::channel(1);
        let summary = RoomSummary {
            room: id.clone(),
            game: GameKind::Nimrod,
            status: RoomStatus::Playing,
            seats: vec![parlor_protocol::SeatInfo {
                seat: parlor_games::Seat(0),
                occupant: parlor_protocol::Occupant::Bot {
                    strategy: "random".into(),
                    account: None,
                },
                rating: None,
            }],
            spectators: 0,
            commitment: None,
        };
        let e = Entry {
            tx,
            summary: Arc::new(summary),
            private: false,
            creator: Some(creator),
            creator_addr: Some(addr),
            seated: Vec::new(),
            key: MatchKey::new(1),
            shard: None,
            generation: None,
        };
        (id, e)
    }

    fn finish(rooms: &mut Registry, id: &RoomId) {
        let mut summary = (*rooms.by_id[id].summary).clone();
        summary.status = RoomStatus::Finished;
        rooms.set_summary(id, summary, false);
    }

    #[test]
    fn open_rooms_and_lingering_rooms_are_counted_as_they_change() {
        let mut rooms = Registry::default();
        let alice = Uuid::new_v4();
        let home: IpAddr = [10, 0, 0, 1].into();
        let ids: Vec<RoomId> = (0..3)
            .map(|_| {
                let (id, e) = entry(alice, home);
                rooms.insert(id.clone(), e);
                id
            })
            .collect();
        assert_eq!((rooms.open_by(alice), rooms.open_from(home)), (3, 3));
        assert_eq!(rooms.listed.len(), 3);
        finish(&mut rooms, &ids[0]);
        finish(&mut rooms, &ids[1]);
        assert_eq!((rooms.open_by(alice), rooms.lingering), (1, 2));
        assert_eq!(rooms.open_from(home), 1);
        // The first finished room's linger runs out: it is no longer
        // counted, and the oldest one left to make way is the second.
        assert!(rooms.remove(&ids[0]).is_some());
        assert_eq!((rooms.lingering, rooms.finished.len()), (1, 1));
        // A played match stays listed, as finished, once its room is gone.
        assert_eq!(rooms.listed.len(), 3);
        let taken = rooms.take_oldest_finished().map(|(id, _)| id);
        assert_eq!(taken.as_ref(), Some(&ids[1]));
        assert_eq!(rooms.lingering, 0);
        assert_eq!(rooms.listed.len(), 3);
        // A room still playing never makes way.
        assert!(rooms.take_oldest_finished().is_none());
        assert_eq!((rooms.open_by(alice), rooms.open_from(home)), (1, 1));
        // Going private unlists it without touching the counts.
        let summary = (*rooms.by_id[&ids[2]].summary).clone();
        rooms.set_summary(&ids[2], summary, true);
        assert!(!rooms.listed.contains_key(&ids[2]));
        assert_eq!(rooms.listed.len(), 2);
        assert_eq!(rooms.open_from(home), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn played_matches_stay_listed_an_hour_and_rooms_that_never_started_do_not() {
        let mut rooms = Registry::default();
        let (played, e) = entry(Uuid::new_v4(), [10, 0, 0, 1].into());
        rooms.insert(played.clone(), e);
        let (unstarted, mut e) = entry(Uuid::new_v4(), [10, 0, 0, 2].into());
        let mut summary = (*e.summary).clone();
        summary.seats.push(parlor_protocol::SeatInfo {
            seat: parlor_games::Seat(1),
            occupant: parlor_protocol::Occupant::Empty,
            rating: None,
        });
        e.summary = Arc::new(summary);
        rooms.insert(unstarted.clone(), e);
        finish(&mut rooms, &played);
        finish(&mut rooms, &unstarted);
        assert!(rooms.remove(&played).is_some());
        assert!(rooms.remove(&unstarted).is_some());
        assert!(rooms.listed.contains_key(&played));
        assert!(!rooms.listed.contains_key(&unstarted));
        tokio::time::advance(FINISHED_LISTED_FOR - std::time::Duration::from_secs(1)).await;
        rooms.prune_recent();
        assert_eq!(
            rooms.listed.get(&played).map(|s| s.status),
            Some(RoomStatus::Finished)
        );
        tokio::time::advance(std::time::Duration::from_secs(1)).await;
        rooms.prune_recent();
        assert!(rooms.listed.is_empty());
    }
}
