//! When the store's answer leaves the room unsure of its own state: a
//! step whose commit was never confirmed, or a room another node has
//! taken over (cluster mode).
//!
//! - **Unconfirmed:** the log is the truth. The room reads it, and if it
//!   holds steps the room has not applied (the unconfirmed commit went
//!   through after all), rebuilds the match from it and tells everyone.
//!   Until the log could be read the room takes no step.
//! - **Taken over:** the room's writes are fenced; it tells everyone in it
//!   that the room moved (`room/moved`: resume or spectate again, and the
//!   node that hosts it now answers) and stops.

use parlor_protocol::{ErrorCode, LogEntry, ServerMsg};
use tokio::time::Instant;

use super::actor::Room;
use super::slot::Slot;
use crate::limits::FINISHED_ROOM_LINGER;
use crate::store::StoreError;

impl Room {
    /// Tells every player and spectator here that the room moved, and
    /// marks the actor to stop.
    pub(super) fn give_up(&mut self) {
        if self.moved {
            return;
        }
        tracing::info!(room = %self.id, epoch = self.key.epoch(), "the room is hosted elsewhere now");
        self.moved = true;
        let msg = ServerMsg::room_error(
            &self.id,
            ErrorCode::RoomMoved,
            "another server hosts this room now; send resume (or spectate) again to carry on",
        );
        for slot in &self.seats {
            if let Slot::Player { out: Some(out), .. } = slot {
                out.send(&msg);
            }
        }
        for m in &self.spectators {
            m.send(&msg);
        }
    }

    /// Brings the room up to its log after a commit that may have gone
    /// through. `Ok(Some(entry))`: the log held the step at the room's
    /// position, which the room has now applied (with any after it); the
    /// caller tells everyone ([`Room::announce`]). `Ok(None)`: the log
    /// ends where the room is.
    pub(super) async fn settle(&mut self) -> Result<Option<LogEntry>, StoreError> {
        let log =
            self.store().log(self.id.clone()).await?.ok_or_else(|| {
                StoreError::Corrupt(format!("room {} is not in the store", self.id))
            })?;
        self.unsettled = false;
        let at = usize::try_from(self.seq).unwrap_or(usize::MAX);
        let Some(first) = log.moves.get(at).cloned() else {
            return Ok(None);
        };
        let (game, rng) = parlor_protocol::replay(&log.header, &log.moves)
            .map_err(|e| StoreError::Corrupt(format!("the log does not replay: {e}")))?;
        tracing::info!(room = %self.id, from = self.seq, to = log.moves.len(), "caught up with the log");
        self.game = game;
        self.rng = rng;
        self.seq = log.moves.len() as u64;
        self.sync_clocks(Instant::now());
        Ok(Some(first))
    }

    /// Tells everyone the room's new position (and the lobby, if the
    /// match just ended).
    pub(super) fn announce(&mut self) {
        if self.game.outcome().is_some() && self.linger_until.is_none() {
            self.linger_until = Some(Instant::now() + FINISHED_ROOM_LINGER);
            self.publish();
        }
        self.broadcast();
    }

    /// [`Room::settle`] if an earlier failure left the room unsure:
    /// whether the position moved on; `Err` while the log cannot be read.
    pub(super) async fn settle_if_unsure(&mut self) -> Result<bool, StoreError> {
        if !self.unsettled {
            return Ok(false);
        }
        let moved_on = self.settle().await?.is_some();
        if moved_on {
            self.announce();
        }
        Ok(moved_on)
    }
}
