//! What only a shared store does (cluster mode): this node's lease and
//! the fencing generation, the claims of orphaned rooms, the questions a
//! cluster's room directory asks of the database (where a room is, a
//! player's seats across nodes, the lobby). [`Store`](super::Store) is the
//! log alone; this is reached through `Store::cluster`, which only a
//! shared store answers.

use std::sync::Arc;
use std::time::Duration;

use parlor_protocol::{RoomId, RoomSummary};
use tokio::sync::watch;
use uuid::Uuid;

use super::postgres::{HeldSeat, Listing, LobbyQuery, PgStore, Whereabouts};
use super::{Claimed, StoreError};

/// A shared store, seen as cluster mode needs it; cheap to clone.
#[derive(Clone, Debug)]
pub struct ClusterStore(pub(super) PgStore);

impl ClusterStore {
    /// This node's id (it changes when the node loses its lease).
    pub fn node_id(&self) -> Arc<str> {
        self.0.node_id()
    }

    /// A receiver whose value grows each time this node lost its lease
    /// (and so every room it hosted).
    pub fn generations(&self) -> watch::Receiver<u64> {
        self.0.generations()
    }

    /// How often to [`ClusterStore::claim`]: as often as the lease is
    /// renewed, so that a dead node's rooms wait little past its lease.
    pub fn claim_every(&self) -> Duration {
        self.0.claim_every()
    }

    /// How many times this node has lost its lease (and with it every
    /// room it hosted then).
    pub fn generation(&self) -> u64 {
        self.0.generation()
    }

    /// Whether this node surely holds its lease now.
    pub fn lease_held(&self) -> bool {
        self.0.lease_held()
    }

    /// How long from now this node surely holds its lease (zero: not
    /// surely).
    pub fn lease_left(&self) -> Duration {
        self.0.lease_left()
    }

    /// This node's lease.
    pub fn lease(&self) -> Duration {
        self.0.lease()
    }

    /// Takes over this node's share of the orphaned rooms (unfinished,
    /// whose owner stopped or lost its lease) at a bumped epoch, and reads
    /// each back whole.
    pub async fn claim(&self) -> Result<Vec<Claimed>, StoreError> {
        self.0.claim().await
    }

    /// Takes over every orphaned room in which `token` holds a seat (a
    /// player resuming here), and reads each back whole; with how many
    /// unfinished rooms the token holds a seat in, wherever they are
    /// hosted.
    pub async fn claim_for(&self, token: Uuid) -> Result<(Vec<Claimed>, i64), StoreError> {
        self.0.claim_for(token).await
    }

    /// The cluster's name: the schema its tables live in. Nodes sharing
    /// a schema share a bus namespace, so that two clusters (or two test
    /// runs) on one Redis never hear each other.
    pub fn name(&self) -> &str {
        self.0.schema()
    }

    /// Where `room` is, for a node that does not host it.
    pub async fn whereabouts(&self, room: &RoomId) -> Result<Whereabouts, StoreError> {
        self.0.whereabouts(room).await
    }

    /// Claims `room` for this node if nobody live owns it, and reads it
    /// back whole (empty if another node has it, or it is over).
    pub async fn claim_room(&self, room: &RoomId) -> Result<Vec<Claimed>, StoreError> {
        self.0.claim_room(room).await
    }

    /// The seats `token` holds in unfinished matches, wherever they are.
    pub async fn held_seats(&self, token: Uuid) -> Result<Vec<HeldSeat>, StoreError> {
        self.0.held_seats(token).await
    }

    /// Writes the listings of rooms this node owns (a room it no longer
    /// owns at that epoch is skipped), and forgets finished rooms listed
    /// before `forget_before_ms` if given. How many were written.
    pub async fn publish_listings(
        &self,
        rows: &[Listing],
        forget_before_ms: Option<i64>,
    ) -> Result<u64, StoreError> {
        self.0.publish_listings(rows, forget_before_ms).await
    }

    /// One page of the cluster's public rooms.
    pub async fn lobby(&self, q: &LobbyQuery<'_>) -> Result<Vec<RoomSummary>, StoreError> {
        self.0.lobby(q).await
    }
}
