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

impl Room {
    /// `who` offers (or agrees to) a rematch.
    pub(super) fn offer_rematch(&mut self, who: Member) {
        let ended = self.game.outcome().is_some() || self.closed == Some(Closed::Aborted);
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
        if self.rematch.started {
            return self.error(
                &who,
                ErrorCode::RematchUnavailable,
                "the rematch of this room has started already",
            );
        }
        let Some(seat) = self
            .seats
            .iter()
            .position(|s| s.held_by(who.token))
            .and_then(|i| u8::try_from(i).ok())
            .map(Seat)
        else {
            return self.error(
                &who,
                ErrorCode::RematchUnavailable,
                "only a player of this match may offer a rematch",
            );
        };
        self.rematch.by_seat.insert(seat, who);
        // An offer lasts as long as the connection that made it.
        let host = &self.host;
        self.rematch
            .by_seat
            .retain(|_, m| host.outbox(m.conn).is_some());
        let players: Vec<Seat> = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Slot::Player { .. }))
            .filter_map(|(i, _)| u8::try_from(i).ok().map(Seat))
            .collect();
        if players.iter().all(|s| self.rematch.by_seat.contains_key(s)) {
            self.rematch.started = true;
            self.host.report(RoomEvent::Rematch(self.rematch_plan()));
        } else {
            let msg = ServerMsg::RematchOffered {
                room: self.id.clone(),
                seats: self.rematch.by_seat.keys().copied().collect(),
            };
            self.others(Seat(u8::MAX), &msg);
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
                    let offered = u8::try_from(i)
                        .ok()
                        .and_then(|s| self.rematch.by_seat.get(&Seat(s)));
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
