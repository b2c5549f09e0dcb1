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
use crate::store::{StoreError, StoredMatch};

impl Directory {
    /// Brings back the unfinished matches this node is to host: on
    /// SQLite every one; in a shared store (cluster mode) its share of the
    /// orphans, after which it keeps claiming orphans as other nodes stop
    /// or die (on the tracker, until shutdown).
    pub async fn restore(&self) -> Result<usize, StoreError> {
        if let Some(store) = self.mode.shared() {
            let claimed = store.claim().await?;
            let hosted = self.host(claimed);
            if let Some(me) = self.me.upgrade() {
                self.tracker.spawn(me.keep_claiming());
            }
            return Ok(hosted);
        }
        let unfinished = self.store.unfinished().await?;
        Ok(self.host(unfinished))
    }

    /// Rebuilds and starts each stored match; how many run.
    pub(super) fn host(&self, matches: Vec<StoredMatch>) -> usize {
        let Some(host) = self.room_host() else {
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
                    self.host(claimed);
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

    pub(super) fn register(&self, id: &RoomId, entry: Entry, seated: &[(Uuid, Seat)]) {
        if let Some(cluster) = self.mode.bus() {
            cluster.host(id);
            if !entry.private {
                cluster.list(id, entry.key, &entry.summary);
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
