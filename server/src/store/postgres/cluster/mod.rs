//! The PostgreSQL store's cluster parts: this node's lease (`node`), the
//! claim of orphaned rooms (`claim`), where a room or a player's seats are
//! (`routing`) and the shared lobby (`lobby`). Only a cluster's directory
//! reaches them, through [`crate::store::ClusterStore`].

use std::sync::Arc;

use parlor_protocol::RoomId;
use tokio::sync::watch;

use super::{reader, PgStore};
use crate::store::{Claimed, StoreError};

pub(super) mod claim;
pub(super) mod lobby;
pub(super) mod node;
pub(super) mod routing;

pub use lobby::{Listing, LobbyQuery};
pub use node::NodeSettings;
pub use routing::{HeldSeat, Whereabouts};

/// Which orphans a claim takes.
#[derive(Debug)]
pub(super) enum Claim {
    /// This node's share of them all (a sweep).
    Share,
    /// Those in which a resuming player holds a seat.
    Token(String),
    /// The one room a command was for.
    Room(String),
}

impl PgStore {
    /// This node's id now (it changes when the node loses its lease).
    pub(crate) fn node_id(&self) -> Arc<str> {
        self.node.id()
    }

    /// Sees the node's generation grow each time it lost its lease, and
    /// with it every room it held.
    pub(crate) fn generations(&self) -> watch::Receiver<u64> {
        self.node.generations()
    }

    /// How many times the node has lost its lease so far.
    pub(crate) fn generation(&self) -> u64 {
        self.node.generation()
    }

    /// Whether the lease is surely held now.
    pub(crate) fn lease_left(&self) -> std::time::Duration {
        self.node.lease_left()
    }

    pub(crate) fn lease_held(&self) -> bool {
        self.node.lease_held()
    }

    /// This node's lease.
    pub(crate) fn lease(&self) -> std::time::Duration {
        self.node.settings().lease
    }

    /// How often to look for orphaned rooms: as often as the lease is
    /// renewed, so that a dead node's rooms wait little past its lease.
    pub(crate) fn claim_every(&self) -> std::time::Duration {
        self.node.settings().renew_every()
    }

    /// Claims this node's share of the orphaned rooms, at a bumped epoch,
    /// and reads each back whole, to be rebuilt.
    pub(crate) async fn claim(&self) -> Result<Vec<Claimed>, StoreError> {
        self.claiming(Claim::Share).await.map(|(m, _)| m)
    }

    /// Claims room `room` if it is an orphan, and reads it back whole.
    pub(crate) async fn claim_room(&self, room: &RoomId) -> Result<Vec<Claimed>, StoreError> {
        self.claiming(Claim::Room(room.as_str().to_owned()))
            .await
            .map(|(m, _)| m)
    }

    /// Claims every orphaned room in which `token` holds a seat, and
    /// reads each back whole; with how many unfinished rooms the token
    /// holds a seat in, whoever hosts them.
    pub(crate) async fn claim_for(
        &self,
        token: uuid::Uuid,
    ) -> Result<(Vec<Claimed>, i64), StoreError> {
        self.claiming(Claim::Token(token.to_string())).await
    }

    async fn claiming(&self, which: Claim) -> Result<(Vec<Claimed>, i64), StoreError> {
        if !self.node.lease_held() {
            return Ok((Vec::new(), 0));
        }
        let (me, generation) = self.node.id_and_generation();
        let claiming = async {
            let mut client = self.pool.get().await.map_err(reader::pool_error)?;
            let tx = client.transaction().await?;
            let (taken, total) = match &which {
                Claim::Share => {
                    let share = claim::share(&*tx).await?;
                    (claim::take(&*tx, &me, share).await?, 0)
                }
                Claim::Token(token) => (
                    claim::take_for(&*tx, &me, token).await?,
                    claim::unfinished_for(&*tx, token).await?,
                ),
                Claim::Room(room) => (claim::take_room(&*tx, &me, room).await?, 0),
            };
            tx.commit().await?;
            Ok::<_, StoreError>((taken, total))
        };
        let (taken, total) =
            tokio::time::timeout(crate::store::postgres::PG_BATCH_TIMEOUT, claiming)
                .await
                .map_err(|_| StoreError::Unavailable("claiming rooms took too long".into()))??;
        // Taken out of `unread` here: a sweep and a resume claiming at
        // once must never both read back (and host) the same room.
        let claims: Vec<(i64, u64)> = {
            let mut unread = self
                .unread
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            unread.extend(taken.iter().map(|(id, _)| (*id, generation)));
            std::mem::take(&mut *unread)
        };
        let ids: Vec<i64> = claims.iter().map(|(id, _)| *id).collect();
        if ids.is_empty() {
            return Ok((Vec::new(), total));
        }
        if !taken.is_empty() {
            crate::metrics::rooms_claimed(taken.len() as u64);
            tracing::info!(node = %me, rooms = taken.len(), "claimed orphaned rooms");
        }
        let read = reader::snapshot(&self.pool, &self.faults, async |tx| {
            reader::by_id(tx, &ids).await
        })
        .await;
        match read {
            Ok(read) => {
                // Each under the generation of the claim that took it.
                let claimed = read
                    .into_iter()
                    .map(|stored| Claimed {
                        generation: claims
                            .iter()
                            .find(|(id, _)| *id == stored.key.id)
                            .map_or(generation, |(_, g)| *g),
                        stored,
                    })
                    .collect();
                Ok((claimed, total))
            }
            Err(e) => {
                // Read on the next claim.
                self.unread
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .extend(claims);
                Err(e)
            }
        }
    }

    /// Where `room` is, for a node that does not host it.
    pub(crate) async fn whereabouts(&self, room: &RoomId) -> Result<Whereabouts, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            routing::whereabouts(&**tx, room.as_str()).await
        })
        .await
    }

    /// The seats `token` holds in unfinished matches, wherever they are.
    pub(crate) async fn held_seats(&self, token: uuid::Uuid) -> Result<Vec<HeldSeat>, StoreError> {
        let token = token.to_string();
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            routing::seats_of(&**tx, &token).await
        })
        .await
    }

    /// Publishes room listings this node owns (fenced ones are skipped).
    pub(crate) async fn publish_listings(
        &self,
        rows: &[Listing],
        forget_before_ms: Option<i64>,
    ) -> Result<u64, StoreError> {
        lobby::publish(&self.pool, &self.node.id(), rows, forget_before_ms).await
    }

    /// One page of the cluster's public rooms.
    pub(crate) async fn lobby(
        &self,
        q: &LobbyQuery<'_>,
    ) -> Result<Vec<parlor_protocol::RoomSummary>, StoreError> {
        reader::snapshot(&self.pool, &self.faults, async |tx| {
            lobby::page(&**tx, q).await
        })
        .await
    }

    /// The schema the tables live in: the cluster's name on the bus.
    pub(crate) fn schema(&self) -> &str {
        &self.schema
    }
}
