//! Rooms nobody plays in: closed after a named time, in memory and in the
//! store, so that they neither hold caps nor come back after a restart.
//! A room's [`Lifetime`] decides when that is (and how long a finished
//! room lingers); the room tells it who is here and records the closing.

use std::time::Duration;

use parlor_protocol::{Closed, RoomStatus};
use tokio::time::Instant;

use super::actor::Room;
use super::slot::Slot;
use crate::limits::FINISHED_ROOM_LINGER;

/// When a room ends: the time it has to start, since when its players
/// are away, how long it lingers once finished, and how it closed.
#[derive(Debug)]
pub(super) struct Lifetime {
    /// When the room closes if it has not started by then.
    start_by: Instant,
    /// Since when every seated player has been away (`None`: someone is here).
    gone_since: Option<Instant>,
    /// Set once finished: when the room goes.
    linger_until: Option<Instant>,
    /// Set once the room closed without an outcome.
    closed: Option<Closed>,
}

impl Lifetime {
    /// A room that must start by `start_by`, its players away since
    /// `gone_since` (a restored room's are, until they resume).
    pub(super) fn new(start_by: Instant, gone_since: Option<Instant>) -> Self {
        Lifetime {
            start_by,
            gone_since,
            linger_until: None,
            closed: None,
        }
    }

    /// How the room closed without an outcome, if it did.
    pub(super) fn closed(&self) -> Option<Closed> {
        self.closed
    }

    /// When the finished room goes, once it lingers.
    pub(super) fn linger_until(&self) -> Option<Instant> {
        self.linger_until
    }

    /// Whether the room's actor is done: closed and not lingering (an
    /// aborted match lingers as a finished one does).
    pub(super) fn over(&self) -> bool {
        self.closed.is_some() && self.linger_until.is_none()
    }

    /// The match ended at `now`: the room lingers a while for its
    /// members to see the end and offer a rematch.
    pub(super) fn linger_from(&mut self, now: Instant) {
        self.linger_until = Some(now + FINISHED_ROOM_LINGER);
    }

    /// Records that the room closed, `why`.
    pub(super) fn close(&mut self, why: Closed) {
        self.closed = Some(why);
    }

    /// When a room in `status` closes if nothing changes, and why;
    /// `waits`: a playing room that waits for absent players (their
    /// clocks or their event end it, not absence); `abandoned`: how long
    /// a playing room's players may all be away.
    pub(super) fn expiry(
        &self,
        status: RoomStatus,
        waits: bool,
        abandoned: Duration,
    ) -> Option<(Instant, Closed)> {
        match status {
            RoomStatus::Finished => None,
            RoomStatus::Waiting => Some((self.start_by, Closed::NeverStarted)),
            RoomStatus::Playing if waits => None,
            RoomStatus::Playing => self
                .gone_since
                .map(|since| (since + abandoned, Closed::Abandoned)),
        }
    }

    /// Notes at `now` whether everyone who counts is `away`: the time
    /// away counts from when the last one left.
    pub(super) fn presence(&mut self, away: bool, now: Instant) {
        if !away {
            self.gone_since = None;
        } else if self.gone_since.is_none() {
            self.gone_since = Some(now);
        }
    }

    /// The closing could not be recorded at `now`: try again a lifetime
    /// (`unstarted`, or the abandoned time from now) later rather than spin.
    pub(super) fn closing_failed(&mut self, now: Instant, unstarted: Duration) {
        self.start_by = now + unstarted;
        self.gone_since = self.gone_since.map(|_| now);
    }
}

impl Room {
    /// When the room closes if nothing changes, and why.
    pub(super) fn expiry(&self) -> Option<(Instant, Closed)> {
        // A correspondence match waits for its players as long as their
        // clocks allow: time running out ends it, not absence. So does a
        // tournament's or the ladder's game (always on a clock): a player
        // who stays away loses it on time, which the event or the ladder
        // counts.
        let waits = self.header.clock.is_some_and(|c| c.is_correspondence()) || self.scheduled();
        self.lifetime
            .expiry(self.status(), waits, self.host.lifetimes().abandoned)
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
        self.lifetime.presence(away, now);
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
            let unstarted = self.host.lifetimes().unstarted;
            self.lifetime.closing_failed(Instant::now(), unstarted);
            return false;
        }
        tracing::info!(room = %self.id, ?why, "room closed");
        self.lifetime.close(why);
        self.broadcast();
        self.publish();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABANDONED: Duration = Duration::from_secs(600);
    const UNSTARTED: Duration = Duration::from_secs(1800);

    #[tokio::test(start_paused = true)]
    async fn a_waiting_room_closes_at_its_start_by_as_never_started() {
        let t0 = Instant::now();
        let life = Lifetime::new(t0 + UNSTARTED, None);
        assert_eq!(
            life.expiry(RoomStatus::Waiting, false, ABANDONED),
            Some((t0 + UNSTARTED, Closed::NeverStarted))
        );
        // Whether the players are here does not matter before the start.
        let restored = Lifetime::new(t0 + UNSTARTED, Some(t0));
        assert_eq!(
            restored.expiry(RoomStatus::Waiting, false, ABANDONED),
            Some((t0 + UNSTARTED, Closed::NeverStarted))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_playing_room_closes_once_its_players_are_away_long_enough() {
        let t0 = Instant::now();
        let mut life = Lifetime::new(t0 + UNSTARTED, None);
        assert_eq!(life.expiry(RoomStatus::Playing, false, ABANDONED), None);
        life.presence(true, t0);
        // Still away later: the time counts from the first absence.
        life.presence(true, t0 + Duration::from_secs(60));
        assert_eq!(
            life.expiry(RoomStatus::Playing, false, ABANDONED),
            Some((t0 + ABANDONED, Closed::Abandoned))
        );
        // Someone came back: no expiry; away again: counted afresh.
        life.presence(false, t0 + Duration::from_secs(90));
        assert_eq!(life.expiry(RoomStatus::Playing, false, ABANDONED), None);
        let t1 = t0 + Duration::from_secs(120);
        life.presence(true, t1);
        assert_eq!(
            life.expiry(RoomStatus::Playing, false, ABANDONED),
            Some((t1 + ABANDONED, Closed::Abandoned))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn finished_rooms_and_rooms_that_wait_for_their_players_never_expire() {
        let t0 = Instant::now();
        let life = Lifetime::new(t0, Some(t0));
        assert_eq!(life.expiry(RoomStatus::Finished, false, ABANDONED), None);
        assert_eq!(life.expiry(RoomStatus::Playing, true, ABANDONED), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_closing_not_recorded_is_tried_again_a_lifetime_later() {
        let t0 = Instant::now();
        let mut life = Lifetime::new(t0, Some(t0));
        let t1 = t0 + Duration::from_secs(5);
        life.closing_failed(t1, UNSTARTED);
        assert_eq!(
            life.expiry(RoomStatus::Waiting, false, ABANDONED),
            Some((t1 + UNSTARTED, Closed::NeverStarted))
        );
        assert_eq!(
            life.expiry(RoomStatus::Playing, false, ABANDONED),
            Some((t1 + ABANDONED, Closed::Abandoned))
        );
        // Nobody away stays nobody away.
        let mut here = Lifetime::new(t0, None);
        here.closing_failed(t1, UNSTARTED);
        assert_eq!(here.expiry(RoomStatus::Playing, false, ABANDONED), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_closed_room_stops_at_once_unless_it_lingers() {
        let t0 = Instant::now();
        let mut life = Lifetime::new(t0, None);
        assert!(!life.over());
        life.close(Closed::NeverStarted);
        assert!(life.over());
        assert_eq!(life.closed(), Some(Closed::NeverStarted));
        let mut aborted = Lifetime::new(t0, None);
        aborted.close(Closed::Aborted);
        aborted.linger_from(t0);
        assert!(!aborted.over());
        assert_eq!(aborted.linger_until(), Some(t0 + FINISHED_ROOM_LINGER));
    }
}
