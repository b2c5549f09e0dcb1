//! Aborting a match: it ends without an outcome (`"closed": "aborted"`)
//! and is not rated. A rated match aborts by itself when a seat's clock
//! runs out before that seat's first move; any seated player may ask for
//! it while their own seat has not yet moved (lichess's rule), so that a
//! game begun by mistake costs no rating. Either way a rated abort counts
//! against the seat's account in the rated cooldown, so that aborting
//! cannot be used to pick opponents freely. A tournament's or the
//! ladder's game is never aborted: its absent player loses on time.

use parlor_games::Seat;
use parlor_protocol::{Closed, ErrorCode, RoomStatus};
use tokio::time::Instant;

use super::actor::Room;
use super::slot::Slot;
use super::Member;
use crate::accounts::name_key;
use crate::clock::now_ms;
use crate::fair_play::record_abort;

impl Room {
    /// Whether `seat` may abort the match now: it has started and not
    /// ended, it is no event's game, and the seat has not yet moved.
    pub(super) fn may_abort(&self, seat: Seat) -> bool {
        self.status() == RoomStatus::Playing
            && !self.scheduled()
            && !self.has_moved.get(seat.index()).copied().unwrap_or(true)
    }

    /// `who` asks to abort the match (`abort`).
    pub(super) async fn abort(&mut self, who: Member) {
        match self.status() {
            RoomStatus::Waiting => {
                return self.error(
                    &who,
                    ErrorCode::ActionNotStarted,
                    "the match has not started: leave frees your seat",
                )
            }
            RoomStatus::Finished => {
                return self.error(&who, ErrorCode::ActionGameOver, "the match is over")
            }
            RoomStatus::Playing => {}
        }
        let Some(i) = self.seats.iter().position(|s| s.speaks_for(&who)) else {
            let why = if self.seats.iter().any(|s| s.owned_by(&who)) {
                "your seat is not open on this connection: join the room first"
            } else {
                "only a player seated in the match may abort it"
            };
            return self.error(&who, ErrorCode::ActionNotYourSeat, why);
        };
        if self.scheduled() {
            return self.error(
                &who,
                ErrorCode::AbortEventGame,
                "a tournament's or the ladder's game is never aborted: play it, or leave to resign it",
            );
        }
        if self.has_moved.get(i).copied().unwrap_or(true) {
            return self.error(
                &who,
                ErrorCode::AbortTooLate,
                "you have made your first move: the match can no longer be aborted (leave resigns it)",
            );
        }
        let seat = Seat(u8::try_from(i).unwrap_or(u8::MAX));
        tracing::info!(room = %self.id, %seat, "aborted at a player's request");
        if !self.close_aborted(seat, Instant::now()).await {
            self.error(
                &who,
                ErrorCode::ServerStorage,
                "the abort could not be stored, so the match goes on",
            );
        }
    }

    /// Ends the match aborted for `seat` (its silence, or its request):
    /// recorded first, then everyone is told with the final update; a
    /// rated match's abort is held against the seat's account. False if
    /// the store refused (the match goes on).
    pub(super) async fn close_aborted(&mut self, seat: Seat, now: Instant) -> bool {
        if !self.close(Closed::Aborted).await {
            return false;
        }
        self.lifetime.linger_from(now);
        if self.header.rated {
            self.record_abort(seat);
        }
        true
    }

    /// Remembers that `seat` aborted this rated match, against its
    /// account (the rated cooldown counts such aborts).
    fn record_abort(&self, seat: Seat) {
        let Some(Slot::Player {
            name,
            account: true,
            ..
        }) = self.seats.get(seat.index())
        else {
            return;
        };
        let (store, key, room) = (self.store().clone(), name_key(name), self.id.to_string());
        tokio::spawn(async move {
            if let Err(e) = record_abort(&store, &key, &room, now_ms()).await {
                tracing::warn!(%room, error = %e, "an abort was not recorded against its account");
            }
        });
    }
}
