//! A scheduled game (a tournament's or the ladder's), and a challenge's
//! or seek's game between accounts, is made with its players already
//! seated: its header names them by seat. A player's seat
//! is held for its account, absent until the player joins it (which takes
//! it back like any account's seat on a new connection); a ladder's
//! anchor is seated as its built-in strategy playing as its account. The
//! match starts at once, so an absent player's clock runs. A room
//! restored with seats still empty (a crash came between its making and
//! its seating) seats them as it starts.

use std::sync::Arc;

use parlor_games::Seat;
use uuid::Uuid;

use super::actor::Room;
use super::attached::Attached;
use super::slot::Slot;
use super::{Member, RoomEvent};
use crate::outbox::ConnId;

/// A seat the header names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct NamedSeat {
    /// The account.
    name: String,
    /// The built-in strategy that plays the seat server-side (an anchor),
    /// or `None` for a player over the protocol.
    strategy: Option<String>,
}

impl Room {
    /// Whether an event or the ladder made the match: its players are
    /// named in the header, and it ends by its rules or on time, never
    /// aborted or abandoned (the event or ladder counts its result).
    pub(super) fn scheduled(&self) -> bool {
        self.header.event.is_some() || self.header.ladder.is_some()
    }

    /// Whether the match's deal is shared with other rooms (a duplicate
    /// event's set): it then comes from the event's seed alone.
    pub(super) fn shares_deal(&self) -> bool {
        self.header
            .event
            .as_ref()
            .is_some_and(|e| !e.siblings.is_empty())
    }

    /// The seats the header names (a scheduled game's, or a challenge's
    /// or seek's between accounts), while one is still empty.
    pub(super) fn named_seats(&self) -> Option<Vec<NamedSeat>> {
        let named: Vec<NamedSeat> = match (&self.header.event, &self.header.ladder) {
            (Some(event), _) => event
                .players
                .iter()
                .map(|name| NamedSeat {
                    name: name.clone(),
                    strategy: None,
                })
                .collect(),
            (None, Some(ladder)) => ladder
                .players
                .iter()
                .enumerate()
                .map(|(i, name)| NamedSeat {
                    name: name.clone(),
                    strategy: ladder.strategies.get(i).cloned().flatten(),
                })
                .collect(),
            (None, None) => match &self.header.matched {
                Some(matched) => matched
                    .players
                    .iter()
                    .map(|name| NamedSeat {
                        name: name.clone(),
                        strategy: None,
                    })
                    .collect(),
                None => return None,
            },
        };
        let empty = self.seats.iter().any(|s| matches!(s, Slot::Empty));
        (empty && !named.is_empty() && self.status() != parlor_protocol::RoomStatus::Finished)
            .then_some(named)
    }

    /// Seats `named` by seat: players as absent account players, anchors
    /// as their strategy playing as their account.
    pub(super) async fn seat_named(&mut self, named: Vec<NamedSeat>) {
        for (i, seat) in named.into_iter().enumerate().take(self.seats.len()) {
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
                name: Arc::from(seat.name.as_str()),
                conn: ConnId(0),
                account: true,
            };
            if let Some(strategy) = seat.strategy {
                let Some(bot) = self.header.game.bot(&strategy) else {
                    // Only the server names strategies, from the game's own.
                    tracing::error!(room = %self.id, %strategy, "a named seat's strategy is not the game's");
                    return;
                };
                let slot = Slot::Bot {
                    strategy,
                    account: Some(seat.name),
                };
                // The bot is in place before the seat's taking can start
                // the match (which may make it the one to act).
                self.bots[i] = Some(bot);
                if !self.take_seat(&host, Seat(index), slot).await {
                    self.bots[i] = None;
                    tracing::error!(room = %self.id, seat = index, "a scheduled seat could not be stored");
                    return;
                }
                continue;
            }
            let slot = Slot::Player {
                token: host.token,
                name: seat.name,
                outs: Attached::none(),
                client_seed: None,
                account: true,
                // The player's client adds its seed once it joins and
                // sees the commitment; an absent player adds none. A
                // duplicate set's games share one deal: nobody adds to it.
                seed_due: if self.shares_deal() {
                    None
                } else {
                    Self::seed_wait()
                },
            };
            if !self.take_seat(&host, Seat(index), slot).await {
                tracing::error!(room = %self.id, seat = index, "a scheduled seat could not be stored");
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
