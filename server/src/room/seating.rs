//! Who is in a room: taking and leaving seats, watching, connections
//! coming and going.

use parlor_games::deal::check_client_seed;
use parlor_games::Seat;
use parlor_protocol::{ErrorCode, RoomStatus, ServerMsg};
use tokio::time::Instant;

use super::actor::Room;
use super::attached::Attached;
use super::slot::Slot;
use super::{Member, RoomEvent};
use crate::accounts::name_key;
use crate::outbox::ConnId;

impl Room {
    pub(super) fn spectate(&mut self, who: Member) {
        let Some(out) = self.host.outbox(who.conn) else {
            return;
        };
        out.send(&ServerMsg::Spectating {
            room: self.id.clone(),
        });
        out.send_text(self.update_for(None));
        // Watching twice, or watching one's own table, would only
        // duplicate updates.
        let watching = self.spectators.iter().any(|m| m.id() == who.conn);
        let seated = self.seats.iter().any(|s| s.attached_to(who.conn));
        if !watching && !seated {
            self.spectators.push(out);
            let key = who.account.then(|| crate::accounts::name_key(&who.name));
            self.chat.watcher(who.conn, key);
            self.publish();
        }
    }

    /// The seat to fill: the one asked for, or the first free one.
    fn free_seat(&self, who: &Member, seat: Option<Seat>) -> Option<Seat> {
        if self.status() == RoomStatus::Finished {
            self.error(who, ErrorCode::ActionGameOver, "the match is over");
            return None;
        }
        match seat {
            Some(s) if s.index() >= self.seats.len() => {
                self.error(
                    who,
                    ErrorCode::RoomNoSuchSeat,
                    format!("this room has seats 0 to {}", self.seats.len() - 1),
                );
                None
            }
            Some(s) if !matches!(self.seats[s.index()], Slot::Empty) => {
                self.error(who, ErrorCode::RoomSeatTaken, format!("{s} is taken"));
                None
            }
            Some(s) => Some(s),
            None => {
                let free = self.seats.iter().position(|s| matches!(s, Slot::Empty));
                if free.is_none() {
                    self.error(who, ErrorCode::RoomFull, "every seat is taken");
                }
                free.map(|i| Seat(i as u8))
            }
        }
    }

    pub(super) async fn take_seat(&mut self, who: &Member, seat: Seat, slot: Slot) -> bool {
        if let Err(e) = self.store().set_seat(self.key, seat, slot.stored()).await {
            tracing::error!(room = %self.id, error = %e, "cannot store a seat");
            self.error(
                who,
                ErrorCode::ServerStorage,
                format!("the seat could not be stored: {e}"),
            );
            return false;
        }
        let before = self.status();
        self.seats[seat.index()] = slot;
        let started = before == RoomStatus::Waiting && self.status() == RoomStatus::Playing;
        if started {
            self.deal();
        }
        self.sync_clocks(Instant::now());
        if started {
            self.on_start().await;
        }
        true
    }

    /// The seat `seat` (or with `None`, the first seat) that `who`'s
    /// account holds, if `who` is an account and it does (names compare
    /// by their key).
    fn own_account_seat(&self, who: &Member, seat: Option<Seat>) -> Option<Seat> {
        if !who.account {
            return None;
        }
        let mine = name_key(&who.name);
        let held = |i: usize| {
            self.seats
                .get(i)
                .and_then(Slot::player_account_key)
                .is_some_and(|k| k == mine)
        };
        match seat {
            Some(s) if held(s.index()) => Some(s),
            Some(_) => None,
            // A join naming no seat, by an account holding one here (on
            // another connection, or named by the room's header): that
            // seat, not a refusal for a full room.
            None => (0..self.seats.len())
                .find(|&i| held(i))
                .and_then(|i| u8::try_from(i).ok())
                .map(Seat),
        }
    }

    /// An account opens its seat `seat` on another connection (a tab, a
    /// device, a program): the connection is added to those the seat is
    /// shown on, and gets `joined` and its update; the others stay. A
    /// seat nobody is connected to is also stored under the new
    /// connection's token, so that this connection resumes it with its
    /// token after a drop, as one that took the seat would. A seat still
    /// waiting for its seed (one taken for its player) waits on if a seed
    /// was promised (the client sends it with `seed` once `joined` has
    /// shown it the commitment), and is settled without one otherwise.
    async fn attach(&mut self, who: Member, seat: Seat, promised: bool) {
        let Some(out) = self.host.outbox(who.conn) else {
            return;
        };
        let Slot::Player {
            token: old_token,
            name,
            outs,
            client_seed: seed_before,
            seed_due,
            ..
        } = &self.seats[seat.index()]
        else {
            return;
        };
        let was_connected = outs.connected();
        let old_token = *old_token;
        if !was_connected && old_token != who.token {
            let mut outs = outs.clone();
            outs.add(out.clone());
            let slot = Slot::Player {
                token: who.token,
                name: name.clone(),
                outs,
                client_seed: seed_before.clone(),
                account: true,
                seed_due: *seed_due,
            };
            if !self.take_seat(&who, seat, slot).await {
                return;
            }
            self.host.report(RoomEvent::Unseated {
                room: self.id.clone(),
                token: old_token,
            });
            self.host.report(RoomEvent::Seated {
                room: self.id.clone(),
                token: who.token,
                seat,
            });
        } else if let Slot::Player { outs, .. } = &mut self.seats[seat.index()] {
            outs.add(out);
        }
        self.spectators.retain(|m| m.id() != who.conn);
        let waiting = self.status() == RoomStatus::Waiting;
        if self.seats[seat.index()].seed_due().is_some() && !promised {
            self.settle_seat(&who, seat.index(), None).await;
        }
        let started = waiting && self.status() == RoomStatus::Playing;
        self.load_ratings().await;
        self.reply(
            &who,
            &ServerMsg::Joined {
                room: self.id.clone(),
                seat,
                commitment: self.commitment(),
                seed_wanted: self.seats[seat.index()].seed_due().is_some(),
            },
        );
        if started {
            self.broadcast();
        } else {
            self.reply_update(&who, seat);
        }
        if !was_connected {
            self.others(
                seat,
                &ServerMsg::Presence {
                    room: self.id.clone(),
                    seat,
                    connected: true,
                },
            );
        }
        self.publish();
    }

    fn reply_update(&self, who: &Member, seat: Seat) {
        if let Some(out) = self.host.outbox(who.conn) {
            out.send_text(self.update_for(Some(seat)));
        }
    }

    pub(super) async fn join(
        &mut self,
        who: Member,
        seat: Option<Seat>,
        client_seed: Option<String>,
        await_seed: bool,
    ) {
        if let Some(own) = self.own_account_seat(&who, seat) {
            // The account's seat, opened here: from another tab or device,
            // or again on this connection (answered as the first time, so
            // that a client may join the room it shows after any reconnect).
            // A seed in the join, or promised by the seek or challenge that
            // summoned it (the client sends it on `joined`).
            let promised = client_seed.is_some() || await_seed;
            return self.attach(who, own, promised).await;
        }
        if self
            .seats
            .iter()
            .any(|s| s.held_by(who.token) && !s.attached_to(who.conn))
        {
            // Already this token's, on another connection: as a resume.
            return self.resume(who);
        }
        if self.seats.iter().any(|s| s.held_by(who.token)) {
            return self.error(
                &who,
                ErrorCode::RoomAlreadySeated,
                "you already hold a seat here",
            );
        }
        if !who.account && self.header.clock.is_some_and(|c| c.is_correspondence()) {
            return self.error(
                &who,
                ErrorCode::AuthRequired,
                "only players with an account may join a correspondence room; log in first",
            );
        }
        if let Some(Err(e)) = client_seed.as_deref().map(check_client_seed) {
            return self.error(&who, ErrorCode::RequestMalformed, e.to_string());
        }
        let Some(seat) = self.free_seat(&who, seat) else {
            return;
        };
        let seed_due = if await_seed && client_seed.is_none() {
            Self::seed_wait()
        } else {
            None
        };
        let slot = Slot::Player {
            token: who.token,
            name: who.name.to_string(),
            outs: Attached::only(self.host.outbox(who.conn)),
            client_seed,
            account: who.account,
            seed_due,
        };
        if !self.take_seat(&who, seat, slot).await {
            return;
        }
        self.load_ratings().await;
        self.host.report(RoomEvent::Seated {
            room: self.id.clone(),
            token: who.token,
            seat,
        });
        self.spectators.retain(|m| m.id() != who.conn);
        self.reply(
            &who,
            &ServerMsg::Joined {
                room: self.id.clone(),
                seat,
                commitment: self.commitment(),
                seed_wanted: self.seats[seat.index()].seed_due().is_some(),
            },
        );
        self.broadcast();
        self.publish();
    }

    pub(super) async fn add_bot(
        &mut self,
        who: Member,
        seat: Option<Seat>,
        strategy: Option<String>,
    ) {
        if self.creator != Some(who.token) && !self.seats.iter().any(|s| s.owned_by(&who)) {
            return self.error(
                &who,
                ErrorCode::RoomNotAllowed,
                "only the room's creator or a seated player may add bots",
            );
        }
        let kind = self.header.game;
        let name = strategy.unwrap_or_else(|| {
            kind.strategies()
                .first()
                .copied()
                .unwrap_or_default()
                .to_owned()
        });
        let Some(bot) = kind.bot(&name) else {
            return self.error(
                &who,
                ErrorCode::RoomUnknownStrategy,
                format!(
                    "{kind} has no bot {name:?}; bots: {}",
                    kind.strategies().join(", ")
                ),
            );
        };
        let Some(seat) = self.free_seat(&who, seat) else {
            return;
        };
        let slot = Slot::Bot {
            strategy: name.clone(),
            account: None,
        };
        if !self.take_seat(&who, seat, slot).await {
            return;
        }
        self.bots[seat.index()] = Some(bot);
        self.reply(
            &who,
            &ServerMsg::BotAdded {
                room: self.id.clone(),
                seat,
                strategy: name,
            },
        );
        self.broadcast();
        self.publish();
    }

    pub(super) async fn leave(&mut self, who: Member) {
        let before = self.spectators.len();
        self.spectators.retain(|m| m.id() != who.conn);
        let was_spectator = self.spectators.len() != before;
        // The seat this connection speaks for, else one that is theirs
        // elsewhere (refused below).
        let held = self
            .seats
            .iter()
            .position(|s| s.speaks_for(&who))
            .or_else(|| self.seats.iter().position(|s| s.held_by(who.token)))
            .map(|i| Seat(i as u8));
        let attached = held.filter(|s| self.seats[s.index()].attached_to(who.conn));
        if attached.is_some() && self.scheduled() && self.status() == RoomStatus::Waiting {
            // A scheduled game's seats are never freed: its deal is made
            // now, and the leave resigns it.
            self.end_every_seed_wait().await;
        } else if let Some(seat) = attached.filter(|s| self.seats[s.index()].seed_due().is_some()) {
            // Leaving ends the wait for the seat's seed: a seat taken for
            // its player is theirs as if they had sat, so leaving a match
            // that this starts resigns it.
            self.settle_seat(&who, seat.index(), None).await;
        }
        match (held, self.status()) {
            (Some(seat), _) if !self.seats[seat.index()].attached_to(who.conn) => {
                return self.error(
                    &who,
                    ErrorCode::ActionNotYourSeat,
                    format!("{seat} is held from another connection"),
                );
            }
            (Some(seat), RoomStatus::Waiting) => {
                if !self.take_seat(&who, seat, Slot::Empty).await {
                    return;
                }
                self.host.report(RoomEvent::Unseated {
                    room: self.id.clone(),
                    token: who.token,
                });
                self.broadcast();
            }
            (Some(seat), RoomStatus::Playing) => {
                if let Err(e) = self.resign(seat).await {
                    return self.error(
                        &who,
                        ErrorCode::ServerStorage,
                        format!("the resignation could not be stored: {e}"),
                    );
                }
            }
            (Some(seat), RoomStatus::Finished) => {
                if let Slot::Player { outs, .. } = &mut self.seats[seat.index()] {
                    outs.remove(who.conn);
                }
            }
            (None, _) if was_spectator => {}
            (None, _) => {
                return self.error(
                    &who,
                    ErrorCode::RoomNotMember,
                    "you neither sit nor watch in this room",
                );
            }
        }
        self.reply(
            &who,
            &ServerMsg::Left {
                room: self.id.clone(),
            },
        );
        self.publish();
    }

    pub(super) fn resume(&mut self, who: Member) {
        let Some(new) = self.host.outbox(who.conn) else {
            return;
        };
        let mut seats = Vec::new();
        for (i, slot) in self.seats.iter_mut().enumerate() {
            if let Slot::Player {
                token,
                outs,
                name,
                account,
                ..
            } = slot
            {
                if *token == who.token {
                    if who.account {
                        // Another connection of the account resuming its
                        // token: both show the seat.
                        outs.add(new.clone());
                    } else {
                        // A guest's seat answers to one connection: the
                        // one that spoke for the token before no longer
                        // does (its session closes it, taken over).
                        *outs = Attached::only(Some(new.clone()));
                    }
                    // A seat stored by an older server kept its name but not
                    // its account mark: the account resuming it under that
                    // name marks it again (in memory; `my_games` lists it
                    // once the seat is stored again).
                    if who.account && name.as_str() == who.name.as_ref() {
                        *account = true;
                    }
                    seats.push(Seat(i as u8));
                }
            }
        }
        for seat in seats {
            self.others(
                seat,
                &ServerMsg::Presence {
                    room: self.id.clone(),
                    seat,
                    connected: true,
                },
            );
            new.send(&ServerMsg::Joined {
                room: self.id.clone(),
                seat,
                commitment: self.commitment(),
                seed_wanted: self.seats[seat.index()].seed_due().is_some(),
            });
            new.send_text(self.update_for(Some(seat)));
        }
        self.publish();
    }

    pub(super) fn detach(&mut self, conn: ConnId) {
        self.spectators.retain(|m| m.id() != conn);
        let mut dropped = Vec::new();
        for (i, slot) in self.seats.iter_mut().enumerate() {
            if let Slot::Player { outs, .. } = slot {
                // Presence changes only when the last one goes.
                if outs.remove(conn) && !outs.connected() {
                    dropped.push(Seat(i as u8));
                }
            }
        }
        for seat in dropped {
            self.others(
                seat,
                &ServerMsg::Presence {
                    room: self.id.clone(),
                    seat,
                    connected: false,
                },
            );
        }
        self.publish();
    }
}
