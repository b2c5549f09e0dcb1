//! Whose turn it is, beyond the room: recorded in the store for rooms
//! whose turn is read back (`my_games`, a correspondence clock's restore),
//! and told to an account's connections that are not at the table when
//! its seat is due.

use parlor_games::{AnyGame, SeatSet};
use parlor_protocol::RoomStatus;
use tokio::time::Instant;

use super::actor::Room;
use super::clock::Clocks;
use super::slot::Slot;
use super::RoomEvent;
use crate::clock::now_ms;
use crate::store::{Turn, TurnSeat};

/// Whose turn it is in `game` (nobody's once it is over), with each due
/// seat's deadline on the wall clock if there are `clocks`.
pub(super) fn turn_in(game: &AnyGame, clocks: Option<&Clocks>, now: Instant) -> Turn {
    let to_act = if game.outcome().is_some() {
        SeatSet::EMPTY
    } else {
        game.to_act()
    };
    match clocks {
        Some(c) => c.turn(to_act, now, now_ms()),
        None => Turn {
            due: to_act
                .iter()
                .map(|seat| TurnSeat {
                    seat,
                    deadline_ms: None,
                })
                .collect(),
        },
    }
}

impl Room {
    /// Whether the store records whose turn it is here: only where it is
    /// read back (a seat an account holds, listed by `my_games`; a
    /// correspondence clock, whose deadlines outlive a restart), so that
    /// guests' rooms write nothing more per move.
    pub(super) fn records_turn(&self) -> bool {
        self.header.clock.is_some_and(|c| c.is_correspondence())
            || self.seats.iter().any(Slot::is_account)
    }

    /// The match just started: records whose turn it is (where recorded)
    /// and tells the accounts due that are away. A failed write is only
    /// logged: the next step records the turn again.
    pub(super) async fn on_start(&mut self) {
        if !self.records_turn() {
            return;
        }
        let turn = turn_in(&self.game, self.clocks.as_ref(), Instant::now());
        if let Err(e) = self.store().record_turn(self.key, turn.clone()).await {
            tracing::warn!(room = %self.id, error = %e, "cannot record whose turn it is");
        }
        self.notify_turns(SeatSet::EMPTY, &turn);
    }

    /// Reports [`RoomEvent::YourTurn`] for each seat that is due now but
    /// was not in `before` (once per turn, not per update), held by an
    /// account: its connections not showing the room hear of it (other
    /// tabs and devices, or all of them while its player is away). `turn` is the
    /// turn as recorded (only rooms with an account seat record it, and
    /// only they have anyone to tell), whose deadlines the notice quotes.
    pub(super) fn notify_turns(&self, before: SeatSet, turn: &Turn) {
        if self.status() != RoomStatus::Playing {
            return;
        }
        for seat in self.game.to_act().iter() {
            if before.contains(seat) {
                continue;
            }
            let Some(slot) = self.seats.get(seat.index()) else {
                continue;
            };
            let Some(account_key) = slot.player_account_key() else {
                continue;
            };
            let deadline_ms = turn.of(seat).flatten();
            self.host.report(RoomEvent::YourTurn {
                account_key,
                room: self.id.clone(),
                game: self.header.game,
                seat,
                deadline_ms,
                // They see it at the table already.
                except: slot
                    .outs()
                    .map(|o| o.iter().map(crate::outbox::Outbox::id).collect())
                    .unwrap_or_default(),
            });
        }
    }
}
