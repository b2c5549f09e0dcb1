//! The deal's seed exchange (protocol document, "Fair dealing"): the
//! room's commitment is fixed when it is made; a seat taken for its
//! player (a match found, a challenge accepted, a rematch, a tournament's
//! or the ladder's game) waits for the player's seed, which the client
//! sends once `joined` showed it the commitment; the deal is made when
//! every seat is settled: taken, with its seed or without (a plain
//! `join` without one, a bot, or a wait that ran out).

use std::time::Duration;

use parlor_games::deal::check_client_seed;
use parlor_games::Seat;
use parlor_protocol::{ErrorCode, RoomStatus};
use tokio::time::Instant;
use uuid::Uuid;

use super::actor::Room;
use super::slot::Slot;
use super::Member;
use crate::outbox::ConnId;

/// How long a seat taken for its player waits for the player's seed
/// before the deal goes ahead without it: a connected client answers
/// `joined` within a round trip, so this only matters for a player who
/// is away (a tournament's or the ladder's seat held for them) or whose
/// client sends no seed; their clock does not run meanwhile, and a few
/// seconds do not change a game.
pub const SEED_WAIT: Duration = Duration::from_secs(5);

impl Room {
    /// When the first seat waiting for its seed stops waiting.
    pub(super) fn seed_due(&self) -> Option<Instant> {
        self.seats.iter().filter_map(Slot::seed_due).min()
    }

    /// A seat's seed, sent after `joined`: settles the seat with it.
    pub(super) async fn seed(&mut self, who: Member, client_seed: String) {
        if let Err(e) = check_client_seed(&client_seed) {
            return self.error(&who, ErrorCode::RequestMalformed, e.to_string());
        }
        let Some(i) = self.seats.iter().position(|s| s.speaks_for(&who)) else {
            return self.error(
                &who,
                ErrorCode::RoomNotMember,
                "you hold no seat in this room",
            );
        };
        if self.seats[i].seed_due().is_none() {
            return self.error(
                &who,
                ErrorCode::RoomSeedNotWanted,
                "this seat waits for no seed: the deal is made, or the seat was taken with its seed or without one",
            );
        }
        self.settle_seat(&who, i, Some(client_seed)).await;
    }

    /// Settles every seat whose wait for a seed ran out, without one.
    pub(super) async fn end_seed_wait(&mut self) {
        self.settle_waiting_until(Instant::now()).await;
    }

    /// Ends every seat's wait for its seed at once (a scheduled game's
    /// player leaves before its deal: its seats are never freed, so the
    /// match is dealt and the leave resigns it).
    pub(super) async fn end_every_seed_wait(&mut self) {
        let Some(last) = self.seats.iter().filter_map(Slot::seed_due).max() else {
            return;
        };
        self.settle_waiting_until(last).await;
    }

    /// Settles without a seed every seat waiting for one until `at` or
    /// earlier.
    async fn settle_waiting_until(&mut self, at: Instant) {
        let due: Vec<usize> = (0..self.seats.len())
            .filter(|&i| self.seats[i].seed_due().is_some_and(|due| due <= at))
            .collect();
        // Nobody asked: refusals (a failed write) have no one to go to
        // and are logged by `take_seat`.
        let server = Member {
            token: Uuid::nil(),
            name: "server".into(),
            conn: ConnId(0),
            account: false,
        };
        for i in due {
            self.settle_seat(&server, i, None).await;
        }
    }

    /// Settles seat `i`, waiting for its seed, with `client_seed` (none
    /// if `None`): stored, and dealt if it was the last one unsettled.
    pub(super) async fn settle_seat(
        &mut self,
        who: &Member,
        i: usize,
        client_seed: Option<String>,
    ) {
        let Slot::Player {
            token,
            name,
            outs,
            account,
            seed_due: Some(_),
            ..
        } = &self.seats[i]
        else {
            return;
        };
        let slot = Slot::Player {
            token: *token,
            name: name.clone(),
            outs: outs.clone(),
            account: *account,
            client_seed,
            seed_due: None,
        };
        let Ok(seat) = u8::try_from(i) else {
            return;
        };
        if !self.take_seat(who, Seat(seat), slot).await {
            return;
        }
        if self.status() == RoomStatus::Playing {
            self.broadcast();
            self.publish();
        }
    }

    /// When a seat taken for its player now waits for the player's seed.
    pub(super) fn seed_wait() -> Option<Instant> {
        Some(Instant::now() + SEED_WAIT)
    }

    /// Deals the match as it starts: from the committed server seed and
    /// every seat's client seed, so that nobody alone chose the deal. (While
    /// the room waited, its view showed a provisional deal from the server
    /// seed alone.)
    pub(super) fn deal(&mut self) {
        let Some(deal) = self.header.deal.as_mut() else {
            return;
        };
        deal.client_seeds = self
            .seats
            .iter()
            .map(|s| s.client_seed().map(str::to_owned))
            .collect();
        deal.bot_seats = (0u8..)
            .zip(&self.seats)
            .filter(|(_, s)| matches!(s, Slot::Bot { .. }))
            .map(|(i, _)| Seat(i))
            .collect();
        match parlor_protocol::replay(&self.header, &[]) {
            Ok((game, rng)) => {
                self.game = game;
                self.rng = rng;
            }
            // The options were set up once already; this cannot fail
            // short of a bug, and the provisional deal then stands.
            Err(e) => tracing::error!(room = %self.id, error = %e, "cannot deal"),
        }
    }
}
