//! What only a shared store does: the questions a cluster's room
//! directory asks of the database (where a room is, a player's seats
//! across nodes, the lobby) and the claim of one room on demand.

use parlor_protocol::{RoomId, RoomSummary};
use uuid::Uuid;

use super::postgres::{HeldSeat, Listing, LobbyQuery, PgStore, Whereabouts};
use super::{StoreError, StoredMatch};

/// A shared store, seen as a cluster's directory needs it.
#[derive(Clone, Copy, Debug)]
pub struct ClusterStore<'a>(pub(super) &'a PgStore);

impl ClusterStore<'_> {
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
    pub async fn claim_room(&self, room: &RoomId) -> Result<Vec<StoredMatch>, StoreError> {
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
