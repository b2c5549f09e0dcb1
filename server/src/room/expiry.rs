//! Rooms nobody plays in: closed after a named time, in memory and in the
//! store, so that they neither hold caps nor come back after a restart.

use parlor_protocol::{Closed, RoomStatus};
use tokio::time::Instant;

use super::actor::Room;
use super::slot::Slot;

impl Room {
    /// When the room closes if nothing changes, and why.
    pub(super) fn expiry(&self) -> Option<(Instant, Closed)> {
        let lives = self.host.lifetimes();
        match self.status() {
            RoomStatus::Finished => None,
            RoomStatus::Waiting => Some((self.start_by, Closed::NeverStarted)),
            // A correspondence match waits for its players as long as
            // their clocks allow: time running out ends it, not absence.
            RoomStatus::Playing if self.header.clock.is_some_and(|c| c.is_correspondence()) => None,
            // So does a tournament's or the ladder's game (always on a
            // clock): a player who stays away loses it on time, which the
            // event or the ladder counts.
            RoomStatus::Playing if self.scheduled() => None,
            RoomStatus::Playing => self
                .gone_since
                .map(|since| (since + lives.abandoned, Closed::Abandoned)),
        }
    }

    /// Notes whether every seated player is away. Bots don't count as
    /// players: a room of bots alone counts as away while nobody watches
    /// it, so that a bot match nobody follows, which may go on for long
    /// (or for ever, in a game without a bound), cannot pile up against
    /// the caps; a watched one plays on.
    pub(super) fn track_presence(&mut self, now: Instant) {
        let mut players = self
            .seats
            .iter()
            .filter(|s| matches!(s, Slot::Player { .. }))
            .peekable();
        let away = if players.peek().is_some() {
            players.all(|s| !s.connected())
        } else {
            let bots_only = self.seats.iter().all(|s| matches!(s, Slot::Bot { .. }));
            bots_only && !self.spectators.iter().any(|m| m.is_open())
        };
        if !away {
            self.gone_since = None;
        } else if self.gone_since.is_none() {
            self.gone_since = Some(now);
        }
    }

    /// Closes the room if its time is up (see [`Room::expiry`]); true if
    /// it closed. Bots playing on check this between their moves, since
    /// the actor's timers wait while they do.
    pub(super) async fn close_if_expired(&mut self, now: Instant) -> bool {
        match self.expiry() {
            Some((at, why)) if now >= at => self.close(why).await,
            _ => false,
        }
    }

    /// Closes the room without an outcome: recorded in the store first (a
    /// closed room is not restored), then everyone is told why. False if
    /// the store refused; the room then tries again at its next expiry.
    pub(super) async fn close(&mut self, why: Closed) -> bool {
        if let Err(e) = self.store().close_match(self.key, why).await {
            tracing::error!(room = %self.id, error = %e, "cannot record a room's closing");
            // Try again a lifetime later rather than spin.
            let now = Instant::now();
            self.start_by = now + self.host.lifetimes().unstarted;
            self.gone_since = self.gone_since.map(|_| now);
            return false;
        }
        tracing::info!(room = %self.id, ?why, "room closed");
        self.closed = Some(why);
        self.broadcast();
        self.publish();
        true
    }
}
