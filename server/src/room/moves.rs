//! Steps of the match: moves played, bots thinking, clocks running out.

use parlor_games::{AnyMove, IllegalMove, Seat, SeatSet, Viewer};
use parlor_protocol::{ErrorCode, LogEntry, LoggedAction, RoomStatus, ServerMsg};
use serde_json::Value;
use tokio::time::Instant;

use tokio::sync::mpsc;

use super::actor::Room;
use super::slot::Slot;
use super::{Member, RoomCmd};
use crate::accounts::name_key;
use crate::store::{Step as StoreStep, StoreError};

/// One step a seat takes.
#[derive(Debug)]
enum Step {
    Move(AnyMove),
    Timeout(AnyMove),
    Forfeit,
}

/// Why a step was not taken.
#[derive(Debug)]
enum Refusal {
    Illegal(IllegalMove),
    Storage(StoreError),
    /// The log held a step this room had not applied: the position moved
    /// on (everyone has been told), so the step answers an old one.
    Stale,
    /// Another node hosts the room now (everyone has been told).
    Moved,
}

impl Room {
    pub(super) fn sync_clocks(&mut self, now: Instant) {
        let due = if self.status() == RoomStatus::Playing {
            self.game.to_act()
        } else {
            SeatSet::EMPTY
        };
        if let Some(c) = self.clocks.as_mut() {
            c.sync(due, now);
        }
    }

    /// Refuses a move with `code`, counted by its code.
    fn refuse(&self, who: &Member, code: ErrorCode, message: impl Into<String>) {
        crate::metrics::move_refused(code);
        self.error(who, code, message);
    }

    pub(super) async fn play(&mut self, who: Member, seat: Seat, seq: u64, mv: Value) {
        match self.status() {
            RoomStatus::Waiting => {
                return self.refuse(
                    &who,
                    ErrorCode::ActionNotStarted,
                    "the match starts when every seat is taken",
                )
            }
            RoomStatus::Finished => {
                return self.refuse(&who, ErrorCode::ActionGameOver, "the match is over")
            }
            RoomStatus::Playing => {}
        }
        match self.seats.get(seat.index()) {
            None => {
                return self.refuse(
                    &who,
                    ErrorCode::RoomNoSuchSeat,
                    format!("this room has seats 0 to {}", self.seats.len() - 1),
                )
            }
            Some(slot) if !slot.owned_by(&who) => {
                return self.refuse(
                    &who,
                    ErrorCode::ActionNotYourSeat,
                    format!("you do not hold {seat}"),
                )
            }
            // A seat answers to the connections it is shown on: a guest's
            // resumed elsewhere no longer answers to the old one; an
            // account's other tabs and devices join the room first.
            Some(slot) if !slot.attached_to(who.conn) => {
                let why = if slot.held_by(who.token) {
                    format!("{seat} was resumed on another connection")
                } else {
                    format!("{seat} is yours, but not open on this connection: join the room first")
                };
                return self.refuse(&who, ErrorCode::ActionNotYourSeat, why);
            }
            Some(_) => {}
        }
        if seq != self.seq {
            return self.refuse(
                &who,
                ErrorCode::ActionStaleSeq,
                format!(
                    "the move answers seq {seq}, but the position is at seq {}",
                    self.seq
                ),
            );
        }
        if !self.game.to_act().contains(seat) {
            return self.refuse(
                &who,
                ErrorCode::ActionNotYourTurn,
                format!("{seat} is not to act now"),
            );
        }
        let mv = match self.header.game.parse_move(&mv) {
            // Stored and shown in the one form the table will show, so
            // that the log, `view.last` and replays agree.
            Ok(mv) => self.game.canonical(seat, &mv),
            Err(e) => return self.refuse(&who, ErrorCode::ActionBadMove, e.to_string()),
        };
        match self.commit(seat, Step::Move(mv)).await {
            Ok(()) => {}
            Err(Refusal::Illegal(e)) => {
                crate::metrics::move_refused(ErrorCode::ActionIllegalMove);
                self.reply(
                    &who,
                    &ServerMsg::Error {
                        code: ErrorCode::ActionIllegalMove,
                        message: e.message,
                        room: Some(self.id.clone()),
                        detail: Some(e.detail),
                    },
                )
            }
            Err(Refusal::Storage(e)) => self.refuse(
                &who,
                ErrorCode::ServerStorage,
                format!("the move could not be stored, so it was not played: {e}"),
            ),
            Err(Refusal::Stale) => self.refuse(
                &who,
                ErrorCode::ActionStaleSeq,
                format!(
                    "the move answers seq {seq}, but the position is at seq {}",
                    self.seq
                ),
            ),
            // Everyone, the mover included, was told `room/moved`.
            Err(Refusal::Moved) => crate::metrics::move_refused(ErrorCode::RoomMoved),
        }
    }

    /// `seat` resigns.
    pub(super) async fn resign(&mut self, seat: Seat) -> Result<(), StoreError> {
        match self.commit(seat, Step::Forfeit).await {
            Err(Refusal::Storage(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// Every seat the account `key` (a name key) holds resigns while the
    /// match is played: what closing the account does to its games.
    pub(super) async fn resign_account(&mut self, key: &str) {
        for i in 0..self.seats.len() {
            if self.status() != RoomStatus::Playing {
                return;
            }
            let held = matches!(&self.seats[i], Slot::Player { name, account: true, .. }
                if name_key(name) == key);
            if !held {
                continue;
            }
            let seat = Seat(u8::try_from(i).unwrap_or(u8::MAX));
            match self.resign(seat).await {
                Ok(()) => {
                    tracing::info!(room = %self.id, %seat, "a closed account's seat resigned")
                }
                Err(e) => {
                    tracing::warn!(room = %self.id, %seat, error = %e, "a closed account's seat could not resign")
                }
            }
        }
    }

    /// Applies a step to a copy, stores it, and only then makes it the
    /// room's state and tells everyone: a step the store refuses leaves
    /// the room exactly as it was.
    async fn commit(&mut self, seat: Seat, step: Step) -> Result<(), Refusal> {
        match self.settle_if_unsure().await {
            Ok(false) => {}
            Ok(true) => return Err(Refusal::Stale),
            Err(e) => {
                self.fencing.store_wrote(false);
                return Err(Refusal::Storage(e));
            }
        }
        let now = Instant::now();
        let mut game = self.game.clone();
        let mut rng = self.rng.clone();
        let action = match &step {
            Step::Move(m) => {
                game.play(seat, m, &mut rng).map_err(Refusal::Illegal)?;
                LoggedAction::Move(m)
            }
            Step::Timeout(m) => {
                game.play(seat, m, &mut rng).map_err(Refusal::Illegal)?;
                LoggedAction::TimeoutMove(m)
            }
            Step::Forfeit => {
                game.forfeit(seat);
                LoggedAction::Forfeit
            }
        };
        let mut clocks = self.clocks.clone();
        if let Some(c) = clocks.as_mut() {
            c.charge(seat, now);
            let due = if game.outcome().is_some() {
                SeatSet::EMPTY
            } else {
                game.to_act()
            };
            c.sync(due, now);
        }
        let outcome = game.outcome();
        let turn = self
            .records_turn()
            .then(|| super::turn::turn_in(&game, clocks.as_ref(), now));
        let own_move = matches!(step, Step::Move(_));
        let before = self.game.to_act();
        // A rated match's end carries what its ratings need: they are
        // applied in the transaction that stores it.
        let rated = outcome.and_then(|o| Some((o, self.rated_end(&game)?)));
        // Written straight from the typed move: no JSON tree per move.
        let stored = async {
            let step = StoreStep::new(self.seq, seat, &action)?;
            let clocks = clocks.as_ref().map(|c| c.snapshot(now));
            match rated {
                Some((outcome, end)) => self
                    .store()
                    .append_rated(self.key, step, clocks, outcome, end)
                    .await
                    .map(Some),
                None => self
                    .store()
                    .append_step(self.key, step, clocks, outcome, turn.clone())
                    .await
                    .map(|()| None),
            }
        };
        let line = match stored.await {
            Ok(line) => line,
            Err(e) => {
                // The step as the log would hold it, to know it if it is there.
                let ours = serde_json::to_value(&action)
                    .and_then(serde_json::from_value::<LoggedAction>)
                    .ok()
                    .map(|action| LogEntry {
                        seq: self.seq,
                        seat,
                        action,
                    });
                return self.not_stored(e, ours, clocks).await;
            }
        };
        self.fencing.store_wrote(true);
        if let Some(line) = &line {
            self.ratings.record(Some(line));
            crate::fair_play::review::after_rated_end(self.store(), line);
        }
        crate::metrics::move_accepted(self.header.game);
        self.game = game;
        self.rng = rng;
        self.clocks = clocks;
        self.seq += 1;
        if own_move {
            if let Some(m) = self.has_moved.get_mut(seat.index()) {
                *m = true;
            }
        }
        if outcome.is_some() {
            self.lifetime.linger_from(now);
            self.publish();
        }
        self.broadcast();
        if let Some(turn) = &turn {
            self.notify_turns(before, turn);
        }
        Ok(())
    }

    /// After the store refused `step` with `e`: whether it went through
    /// after all (the log is read when it may have), or why not.
    async fn not_stored(
        &mut self,
        e: StoreError,
        ours: Option<LogEntry>,
        clocks: Option<super::Clocks>,
    ) -> Result<(), Refusal> {
        if let StoreError::Fenced(_) = e {
            self.give_up();
            return Err(Refusal::Moved);
        }
        if e.may_be_stored() {
            let at = self.seq;
            match self.settle().await {
                Ok(Some(entry)) => {
                    let went_through = ours.as_ref() == Some(&entry);
                    if went_through {
                        crate::metrics::move_accepted(self.header.game);
                    }
                    if went_through && self.seq == at + 1 {
                        // Charged as it was meant to be.
                        self.clocks = clocks;
                    }
                    self.fencing.store_wrote(true);
                    if self.game.outcome().is_some() && self.rates() {
                        // A rated end's ratings went in with it.
                        match self.store().ledger_line_of(self.id.as_str()).await {
                            Ok(line) => {
                                self.ratings.record(line.as_ref());
                                if let Some(line) = &line {
                                    crate::fair_play::review::after_rated_end(self.store(), line);
                                }
                            }
                            Err(e) => {
                                tracing::debug!(room = %self.id, error = %e, "cannot read the ledger line")
                            }
                        }
                    }
                    self.announce();
                    return if went_through {
                        Ok(())
                    } else {
                        Err(Refusal::Stale)
                    };
                }
                Ok(None) => {}
                Err(read) => {
                    tracing::warn!(room = %self.id, error = %read, "cannot read the log after an unconfirmed commit");
                    self.fencing.mark_unsettled();
                }
            }
        }
        tracing::error!(room = %self.id, error = %e, "cannot store a move");
        self.fencing.store_wrote(false);
        Err(Refusal::Storage(e))
    }

    /// Plays the bots' turns until a person is to act. Between two bot
    /// moves the commands that came in are handled, so that people who
    /// watch or join a bots' match hear of every move as it is played.
    pub(super) async fn run_bots(&mut self, inbox: &mut mpsc::Receiver<RoomCmd>) {
        while self.status() == RoomStatus::Playing && self.fencing.steps_go_on() {
            let to_act = self.game.to_act();
            let Some(seat) = to_act
                .iter()
                .find(|s| self.bots.get(s.index()).is_some_and(Option::is_some))
            else {
                return;
            };
            let Some(mut bot) = self.bots[seat.index()].take() else {
                return;
            };
            let view = self.game.view(Viewer::Seat(seat));
            let mut rng = self.bot_rng.clone();
            // Strategies may search (Rummikub's predictor): keep them off
            // the async workers.
            let thought = tokio::task::spawn_blocking(move || {
                let choice = bot.choose(seat, &view, &mut rng);
                (bot, choice, rng)
            })
            .await;
            let choice = match thought {
                Ok((bot, choice, rng)) => {
                    self.bots[seat.index()] = Some(bot);
                    self.bot_rng = rng;
                    choice
                }
                Err(e) => {
                    tracing::error!(room = %self.id, error = %e, "a bot crashed");
                    None
                }
            };
            let step = choice.map_or(Step::Forfeit, Step::Move);
            match self.commit(seat, step).await {
                Ok(()) => {}
                Err(Refusal::Illegal(e)) => {
                    tracing::warn!(room = %self.id, %seat, error = %e, "a bot played an illegal move and forfeits");
                    let _ = self.commit(seat, Step::Forfeit).await;
                }
                Err(Refusal::Storage(_) | Refusal::Moved) => return,
                Err(Refusal::Stale) => {}
            }
            // As many as were waiting, no more: bots still move on.
            for _ in 0..inbox.len() {
                match inbox.try_recv() {
                    Ok(cmd) => self.handle(cmd).await,
                    Err(_) => break,
                }
            }
            // A bot match runs in this loop to its end: its lifetime is
            // checked here (an unwatched one closes as abandoned).
            self.track_presence(Instant::now());
            if self.close_if_expired(Instant::now()).await {
                return;
            }
            tokio::task::yield_now().await;
        }
    }

    pub(super) async fn on_clock(&mut self) {
        let now = Instant::now();
        let expired = self
            .clocks
            .as_ref()
            .map(|c| c.expired(now))
            .unwrap_or_default();
        for seat in expired {
            if self.status() != RoomStatus::Playing || !self.game.to_act().contains(seat) {
                continue;
            }
            // A rated match a seat never began does not count.
            // A tournament's or the ladder's game is the exception: an
            // absent player loses it on time, as their rules say.
            if self.header.rated
                && !self.scheduled()
                && !self.has_moved.get(seat.index()).copied().unwrap_or(true)
            {
                tracing::info!(room = %self.id, %seat, "time ran out before the seat's first move: aborted");
                if !self.close_aborted(seat, now).await {
                    // The clock stays past due: wait for a write to succeed
                    // rather than try again at once.
                    self.fencing.store_wrote(false);
                }
                return;
            }
            let step = self
                .game
                .timeout_move(seat)
                .map_or(Step::Forfeit, Step::Timeout);
            tracing::info!(room = %self.id, %seat, "time ran out");
            if let Err(Refusal::Illegal(e)) = self.commit(seat, step).await {
                tracing::warn!(room = %self.id, %seat, error = %e, "the default move was refused; the seat forfeits");
                let _ = self.commit(seat, Step::Forfeit).await;
            }
        }
    }
}
