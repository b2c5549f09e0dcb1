//! The room actor: its state, its loop and the dispatch of commands.
//!
//! The room holds its match's core (the game, its chance stream and
//! position, the seats and who watches, the clocks); each feature keeps
//! its own state beside it, in its own file with its methods: ratings
//! ([`RoomRatings`]), rematch offers ([`Offers`]), the room's lifetime
//! ([`Lifetime`]: expiry, lingering, closing) and its fencing
//! ([`Fencing`]: taken over, unsure of its log, failed writes).

use std::sync::Arc;

use parlor_games::{AnyBot, AnyGame, GameRng, Seat};
use parlor_protocol::{ErrorCode, MatchHeader, RoomId, RoomStatus, RoomSummary, ServerMsg};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{sleep_until, Instant};
use uuid::Uuid;

use super::chat::RoomChat;
use super::clock::Clocks;
use super::expiry::Lifetime;
use super::fencing::Fencing;
use super::rating::RoomRatings;
use super::rematch::Offers;
use super::slot::Slot;
use super::{Member, RoomCmd, RoomEvent, RoomHost, RoomRequest};
use crate::outbox::Outbox;
use crate::store::{MatchKey, Store};

/// One room's match and everyone in it.
#[derive(Debug)]
pub(super) struct Room {
    pub id: RoomId,
    pub key: MatchKey,
    pub header: MatchHeader,
    pub private: bool,
    pub creator: Option<Uuid>,
    pub game: AnyGame,
    pub rng: GameRng,
    pub seq: u64,
    pub seats: Vec<Slot>,
    pub bots: Vec<Option<AnyBot>>,
    pub spectators: Vec<Outbox>,
    pub clocks: Option<Clocks>,
    pub bot_rng: GameRng,
    pub host: Arc<dyn RoomHost>,
    /// Per seat: whether it has made a move of its own (a rated match
    /// whose seat runs out of time before its first is aborted).
    pub has_moved: Vec<bool>,
    /// When the room closes, and how it did.
    pub lifetime: Lifetime,
    /// Its hold on its own state (taken over, unsure, failing writes).
    pub fencing: Fencing,
    /// Rematch offers, once the match is over.
    pub rematch: Offers,
    /// Ratings beside the seats and, at the end, their changes.
    pub ratings: RoomRatings,
    /// Its chat.
    pub chat: RoomChat,
}

impl Room {
    pub(super) async fn run(
        mut self,
        mut inbox: mpsc::Receiver<RoomCmd>,
        seated: Option<oneshot::Sender<()>>,
    ) {
        // A tournament's or the ladder's game seats its players itself,
        // new or restored (a crash between making the room and seating
        // them left it unseated): who sits where is in the header.
        if let Some(named) = self.named_seats() {
            self.seat_named(named).await;
        }
        if let Some(seated) = seated {
            // Its maker may have stopped waiting: nothing to tell then.
            let _ = seated.send(());
        }
        self.load_ratings().await;
        self.sync_clocks(Instant::now());
        self.run_bots(&mut inbox).await;
        let shutdown = self.host.shutdown();
        // Made once, not per command (each made future registers a waiter).
        let mut shutting_down = std::pin::pin!(shutdown.cancelled());
        loop {
            // Closed between the bots' moves (see `close_if_expired`); an
            // aborted match lingers as a finished one does.
            if self.lifetime.over() {
                break;
            }
            let deadline = if self.status() == RoomStatus::Playing && !self.fencing.store_failed() {
                self.clocks.as_ref().and_then(Clocks::deadline)
            } else {
                None
            };
            let seed_due = self.seed_due();
            let linger = self.lifetime.linger_until();
            let expiry = self.expiry();
            // In a fixed order (no random draw per command): timers come
            // before the inbox, so a stream of commands cannot hold off a
            // clock.
            tokio::select! {
                biased;
                _ = &mut shutting_down => break,
                _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.on_clock().await;
                }
                _ = sleep_until(seed_due.unwrap_or_else(Instant::now)), if seed_due.is_some() => {
                    self.end_seed_wait().await;
                }
                _ = sleep_until(linger.unwrap_or_else(Instant::now)), if linger.is_some() => break,
                _ = sleep_until(expiry.map_or_else(Instant::now, |(at, _)| at)), if expiry.is_some() => {
                    if let Some((_, why)) = expiry {
                        if self.close(why).await {
                            break;
                        }
                    }
                }
                cmd = inbox.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => {
                        // The registry let the room go while it ran: its
                        // node gave up every room (a `Relinquish` finds
                        // no place in a full inbox), so its members must
                        // still hear that it moved. A finished room let
                        // go while lingering has nothing to tell.
                        if self.status() != RoomStatus::Finished {
                            self.give_up();
                        }
                        break;
                    }
                },
            }
            if self.fencing.moved() {
                break;
            }
            self.run_bots(&mut inbox).await;
            if self.fencing.moved() {
                break;
            }
        }
        self.host.report(RoomEvent::Stopped {
            room: self.id.clone(),
            epoch: self.key.epoch(),
        });
    }

    pub(super) async fn handle(&mut self, cmd: RoomCmd) {
        match cmd {
            // The node lost its lease since this room was set up here, so
            // the room was fenced and may be hosted elsewhere, perhaps
            // further on; the registry's notice to stop may still be on
            // its way, and by then the node may hold a lease again (under
            // a new id), which `hold_unsure` would take for this room's.
            RoomCmd::Request {
                who,
                req: RoomRequest::Spectate | RoomRequest::Resume,
            } if self.hold_lost() => {
                self.give_up();
                self.error(
                    &who,
                    ErrorCode::RoomMoved,
                    "another server hosts this room now; send resume (or spectate) again to carry on",
                );
            }
            // A node woken from a pause longer than its lease may still
            // run a room another node has taken over meanwhile (its
            // commands, buffered by the bus, arrive before it notices):
            // until its lease is confirmed again it shows no one the
            // room's position, which may be stale. Moves need no such
            // check: their writes are refused.
            RoomCmd::Request {
                who,
                req: RoomRequest::Spectate | RoomRequest::Resume,
            } if self.hold_unsure() => {
                self.error(
                    &who,
                    ErrorCode::ServerUnreachable,
                    "this server's hold on the room is not confirmed now; resume (or spectate) again shortly",
                );
            }
            RoomCmd::Request { who, req } => match req {
                RoomRequest::Join {
                    seat,
                    client_seed,
                    await_seed,
                } => {
                    self.join(who.clone(), seat, client_seed, await_seed).await;
                    self.chat_history(&who).await;
                }
                RoomRequest::Seed { client_seed } => self.seed(who, client_seed).await,
                RoomRequest::Spectate => {
                    self.spectate(who.clone());
                    self.chat_history(&who).await;
                }
                RoomRequest::AddBot { seat, strategy } => self.add_bot(who, seat, strategy).await,
                RoomRequest::Play { seat, seq, mv } => self.play(who, seat, seq, mv).await,
                RoomRequest::Leave => self.leave(who).await,
                RoomRequest::Abort => self.abort(who).await,
                RoomRequest::Resume => {
                    self.resume(who.clone());
                    self.chat_history(&who).await;
                }
                RoomRequest::Rematch => self.offer_rematch(who),
                RoomRequest::Say { text, phrase, to } => self.say(who, text, phrase, to).await,
            },
            RoomCmd::Detach { conn, .. } => self.detach(conn),
            RoomCmd::Resign { account } => self.resign_account(&account).await,
            RoomCmd::Relinquish => self.give_up(),
        }
        self.track_presence(Instant::now());
    }

    pub(super) fn store(&self) -> &Store {
        self.host.store()
    }

    /// Cluster mode: whether this node has lost its lease since the room
    /// was set up here (the room is surely not this node's any more).
    fn hold_lost(&self) -> bool {
        let current = self.store().cluster().map(|c| c.generation());
        self.fencing.hold_lost(current)
    }

    /// Cluster mode: whether this node's lease has run out unconfirmed
    /// (another node may own the room now).
    fn hold_unsure(&self) -> bool {
        self.store().cluster().is_some_and(|c| !c.lease_held())
    }

    pub(super) fn status(&self) -> RoomStatus {
        if self.game.outcome().is_some() || self.lifetime.closed().is_some() {
            RoomStatus::Finished
        } else if !self.seats.iter().all(Slot::settled) {
            RoomStatus::Waiting
        } else {
            RoomStatus::Playing
        }
    }

    pub(super) fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.id.clone(),
            game: self.header.game,
            status: self.status(),
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, slot)| parlor_protocol::SeatInfo {
                    seat: Seat(i as u8),
                    occupant: slot.occupant(),
                    rating: self.ratings.of(i),
                })
                .collect(),
            spectators: u32::try_from(self.spectators.len()).unwrap_or(u32::MAX),
            commitment: self.commitment(),
        }
    }

    /// The commitment to the deal's server seed, for fairly dealt matches.
    pub(super) fn commitment(&self) -> Option<String> {
        self.header.deal.as_ref().map(|d| d.commitment.clone())
    }

    /// The players seated, by token.
    pub(super) fn seated(&self) -> Vec<(Uuid, Seat)> {
        self.seats
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.player_token().map(|t| (t, Seat(i as u8))))
            .collect()
    }

    pub(super) fn publish(&self) {
        self.host.report(RoomEvent::Changed {
            room: self.id.clone(),
            summary: self.summary(),
            private: self.private,
        });
    }

    /// Sends `msg` to the connection `who` spoke from.
    pub(super) fn reply(&self, who: &Member, msg: &ServerMsg) {
        if let Some(out) = self.host.outbox(who.conn) {
            out.send(msg);
        }
    }

    pub(super) fn error(&self, who: &Member, code: ErrorCode, message: impl Into<String>) {
        self.reply(who, &ServerMsg::room_error(&self.id, code, message));
    }
}
