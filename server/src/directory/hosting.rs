//! A room's place on this node, from start to stop: matches restored
//! or claimed and hosted, rooms registered and indexed, given up when the
//! node loses its lease, and forgotten when their actor stops.

use std::sync::Arc;

use parlor_games::Seat;
use parlor_protocol::RoomId;
use uuid::Uuid;

use super::registry::Entry;
use super::{lock, Directory};
use crate::room::{spawn_restored, RoomCmd};
use crate::store::{Claimed, ClusterStore, StoreError, StoredMatch};

impl Directory {
    /// Brings back the unfinished matches this node is to host: on
    /// SQLite every one; in a shared store (cluster mode) its share of the
    /// orphans, after which it keeps claiming orphans as other nodes stop
    /// or die (on the tracker, until shutdown).
    pub async fn restore(&self) -> Result<usize, StoreError> {
        if let Some(store) = self.mode.shared() {
            let claimed = store.claim().await?;
            let hosted = self.host_claimed(claimed);
            if let Some(me) = self.me.upgrade() {
                self.tracker.spawn(me.keep_claiming());
            }
            return Ok(hosted);
        }
        let unfinished = self.store.unfinished().await?;
        Ok(self.host(unfinished.into_iter().map(|m| (m, None))))
    }

    /// Cluster mode: rebuilds and starts each match claimed for this
    /// node; how many run. One claimed under a lease this node has lost
    /// since is left: it is an orphan again, for the next claim (hosted,
    /// it would be given up at once, or worse outlive the giving up and
    /// hold a room the database gives another).
    pub(super) fn host_claimed(&self, claimed: Vec<Claimed>) -> usize {
        self.host(claimed.into_iter().map(|c| (c.stored, Some(c.generation))))
    }

    /// Rebuilds and starts each stored match (with, in cluster mode, the
    /// lease generation it was claimed under); how many run.
    fn host(&self, matches: impl IntoIterator<Item = (StoredMatch, Option<u64>)>) -> usize {
        let Some(host) = self.room_host() else {
            return 0;
        };
        let mut hosted = 0;
        for (m, generation) in matches {
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
            match spawn_restored(&host, m, generation) {
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
                        generation,
                    };
                    if !self.register_claimed(&id, entry, &prepared.seated()) {
                        tracing::info!(room = %id, epoch, "a room claimed under a lease since lost is left to be claimed again");
                        continue;
                    }
                    prepared.start(&self.shards, shard);
                    if let Some(cluster) = self.mode.bus() {
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
        let Some(store) = self.mode.shared().cloned() else {
            return;
        };
        let (mut generations, every) = (store.generations(), store.claim_every());
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
            match store.claim().await {
                Ok(claimed) if !claimed.is_empty() => {
                    // Rooms given up in the meantime go first, so that a
                    // room taken back does not meet its old actor.
                    if generations.has_changed().unwrap_or(false) {
                        generations.mark_unchanged();
                        self.relinquish_all();
                    }
                    self.host_claimed(claimed);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "cannot claim orphaned rooms"),
            }
        }
    }

    /// Gives up every room this node holds under a lease generation it
    /// has lost: each tells its members the room moved and stops. Rooms
    /// claimed under the new lease meanwhile (a player resuming) stay:
    /// the database names this node their owner, and nobody else would
    /// host them.
    fn relinquish_all(&self) {
        let current = self.generation();
        let entries: Vec<(RoomId, Entry)> = {
            let mut rooms = lock(&self.rooms);
            let ids: Vec<RoomId> = rooms
                .by_id
                .iter()
                .filter(|(_, e)| e.generation < current)
                .map(|(id, _)| id.clone())
                .collect();
            ids.into_iter()
                .filter_map(|id| rooms.remove(&id).map(|e| (id, e)))
                .collect()
        };
        tracing::warn!(
            rooms = entries.len(),
            "giving up every room: this node lost its lease"
        );
        for (id, entry) in entries {
            // A full inbox: the actor still gives up once it is drained,
            // the registry's sender being gone, and its writes are fenced.
            let _ = entry.tx.try_send(RoomCmd::Relinquish);
            self.unindex_room(&id, entry);
        }
    }

    /// Adds a room made here to the registry (and, in cluster mode, the
    /// bus and the lobby).
    pub(super) fn register(&self, id: &RoomId, entry: Entry, seated: &[(Uuid, Seat)]) {
        self.enter(id, entry, seated, false);
    }

    /// Adds a claimed room as [`Directory::register`] does; `false`: it
    /// was claimed under a lease generation this node has lost since,
    /// and is left out.
    fn register_claimed(&self, id: &RoomId, entry: Entry, seated: &[(Uuid, Seat)]) -> bool {
        self.enter(id, entry, seated, true)
    }

    /// Checked under the registry's lock, as `relinquish_all` reads it: a
    /// room claimed under a lost lease is either refused here or given
    /// up by the `relinquish_all` that follows every loss.
    fn enter(&self, id: &RoomId, entry: Entry, seated: &[(Uuid, Seat)], claimed: bool) -> bool {
        let (key, summary, private) = (entry.key, Arc::clone(&entry.summary), entry.private);
        let replaced = {
            let mut rooms = lock(&self.rooms);
            if claimed && entry.generation < self.generation() {
                return false;
            }
            rooms.insert(id.clone(), entry)
        };
        if let Some(cluster) = self.mode.bus() {
            cluster.host(id);
            if !private {
                cluster.list(id, key, &summary);
            }
        }
        if let Some(old) = replaced {
            let _ = old.tx.try_send(RoomCmd::Relinquish);
        }
        for (token, seat) in seated {
            self.index_seat(*token, id, *seat);
        }
        true
    }

    /// Cluster mode: this node's lease generation now.
    fn generation(&self) -> Option<u64> {
        self.mode.shared().map(ClusterStore::generation)
    }

    /// Forgets the seats held in a room taken out of the registry. Its
    /// actor stops once the registry's sender is gone and no request is in
    /// flight (requests find no room from now on).
    pub(super) fn unindex_room(&self, id: &RoomId, entry: Entry) {
        if let Some(cluster) = self.mode.bus() {
            cluster.unhost(id);
        }
        for token in entry.seated {
            self.sessions.unseat(token, id);
        }
    }

    /// Room `room`'s actor, which held it at `epoch`, stopped: the room
    /// is forgotten, unless it was taken back meanwhile (a higher epoch).
    pub(super) fn stopped(&self, room: &RoomId, epoch: i64) {
        let entry = {
            let mut rooms = lock(&self.rooms);
            // A room taken back runs at a higher epoch: keep it.
            if rooms
                .by_id
                .get(room)
                .is_some_and(|e| e.key.epoch() == epoch)
            {
                rooms.remove(room)
            } else {
                None
            }
        };
        if let Some(entry) = entry {
            self.unindex_room(room, entry);
        }
    }
}

#[cfg(test)]
mod tests {
    // Test helpers fail the test by panicking.
    #![allow(clippy::panic)]

    use std::sync::Arc;
    use std::time::Duration;

    use parlor_protocol::RoomId;
    use tokio_util::sync::CancellationToken;
    use tokio_util::task::TaskTracker;
    use uuid::Uuid;

    use super::super::Directory;
    use crate::limits::Limits;
    use crate::outbox::{ConnId, Inbox, Outbox, Outgoing};
    use crate::room::{Member, RoomCmd, RoomRequest};
    use crate::store::Store;
    use crate::testing::{nimrod_record, ScratchSchema};

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A node loses its lease; a player resuming there claims one of its
    /// old rooms under the new lease before the node has given up the
    /// rooms of the old one. Giving them up must spare that room: the
    /// database names this node its owner, so nobody else would ever
    /// host it. And a claim made under the lost lease is not hosted.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn losing_a_lease_gives_up_only_the_rooms_held_under_it() {
        let Some(scratch) = ScratchSchema::new().await else {
            return;
        };
        let (store, _task) =
            ok(Store::open(&scratch.config_with_lease(Duration::from_millis(300))).await);
        let Some(shared) = store.cluster().cloned() else {
            panic!("a shared store");
        };
        let dir = Directory::new(
            store.clone(),
            TaskTracker::new(),
            CancellationToken::new(),
            Limits::default(),
        );
        let rooms: Vec<RoomId> = ["aaaa00000001", "aaaa00000002"]
            .iter()
            .filter_map(|r| RoomId::new(*r))
            .collect();
        for room in &rooms {
            ok(store.create_match(nimrod_record(room.clone())).await);
        }
        // Its lease runs out as far as the database knows.
        let id = shared.node_id();
        ok(scratch
            .execute(&format!(
                "UPDATE nodes SET lease_until = now() - interval '1 second' WHERE id = '{id}'"
            ))
            .await);
        for _ in 0..500 {
            if shared.generation() > 0 && shared.lease_held() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(shared.generation(), 1, "the node took a new id");
        let mut claimed = ok(shared.claim().await);
        assert_eq!(claimed.len(), 2, "both rooms are orphans");
        assert!(claimed.iter().all(|c| c.generation == 1));
        // One as a claim under the new lease; the other as if its claim
        // had been made under the old one.
        let mut stale = claimed.split_off(1);
        stale[0].generation = 0;
        assert_eq!(dir.host_claimed(claimed.clone()), 1);
        assert_eq!(
            dir.host_claimed(stale),
            0,
            "a claim under a lost lease is not hosted"
        );
        let kept = &claimed[0].stored.record.room;
        dir.relinquish_all();
        assert!(
            dir.hosts(kept),
            "a room claimed under the lease held now stays"
        );
        assert_eq!(super::lock(&dir.rooms).by_id.len(), 1);

        // Someone watches it; then the registry lets it go without a
        // word to its actor (a `Relinquish` that found its inbox full):
        // the watcher still hears that the room moved.
        let (out, mut inbox) = Outbox::new(ConnId::next());
        dir.sessions().add(&out);
        let who = Member {
            token: Uuid::new_v4(),
            name: Arc::from("watcher"),
            conn: out.id(),
            account: false,
        };
        let spectate = RoomCmd::Request {
            who,
            req: RoomRequest::Spectate,
        };
        ok(dir.route(kept, spectate).map_err(|e| format!("{e:?}")));
        assert!(
            heard(&mut inbox, "\"update\"").await,
            "the watcher sees the room"
        );
        let entry = super::lock(&dir.rooms).remove(kept);
        assert!(entry.is_some());
        drop(entry);
        assert!(
            heard(&mut inbox, "room/moved").await,
            "a room let go while it ran tells its members it moved"
        );
    }

    /// Whether a text frame holding `what` reaches `inbox` soon.
    async fn heard(inbox: &mut Inbox, what: &str) -> bool {
        let until = tokio::time::Instant::now() + Duration::from_secs(5);
        while let Ok(Some(item)) = tokio::time::timeout_at(until, inbox.recv()).await {
            if let Outgoing::Text(text) = item {
                if text.as_str().contains(what) {
                    return true;
                }
            }
        }
        false
    }
}
