//! The room actor.

use std::sync::Arc;

use parlor_games::{
    AnyBot, AnyGame, AnyMove, AnyView, GameKind, GameRng, IllegalMove, LegalMoves, Outcome, Seat,
    SeatSet, Viewer,
};
use parlor_protocol::{
    encode, ErrorCode, LoggedAction, MatchHeader, RoomId, RoomStatus, RoomSummary, SeatInfo,
    ServerMsg,
};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::clock::Clocks;
use super::slot::{SeatList, Slot};
use super::{Member, RoomCmd};
use crate::limits::{FINISHED_ROOM_LINGER, MAX_LEGAL_SENT, ROOM_INBOX_CAPACITY};
use crate::lobby::Lobby;
use crate::outbox::ConnId;
use crate::store::{MatchKey, Step as StoreStep, Store, StoreError, StoredMatch, StoredSeat};

/// A new room's identity and header.
#[derive(Debug)]
pub struct RoomInit {
    /// Its id.
    pub room: RoomId,
    /// Its number in the store.
    pub key: MatchKey,
    /// Game, options, seats, seed and clock.
    pub header: MatchHeader,
    /// Not listed.
    pub private: bool,
    /// Who created it (may seat bots without sitting down).
    pub creator: Option<Uuid>,
}

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
}

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
}

struct Room {
    id: RoomId,
    key: MatchKey,
    header: MatchHeader,
    private: bool,
    creator: Option<Uuid>,
    game: AnyGame,
    rng: GameRng,
    seq: u64,
    seats: Vec<Slot>,
    bots: Vec<Option<AnyBot>>,
    spectators: Vec<Member>,
    clocks: Option<Clocks>,
    bot_rng: GameRng,
    lobby: Arc<Lobby>,
    store: Store,
    linger_until: Option<Instant>,
    store_failed: bool,
}

/// Starts the actor of a new room whose header is already stored.
pub fn spawn_room(
    lobby: &Arc<Lobby>,
    init: RoomInit,
    game: AnyGame,
    rng: GameRng,
) -> mpsc::Sender<RoomCmd> {
    let n = usize::from(init.header.seats);
    let room = Room {
        id: init.room,
        key: init.key,
        creator: init.creator,
        clocks: init
            .header
            .clock
            .map(|c| Clocks::new(c, init.header.seats, None)),
        bot_rng: GameRng::from_seed(init.header.seed ^ BOT_SEED_SALT),
        header: init.header,
        private: init.private,
        game,
        rng,
        seq: 0,
        seats: (0..n).map(|_| Slot::Empty).collect(),
        bots: (0..n).map(|_| None).collect(),
        spectators: Vec::new(),
        lobby: Arc::clone(lobby),
        store: lobby.store().clone(),
        linger_until: None,
        store_failed: false,
    };
    launch(room)
}

/// Bots draw from their own RNG so that their choices never shift the
/// game's chance stream (replays must not depend on which bots played).
const BOT_SEED_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// Rebuilds a stored, unfinished match and starts its actor. Players come
/// back disconnected and resume with their tokens; bots carry on.
pub fn spawn_restored(
    lobby: &Arc<Lobby>,
    stored: StoredMatch,
) -> Result<mpsc::Sender<RoomCmd>, String> {
    let StoredMatch {
        key,
        record,
        seats: stored_seats,
        moves,
        clocks,
    } = stored;
    let (game, rng) = parlor_protocol::replay(&record.header, &moves).map_err(|e| e.to_string())?;
    let n = usize::from(record.header.seats);
    let mut seats: Vec<Slot> = (0..n).map(|_| Slot::Empty).collect();
    let mut bots: Vec<Option<AnyBot>> = (0..n).map(|_| None).collect();
    for (seat, who) in stored_seats {
        let i = seat.index();
        if i >= n {
            return Err(format!("seat {} beyond the match's {n} seats", seat.0));
        }
        seats[i] = match who {
            StoredSeat::Player { token, name } => {
                lobby.index_seat(token, &record.room, seat);
                Slot::Player {
                    token,
                    name,
                    out: None,
                }
            }
            StoredSeat::Bot { strategy } => {
                bots[i] = record.header.game.bot(&strategy);
                Slot::Bot { strategy }
            }
        };
    }
    let seq = moves.last().map_or(0, |e| e.seq + 1);
    let room = Room {
        id: record.room,
        key,
        // The creator is not stored: after a restart, seated players seat bots.
        creator: None,
        clocks: record
            .header
            .clock
            .map(|c| Clocks::new(c, record.header.seats, clocks.as_deref())),
        bot_rng: GameRng::from_seed(record.header.seed ^ BOT_SEED_SALT ^ seq),
        header: record.header,
        private: record.private,
        game,
        rng,
        seq,
        seats,
        bots,
        spectators: Vec::new(),
        lobby: Arc::clone(lobby),
        store: lobby.store().clone(),
        linger_until: None,
        store_failed: false,
    };
    Ok(launch(room))
}

fn launch(room: Room) -> mpsc::Sender<RoomCmd> {
    let (tx, rx) = mpsc::channel(ROOM_INBOX_CAPACITY);
    let shutdown = room.lobby.shutdown_token();
    // Restored rooms come with their players already indexed.
    let seated = room.seats.iter().filter_map(Slot::player_token).collect();
    room.lobby.insert(
        &room.id,
        tx.clone(),
        room.summary(),
        room.private,
        room.creator,
        seated,
    );
    let tracker = room.lobby.tracker().clone();
    tracker.spawn(room.run(rx, shutdown));
    tx
}

impl Room {
    async fn run(mut self, mut inbox: mpsc::Receiver<RoomCmd>, shutdown: CancellationToken) {
        self.sync_clocks(Instant::now());
        self.run_bots().await;
        // Made once, not per command (each made future registers a waiter).
        let mut shutting_down = std::pin::pin!(shutdown.cancelled());
        loop {
            let deadline = if self.status() == RoomStatus::Playing && !self.store_failed {
                self.clocks.as_ref().and_then(Clocks::deadline)
            } else {
                None
            };
            let linger = self.linger_until;
            // In a fixed order (no random draw per command): timers come
            // before the inbox, so a stream of commands cannot hold off a
            // clock.
            tokio::select! {
                biased;
                _ = &mut shutting_down => break,
                _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.on_clock().await;
                }
                _ = sleep_until(linger.unwrap_or_else(Instant::now)), if linger.is_some() => break,
                cmd = inbox.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
            }
            self.run_bots().await;
        }
        self.lobby.remove(&self.id);
    }

    fn status(&self) -> RoomStatus {
        if self.game.outcome().is_some() {
            RoomStatus::Finished
        } else if self.seats.iter().any(|s| matches!(s, Slot::Empty)) {
            RoomStatus::Waiting
        } else {
            RoomStatus::Playing
        }
    }

    fn seat_infos(&self) -> Vec<SeatInfo> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, slot)| SeatInfo {
                seat: Seat(i as u8),
                occupant: slot.occupant(),
            })
            .collect()
    }

    fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.id.clone(),
            game: self.header.game,
            status: self.status(),
            seats: self.seat_infos(),
            spectators: u32::try_from(self.spectators.len()).unwrap_or(u32::MAX),
        }
    }

    fn publish(&self) {
        self.lobby.publish(&self.id, self.summary(), self.private);
    }

    fn error(&self, who: &Member, code: ErrorCode, message: impl Into<String>) {
        who.out
            .send(&ServerMsg::room_error(&self.id, code, message));
    }

    /// One recipient's update, serialised straight from the game's view,
    /// seats and moves (no intermediate JSON tree or copied lists: building
    /// them per recipient was a large share of the allocations per move).
    fn update_for(&self, you: Option<Seat>) -> Utf8Bytes {
        let status = self.status();
        let to_act = if status == RoomStatus::Playing {
            self.game.to_act()
        } else {
            SeatSet::EMPTY
        };
        let legal = you
            .filter(|s| to_act.contains(*s))
            .and_then(|s| self.game.legal_list(s, MAX_LEGAL_SENT));
        let viewer = you.map_or(Viewer::Spectator, Viewer::Seat);
        let view = self.game.view(viewer);
        let frame = UpdateFrame {
            kind: "update",
            room: &self.id,
            game: self.header.game,
            seq: self.seq,
            status,
            seats: SeatList(&self.seats),
            you,
            to_act,
            view: &view,
            legal,
            clocks: self.clocks.as_ref().map(|c| c.snapshot(Instant::now())),
            outcome: self.game.outcome(),
        };
        Utf8Bytes::from(encode(&frame))
    }

    /// Sends every member its own update; spectators share one encoding.
    fn broadcast(&mut self) {
        for (i, slot) in self.seats.iter().enumerate() {
            if let Slot::Player { out: Some(out), .. } = slot {
                out.send_text(self.update_for(Some(Seat(i as u8))));
            }
        }
        self.spectators.retain(|m| m.out.is_open());
        if !self.spectators.is_empty() {
            let text = self.update_for(None);
            for m in &self.spectators {
                m.out.send_text(text.clone());
            }
        }
    }

    fn others(&self, except: Seat, msg: &ServerMsg) {
        let text = Utf8Bytes::from(encode(msg));
        for (i, slot) in self.seats.iter().enumerate() {
            if i == except.index() {
                continue;
            }
            if let Slot::Player { out: Some(out), .. } = slot {
                out.send_text(text.clone());
            }
        }
        for m in &self.spectators {
            m.out.send_text(text.clone());
        }
    }

    fn sync_clocks(&mut self, now: Instant) {
        let due = if self.status() == RoomStatus::Playing {
            self.game.to_act()
        } else {
            SeatSet::EMPTY
        };
        if let Some(c) = self.clocks.as_mut() {
            c.sync(due, now);
        }
    }

    async fn handle(&mut self, cmd: RoomCmd) {
        match cmd {
            RoomCmd::Join { who, seat } => self.join(who, seat).await,
            RoomCmd::Spectate { who } => {
                who.out.send(&ServerMsg::Spectating {
                    room: self.id.clone(),
                });
                who.out.send_text(self.update_for(None));
                // Watching twice, or watching one's own table, would only
                // duplicate updates.
                let watching = self.spectators.iter().any(|m| m.out.id() == who.out.id());
                let seated = self.seats.iter().any(|s| s.held_by(who.token));
                if !watching && !seated {
                    self.spectators.push(who);
                    self.publish();
                }
            }
            RoomCmd::AddBot {
                who,
                seat,
                strategy,
            } => self.add_bot(who, seat, strategy).await,
            RoomCmd::Play { who, seat, seq, mv } => self.play(who, seat, seq, mv).await,
            RoomCmd::Leave { who } => self.leave(who).await,
            RoomCmd::Resume { who } => self.resume(who),
            RoomCmd::Detach { token, conn } => self.detach(token, conn),
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

    async fn take_seat(&mut self, who: &Member, seat: Seat, slot: Slot) -> bool {
        if let Err(e) = self.store.set_seat(self.key, seat, slot.stored()).await {
            tracing::error!(room = %self.id, error = %e, "cannot store a seat");
            self.error(
                who,
                ErrorCode::ServerStorage,
                format!("the seat could not be stored: {e}"),
            );
            return false;
        }
        self.seats[seat.index()] = slot;
        self.sync_clocks(Instant::now());
        true
    }

    async fn join(&mut self, who: Member, seat: Option<Seat>) {
        if self.seats.iter().any(|s| s.held_by(who.token)) {
            return self.error(
                &who,
                ErrorCode::RoomAlreadySeated,
                "you already hold a seat here",
            );
        }
        let Some(seat) = self.free_seat(&who, seat) else {
            return;
        };
        let slot = Slot::Player {
            token: who.token,
            name: who.name.to_string(),
            out: Some(who.out.clone()),
        };
        if !self.take_seat(&who, seat, slot).await {
            return;
        }
        self.lobby.index_seat(who.token, &self.id, seat);
        self.spectators.retain(|m| m.out.id() != who.out.id());
        who.out.send(&ServerMsg::Joined {
            room: self.id.clone(),
            seat,
        });
        self.broadcast();
        self.publish();
    }

    async fn add_bot(&mut self, who: Member, seat: Option<Seat>, strategy: Option<String>) {
        if self.creator != Some(who.token) && !self.seats.iter().any(|s| s.held_by(who.token)) {
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
        if !self
            .take_seat(
                &who,
                seat,
                Slot::Bot {
                    strategy: name.clone(),
                },
            )
            .await
        {
            return;
        }
        self.bots[seat.index()] = Some(bot);
        who.out.send(&ServerMsg::BotAdded {
            room: self.id.clone(),
            seat,
            strategy: name,
        });
        self.broadcast();
        self.publish();
    }

    async fn play(&mut self, who: Member, seat: Seat, seq: u64, mv: Value) {
        match self.status() {
            RoomStatus::Waiting => {
                return self.error(
                    &who,
                    ErrorCode::ActionNotStarted,
                    "the match starts when every seat is taken",
                )
            }
            RoomStatus::Finished => {
                return self.error(&who, ErrorCode::ActionGameOver, "the match is over")
            }
            RoomStatus::Playing => {}
        }
        match self.seats.get(seat.index()) {
            None => {
                return self.error(
                    &who,
                    ErrorCode::RoomNoSuchSeat,
                    format!("this room has seats 0 to {}", self.seats.len() - 1),
                )
            }
            Some(slot) if !slot.held_by(who.token) => {
                return self.error(
                    &who,
                    ErrorCode::ActionNotYourSeat,
                    format!("you do not hold {seat}"),
                )
            }
            Some(_) => {}
        }
        if seq != self.seq {
            return self.error(
                &who,
                ErrorCode::ActionStaleSeq,
                format!(
                    "the move answers seq {seq}, but the position is at seq {}",
                    self.seq
                ),
            );
        }
        if !self.game.to_act().contains(seat) {
            return self.error(
                &who,
                ErrorCode::ActionNotYourTurn,
                format!("{seat} is not to act now"),
            );
        }
        let mv = match self.header.game.parse_move(&mv) {
            Ok(mv) => mv,
            Err(e) => return self.error(&who, ErrorCode::ActionBadMove, e.to_string()),
        };
        match self.commit(seat, Step::Move(mv)).await {
            Ok(()) => {}
            Err(Refusal::Illegal(e)) => {
                who.out.send(&ServerMsg::Error {
                    code: ErrorCode::ActionIllegalMove,
                    message: e.message,
                    room: Some(self.id.clone()),
                    detail: Some(e.detail),
                });
            }
            Err(Refusal::Storage(e)) => self.error(
                &who,
                ErrorCode::ServerStorage,
                format!("the move could not be stored, so it was not played: {e}"),
            ),
        }
    }

    /// Applies a step to a copy, stores it, and only then makes it the
    /// room's state and tells everyone.
    async fn commit(&mut self, seat: Seat, step: Step) -> Result<(), Refusal> {
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
        let stored = async {
            // Written straight from the typed move: no JSON tree per move.
            let step = StoreStep::new(self.seq, seat, &action)?;
            let clocks = clocks.as_ref().map(|c| c.snapshot(now));
            self.store
                .append_step(self.key, step, clocks, outcome)
                .await
        };
        if let Err(e) = stored.await {
            tracing::error!(room = %self.id, error = %e, "cannot store a move");
            self.store_failed = true;
            return Err(Refusal::Storage(e));
        }
        self.store_failed = false;
        self.game = game;
        self.rng = rng;
        self.clocks = clocks;
        self.seq += 1;
        if outcome.is_some() {
            self.linger_until = Some(now + FINISHED_ROOM_LINGER);
            self.publish();
        }
        self.broadcast();
        Ok(())
    }

    async fn run_bots(&mut self) {
        while self.status() == RoomStatus::Playing && !self.store_failed {
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
                Err(Refusal::Storage(_)) => return,
            }
            tokio::task::yield_now().await;
        }
    }

    async fn on_clock(&mut self) {
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

    async fn leave(&mut self, who: Member) {
        let before = self.spectators.len();
        self.spectators.retain(|m| m.out.id() != who.out.id());
        let was_spectator = self.spectators.len() != before;
        let held = self
            .seats
            .iter()
            .position(|s| s.held_by(who.token))
            .map(|i| Seat(i as u8));
        match (held, self.status()) {
            (Some(seat), RoomStatus::Waiting) => {
                if !self.take_seat(&who, seat, Slot::Empty).await {
                    return;
                }
                self.lobby.unindex_seat(who.token, &self.id);
                self.broadcast();
            }
            (Some(seat), RoomStatus::Playing) => {
                if let Err(Refusal::Storage(e)) = self.commit(seat, Step::Forfeit).await {
                    return self.error(
                        &who,
                        ErrorCode::ServerStorage,
                        format!("the resignation could not be stored: {e}"),
                    );
                }
            }
            (Some(seat), RoomStatus::Finished) => {
                if let Slot::Player { out, .. } = &mut self.seats[seat.index()] {
                    *out = None;
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
        who.out.send(&ServerMsg::Left {
            room: self.id.clone(),
        });
        self.publish();
    }

    fn resume(&mut self, who: Member) {
        let mut seats = Vec::new();
        for (i, slot) in self.seats.iter_mut().enumerate() {
            if let Slot::Player { token, out, .. } = slot {
                if *token == who.token {
                    *out = Some(who.out.clone());
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
            who.out.send(&ServerMsg::Joined {
                room: self.id.clone(),
                seat,
            });
            who.out.send_text(self.update_for(Some(seat)));
        }
        self.publish();
    }

    fn detach(&mut self, token: Uuid, conn: ConnId) {
        self.spectators.retain(|m| m.out.id() != conn);
        let mut dropped = Vec::new();
        for (i, slot) in self.seats.iter_mut().enumerate() {
            if let Slot::Player { token: t, out, .. } = slot {
                if *t == token && out.as_ref().is_some_and(|o| o.id() == conn) {
                    *out = None;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What a room files, written from the typed move, is exactly the
    /// text of the log reader's `LoggedAction` and decodes back to it.
    #[test]
    fn logged_action_text_is_the_same_from_a_typed_move() {
        let mv = GameKind::Nimrod
            .parse_move(&serde_json::json!({"take": [0, 3]}))
            .unwrap();
        let value = serde_json::to_value(&mv).unwrap();
        let cases = [
            (LoggedAction::Move(&mv), LoggedAction::Move(value.clone())),
            (
                LoggedAction::TimeoutMove(&mv),
                LoggedAction::TimeoutMove(value),
            ),
            (LoggedAction::Forfeit, LoggedAction::Forfeit),
        ];
        for (ours, theirs) in cases {
            let text = StoreStep::new(0, Seat(0), &ours).unwrap().action;
            assert_eq!(text, serde_json::to_string(&theirs).unwrap());
            assert_eq!(serde_json::from_str::<LoggedAction>(&text).unwrap(), theirs);
        }
    }
}
