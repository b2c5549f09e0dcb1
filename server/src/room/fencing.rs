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
//!
//! A room's [`Fencing`] holds where it stands: taken over, unsure of its
//! log, its last write failed, and the lease generation it was set up
//! under.

use parlor_protocol::{ErrorCode, LogEntry, ServerMsg};
use tokio::time::Instant;

use super::actor::Room;
use crate::store::StoreError;

/// What a room knows of its hold on its own state.
#[derive(Debug)]
pub(super) struct Fencing {
    /// Set once another node took the room over: the actor stops.
    moved: bool,
    /// Cluster mode: the node's lease generation when the room was set up
    /// here (see `ClusterStore::generation`).
    generation: Option<u64>,
    /// A step's commit was not confirmed and the log could not be read
    /// since: the room reads it before its next step.
    unsettled: bool,
    /// The last store write failed: clocks and bots wait for a success.
    store_failed: bool,
}

impl Fencing {
    /// A room set up under the node's lease `generation` (`None`: not in
    /// cluster mode).
    pub(super) fn new(generation: Option<u64>) -> Self {
        Fencing {
            moved: false,
            generation,
            unsettled: false,
            store_failed: false,
        }
    }

    /// Cluster mode: the node's lease generation the room is held under.
    pub(super) fn generation(&self) -> Option<u64> {
        self.generation
    }

    /// Whether another node hosts the room now.
    pub(super) fn moved(&self) -> bool {
        self.moved
    }

    /// Marks the room as hosted elsewhere; false if it was already.
    pub(super) fn mark_moved(&mut self) -> bool {
        !std::mem::replace(&mut self.moved, true)
    }

    /// Whether the node's lease generation, now `current`, is not the one
    /// the room was set up under: the node lost its lease since (the room
    /// is surely not this node's any more).
    pub(super) fn hold_lost(&self, current: Option<u64>) -> bool {
        self.generation != current
    }

    /// Whether the room must read its log before its next step.
    pub(super) fn unsettled(&self) -> bool {
        self.unsettled
    }

    /// A commit was not confirmed and the log could not be read.
    pub(super) fn mark_unsettled(&mut self) {
        self.unsettled = true;
    }

    /// The log was read: the room knows where it stands.
    pub(super) fn mark_settled(&mut self) {
        self.unsettled = false;
    }

    /// Whether the last store write failed (clocks and bots wait).
    pub(super) fn store_failed(&self) -> bool {
        self.store_failed
    }

    /// Notes how the last store write went.
    pub(super) fn store_wrote(&mut self, ok: bool) {
        self.store_failed = !ok;
    }

    /// Whether the room may take steps of its own (bots' moves): its
    /// writes go through and it is still its node's.
    pub(super) fn steps_go_on(&self) -> bool {
        !self.store_failed && !self.moved
    }
}

impl Room {
    /// Tells every player and spectator here that the room moved, and
    /// marks the actor to stop.
    pub(super) fn give_up(&mut self) {
        if !self.fencing.mark_moved() {
            return;
        }
        tracing::info!(room = %self.id, epoch = self.key.epoch(), "the room is hosted elsewhere now");
        let msg = ServerMsg::room_error(
            &self.id,
            ErrorCode::RoomMoved,
            "another server hosts this room now; send resume (or spectate) again to carry on",
        );
        for slot in &self.seats {
            if let Some(outs) = slot.outs() {
                outs.send(&msg);
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
        self.fencing.mark_settled();
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
        if self.game.outcome().is_some() && self.lifetime.linger_until().is_none() {
            self.lifetime.linger_from(Instant::now());
            self.publish();
        }
        self.broadcast();
    }

    /// [`Room::settle`] if an earlier failure left the room unsure:
    /// whether the position moved on; `Err` while the log cannot be read.
    pub(super) async fn settle_if_unsure(&mut self) -> Result<bool, StoreError> {
        if !self.fencing.unsettled() {
            return Ok(false);
        }
        let moved_on = self.settle().await?.is_some();
        if moved_on {
            self.announce();
        }
        Ok(moved_on)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_room_set_up_under_an_older_lease_generation_has_lost_its_hold() {
        let fencing = Fencing::new(Some(3));
        assert!(!fencing.hold_lost(Some(3)));
        assert!(fencing.hold_lost(Some(4)));
        assert!(fencing.hold_lost(None));
        // Not in cluster mode: there is no lease to lose.
        assert!(!Fencing::new(None).hold_lost(None));
    }

    #[test]
    fn a_room_taken_over_is_told_once_and_takes_no_more_steps() {
        let mut fencing = Fencing::new(Some(1));
        assert!(fencing.steps_go_on());
        assert!(fencing.mark_moved());
        assert!(!fencing.mark_moved());
        assert!(fencing.moved());
        assert!(!fencing.steps_go_on());
        // A write that succeeds does not bring a moved room back.
        fencing.store_wrote(true);
        assert!(!fencing.steps_go_on());
    }

    #[test]
    fn a_failed_write_halts_the_room_until_one_succeeds() {
        let mut fencing = Fencing::new(None);
        fencing.store_wrote(false);
        assert!(fencing.store_failed());
        assert!(!fencing.steps_go_on());
        fencing.store_wrote(true);
        assert!(!fencing.store_failed());
        assert!(fencing.steps_go_on());
    }

    #[test]
    fn an_unconfirmed_commit_leaves_the_room_unsettled_until_it_reads_its_log() {
        let mut fencing = Fencing::new(None);
        assert!(!fencing.unsettled());
        fencing.mark_unsettled();
        assert!(fencing.unsettled());
        fencing.mark_settled();
        assert!(!fencing.unsettled());
    }
}
