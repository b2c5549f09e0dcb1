//! What a room sends: each member's own update, and notices to the others.

use parlor_games::{AnyView, GameKind, LegalMoves, Outcome, Seat, SeatSet, Viewer};
use parlor_protocol::{encode, Closed, RoomId, RoomStatus, ServerMsg};
use serde::Serialize;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::actor::Room;
use super::slot::SeatList;
use crate::limits::MAX_LEGAL_SENT;

/// An update as it goes on the wire: the same JSON as
/// `ServerMsg::Update(Update)`, borrowed instead of built.
#[derive(Serialize)]
struct UpdateFrame<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    room: &'a RoomId,
    game: GameKind,
    seq: u64,
    status: RoomStatus,
    seats: SeatList<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    you: Option<Seat>,
    to_act: SeatSet,
    view: &'a AnyView,
    #[serde(skip_serializing_if = "Option::is_none")]
    legal: Option<LegalMoves>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clocks: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    closed: Option<Closed>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rating_changes: Option<&'a [parlor_protocol::RatingChange]>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    may_abort: bool,
}

impl Room {
    /// One recipient's update, serialised straight from the game's view,
    /// seats and moves (no intermediate JSON tree or copied lists: building
    /// them per recipient was a large share of the allocations per move).
    pub(super) fn update_for(&self, you: Option<Seat>) -> Utf8Bytes {
        let status = self.status();
        let to_act = if status == RoomStatus::Playing {
            self.game.to_act()
        } else {
            SeatSet::EMPTY
        };
        let legal = you
            .filter(|s| to_act.contains(*s))
            .and_then(|s| self.game.legal_list(s, MAX_LEGAL_SENT));
        // Until every seat is taken the deal is only provisional (the
        // client seeds are not all in): everyone sees its public part.
        let viewer = match you {
            Some(seat) if status != RoomStatus::Waiting => Viewer::Seat(seat),
            _ => Viewer::Spectator,
        };
        let view = self.game.view(viewer);
        let frame = UpdateFrame {
            kind: "update",
            room: &self.id,
            game: self.header.game,
            seq: self.seq,
            status,
            seats: SeatList(&self.seats, self.ratings.shown()),
            you,
            to_act,
            view: &view,
            legal,
            clocks: self.clocks.as_ref().map(|c| c.snapshot(Instant::now())),
            outcome: self.game.outcome(),
            closed: self.lifetime.closed(),
            rating_changes: self.ratings.changes(),
            may_abort: you.is_some_and(|s| self.may_abort(s)),
        };
        Utf8Bytes::from(encode(&frame))
    }

    /// Sends every member its own update; spectators share one encoding.
    pub(super) fn broadcast(&mut self) {
        for (i, slot) in self.seats.iter().enumerate() {
            if let Some(outs) = slot.outs().filter(|o| !o.is_empty()) {
                outs.send_text(&self.update_for(Some(Seat(i as u8))));
            }
        }
        self.spectators.retain(|m| m.is_open());
        if !self.spectators.is_empty() {
            let text = self.update_for(None);
            for m in &self.spectators {
                m.send_text(text.clone());
            }
        }
    }

    /// Sends `msg` to every member but the player in `except`.
    pub(super) fn others(&self, except: Seat, msg: &ServerMsg) {
        let text = Utf8Bytes::from(encode(msg));
        for (i, slot) in self.seats.iter().enumerate() {
            if i == except.index() {
                continue;
            }
            if let Some(outs) = slot.outs() {
                outs.send_text(&text);
            }
        }
        for m in &self.spectators {
            m.send_text(text.clone());
        }
    }
}
