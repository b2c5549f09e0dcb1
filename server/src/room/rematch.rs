//! Rematches: once a match has ended, its players offer to play again;
//! when every player's seat has offered (built-in bots always agree), the
//! room asks its host for a new room with the same game, options, clock
//! and rated flag, everyone one seat on.

use std::collections::BTreeMap;

use parlor_games::{GameKind, Seat};
use parlor_protocol::{Clock, Closed, ErrorCode, RoomId, ServerMsg};
use serde_json::Value;

use super::actor::Room;
use super::slot::Slot;
use super::{Member, RoomEvent};

/// What a rematch needs: the room to make and who sits where in it.
#[derive(Debug)]
pub struct RematchPlan {
    /// The finished room.
    pub from: RoomId,
    /// The game.
    pub game: GameKind,
    /// Seats.
    pub seats: u8,
    /// Options, as the finished match had them.
    pub options: Value,
    /// Its clock.
    pub clock: Option<Clock>,
    /// Whether it is rated.
    pub rated: bool,
    /// Not listed.
    pub private: bool,
    /// Each player's new seat, and the member whose offer was last.
    pub players: Vec<(Seat, Member)>,
    /// Each built-in bot's new seat and strategy.
    pub bots: Vec<(Seat, String)>,
}

/// The offers made so far.
#[derive(Debug, Default)]
pub struct Offers {
    by_seat: BTreeMap<Seat, Member>,
    /// Set once the rematch was asked for: later offers are refused.
    started: bool,
}

/// Where an offer leaves the rematch.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Offered {
    /// Every player has offered: the rematch is to be made (once).
    Everyone,
    /// Still waiting for others: these seats have offered.
    Waiting(Vec<Seat>),
    /// The seat had offered already, through the same session and
    /// connection, and that offer still holds: nothing new to tell anyone
    /// (relaying it again would let one player flood the others).
    Repeated,
}

impl Offers {
    /// Whether the rematch was asked for already.
    pub(super) fn started(&self) -> bool {
        self.started
    }

    /// `who`, holding `seat`, offers. An offer lasts as long as the
    /// connection that made it: offers whose connection `open` no longer
    /// finds lapse. Once every seat of `players` (the seats players hold:
    /// bots always agree) has offered, the rematch starts.
    pub(super) fn offer(
        &mut self,
        seat: Seat,
        who: Member,
        open: impl Fn(&Member) -> bool,
        players: &[Seat],
    ) -> Offered {
        self.by_seat.retain(|_, m| open(m));
        let same = |m: &Member| m.token == who.token && m.conn == who.conn;
        if self.by_seat.get(&seat).is_some_and(same) {
            return Offered::Repeated;
        }
        self.by_seat.insert(seat, who);
        if players.iter().all(|s| self.by_seat.contains_key(s)) {
            self.started = true;
            Offered::Everyone
        } else {
            Offered::Waiting(self.by_seat.keys().copied().collect())
        }
    }

    /// The member whose offer holds `seat`, if it has offered.
    pub(super) fn by(&self, seat: Seat) -> Option<&Member> {
        self.by_seat.get(&seat)
    }
}

impl Room {
    /// `who` offers (or agrees to) a rematch.
    pub(super) fn offer_rematch(&mut self, who: Member) {
        let ended =
            self.game.outcome().is_some() || self.lifetime.closed() == Some(Closed::Aborted);
        if !ended {
            return self.error(
                &who,
                ErrorCode::RematchUnavailable,
                "a rematch can be offered once the match has ended",
            );
        }
        if self.header.event.is_some() || self.header.ladder.is_some() {
            // Their games are paired by the event or the ladder: a
            // rematch would be an unrated copy outside it (a ladder's
            // anchor would come back as a plain bot).
            return self.error(
                &who,
                ErrorCode::RematchUnavailable,
                "tournament and ladder games are paired by their event; find a new game in the lobby",
            );
        }
        if self.rematch.started() {
            return self.error(
                &who,
                ErrorCode::RematchUnavailable,
                "the rematch of this room has started already",
            );
        }
        let Some(seat) = self
            .seats
            .iter()
            .position(|s| s.speaks_for(&who))
            .and_then(|i| u8::try_from(i).ok())
            .map(Seat)
        else {
            return self.error(
                &who,
                ErrorCode::RematchUnavailable,
                "only a player of this match may offer a rematch",
            );
        };
        let players: Vec<Seat> = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Slot::Player { .. }))
            .filter_map(|(i, _)| u8::try_from(i).ok().map(Seat))
            .collect();
        let host = &self.host;
        let open = |m: &Member| host.outbox(m.conn).is_some();
        match self.rematch.offer(seat, who, open, &players) {
            Offered::Everyone => self.host.report(RoomEvent::Rematch(self.rematch_plan())),
            Offered::Waiting(seats) => {
                let msg = ServerMsg::RematchOffered {
                    room: self.id.clone(),
                    seats,
                };
                self.others(Seat(u8::MAX), &msg);
            }
            // Already told: the offer stands as it was.
            Offered::Repeated => {}
        }
    }

    /// The new room: the same game, seat count, options, clock and rated
    /// flag; each occupant moved one seat on.
    fn rematch_plan(&self) -> RematchPlan {
        let n = self.seats.len();
        let next = |i: usize| Seat(u8::try_from((i + 1) % n).unwrap_or(0));
        let mut players = Vec::new();
        let mut bots = Vec::new();
        for (i, slot) in self.seats.iter().enumerate() {
            match slot {
                Slot::Player { .. } => {
                    let offered = u8::try_from(i).ok().and_then(|s| self.rematch.by(Seat(s)));
                    if let Some(m) = offered {
                        players.push((next(i), m.clone()));
                    }
                }
                Slot::Bot { strategy, .. } => bots.push((next(i), strategy.clone())),
                Slot::Empty => {}
            }
        }
        RematchPlan {
            from: self.id.clone(),
            game: self.header.game,
            seats: self.header.seats,
            options: self.header.options.clone(),
            clock: self.header.clock,
            rated: self.header.rated,
            private: self.private,
            players,
            bots,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use uuid::Uuid;

    use super::*;
    use crate::outbox::ConnId;

    fn member(conn: u64) -> Member {
        Member {
            token: Uuid::new_v4(),
            name: Arc::from("p"),
            conn: ConnId(conn),
            account: false,
        }
    }

    const PLAYERS: [Seat; 2] = [Seat(0), Seat(1)];

    #[test]
    fn the_rematch_starts_once_every_player_has_offered() {
        let mut offers = Offers::default();
        let all_open = |_: &Member| true;
        assert_eq!(
            offers.offer(Seat(1), member(2), all_open, &PLAYERS),
            Offered::Waiting(vec![Seat(1)])
        );
        assert!(!offers.started());
        assert_eq!(
            offers.offer(Seat(0), member(1), all_open, &PLAYERS),
            Offered::Everyone
        );
        assert!(offers.started());
        assert_eq!(offers.by(Seat(0)).map(|m| m.conn), Some(ConnId(1)));
    }

    #[test]
    fn an_offer_lapses_with_its_connection() {
        let mut offers = Offers::default();
        offers.offer(Seat(0), member(1), |_| true, &PLAYERS);
        // Connection 1 has closed since.
        let open = |m: &Member| m.conn != ConnId(1);
        assert_eq!(
            offers.offer(Seat(1), member(2), open, &PLAYERS),
            Offered::Waiting(vec![Seat(1)])
        );
        assert!(offers.by(Seat(0)).is_none());
        assert!(!offers.started());
    }

    #[test]
    fn a_repeated_offer_is_told_once_until_it_lapses() {
        let mut offers = Offers::default();
        let al = member(1);
        assert_eq!(
            offers.offer(Seat(0), al.clone(), |_| true, &PLAYERS),
            Offered::Waiting(vec![Seat(0)])
        );
        assert_eq!(
            offers.offer(Seat(0), al.clone(), |_| true, &PLAYERS),
            Offered::Repeated
        );
        // Its connection closed: the offer lapsed, so a new one is news.
        let again = Member {
            conn: ConnId(3),
            ..al
        };
        let open = |m: &Member| m.conn != ConnId(1);
        assert_eq!(
            offers.offer(Seat(0), again, open, &PLAYERS),
            Offered::Waiting(vec![Seat(0)])
        );
    }

    #[test]
    fn seats_bots_hold_need_no_offer() {
        let mut offers = Offers::default();
        assert_eq!(
            offers.offer(Seat(1), member(2), |_| true, &[Seat(1)]),
            Offered::Everyone
        );
    }
}
