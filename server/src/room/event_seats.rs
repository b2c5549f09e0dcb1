//! A tournament's game is made with its players already seated: each seat
//! is held for an account, absent until the player joins it (which takes
//! it back like any account's seat on a new connection). The match starts
//! at once, so an absent player's clock runs, as the event's rules say.
//! The players are named in the match's header, so a room restored with
//! seats still empty (a crash came between its making and its seating)
//! seats them as it starts.

use std::sync::Arc;

use parlor_games::Seat;
use uuid::Uuid;

use super::actor::Room;
use super::slot::Slot;
use super::{Member, RoomEvent};
use crate::outbox::ConnId;

impl Room {
    /// The players of a tournament's game with a seat still empty.
    pub(super) fn event_players(&self) -> Option<Vec<String>> {
        let event = self.header.event.as_ref()?;
        let empty = self.seats.iter().any(|s| matches!(s, Slot::Empty));
        (empty
            && !event.players.is_empty()
            && self.status() != parlor_protocol::RoomStatus::Finished)
            .then(|| event.players.clone())
    }

    /// Seats `names` by seat as absent account players.
    pub(super) async fn seat_accounts(&mut self, names: Vec<String>) {
        for (i, name) in names.into_iter().enumerate().take(self.seats.len()) {
            let Ok(index) = u8::try_from(i) else {
                break;
            };
            if !matches!(self.seats[i], Slot::Empty) {
                continue;
            }
            // Nobody is connected for the seat yet: refusals have no one
            // to go to (they are logged by the store's own errors).
            let host = Member {
                token: Uuid::new_v4(),
                name: Arc::from(name.as_str()),
                conn: ConnId(0),
                account: true,
            };
            let slot = Slot::Player {
                token: host.token,
                name,
                out: None,
                client_seed: None,
                account: true,
            };
            if !self.take_seat(&host, Seat(index), slot).await {
                tracing::error!(room = %self.id, seat = index, "a tournament seat could not be stored");
                return;
            }
            self.host.report(RoomEvent::Seated {
                room: self.id.clone(),
                token: host.token,
                seat: Seat(index),
            });
        }
        self.load_ratings().await;
        self.broadcast();
        self.publish();
    }
}
