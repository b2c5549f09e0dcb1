//! The seats a resuming player holds: here, or in cluster mode wherever
//! they are, the player's orphaned rooms being claimed here first.

use parlor_protocol::SeatRef;
use uuid::Uuid;

use super::mode::Mode;
use super::Directory;
use crate::store::StoreError;

impl Directory {
    /// The seats `token` holds, for a player resuming. In cluster mode,
    /// the rooms of the token's that nobody hosts any more (their node
    /// stopped or died) are claimed here first, and a room whose node just
    /// died is waited for, at most a lease (it holds its rooms until its
    /// lease runs out). With a bus, the seats are those held anywhere in
    /// the cluster; without one, those in rooms hosted here. `Err`: the
    /// store could not be asked, and no seat of the token is hosted here.
    pub async fn seats_for_resume(&self, token: Uuid) -> Result<Vec<SeatRef>, StoreError> {
        let Some(store) = self.mode.shared() else {
            return Ok(self.seats_of(token));
        };
        let every = store.claim_every();
        let give_up = tokio::time::Instant::now() + store.lease() + every;
        loop {
            let found = match store.claim_for(token).await {
                Ok((claimed, rooms)) => {
                    self.host_claimed(claimed);
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
        let Mode::Bus(store, _) = &self.mode else {
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
}
