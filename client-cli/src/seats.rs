//! The games a bot plays at once on one connection, in an event
//! (`crate::tournament::player`) or on a ladder (`crate::ladder::player`):
//! each seat joined once as it is announced, played by its own
//! [`SeatBot`], and given up when the server refuses it. A game that
//! ended while the bot was away (its room is gone after a restart: a
//! finished match is not hosted again) is settled from its log, so that
//! the summary counts every game the bot played.

use std::collections::{HashMap, HashSet};

use parlor_games::{GameRng, Seat};
use parlor_protocol::{ClientMsg, ErrorCode, RoomId, SeatRef, ServerMsg};

use crate::bot::{passing, SeatBot, Step};
use crate::series::Summary;
use crate::verify::logs::Logs;
use crate::{Client, ClientError};

/// A failed send as the caller sees it: a dropped connection is left for
/// the next read to find (the caller reconnects and resumes, and what
/// was lost is sent again then); anything else is an error.
fn sent(result: Result<(), ClientError>) -> Result<(), String> {
    match result {
        Err(e) if !e.is_dropped() => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// A bot's seats.
#[derive(Debug, Default)]
pub struct Seats {
    /// The rooms being played, by room.
    playing: HashMap<RoomId, SeatBot>,
    /// Rooms no longer hosted whose logs were asked for: the seat held,
    /// to count the game once its log says how it ended.
    settling: HashMap<RoomId, Seat>,
    /// Rooms over (or given up on): not joined again.
    done: HashSet<RoomId>,
    /// Every game played to its end.
    summary: Summary,
}

impl Seats {
    /// Games taken so far, over or not.
    pub fn taken(&self) -> usize {
        self.playing.len() + self.settling.len() + self.done.len()
    }

    /// Whether no game is being played (nor waits for its log).
    pub fn idle(&self) -> bool {
        self.playing.is_empty() && self.settling.is_empty()
    }

    /// The games played to their end.
    pub fn into_summary(self) -> Summary {
        self.summary
    }

    /// Counts every game still held (or waiting for its log) that has
    /// ended, from the server's logs (`GET /api/logs`): for a bot that
    /// stops when its event is over, whose last game may have ended while
    /// it was away (its final update lost with a connection). A log that
    /// cannot be read leaves its game uncounted.
    pub async fn settle_ended(&mut self, url: &str) {
        let held: Vec<(RoomId, Seat)> = self
            .playing
            .iter()
            .map(|(room, bot)| (room.clone(), bot.seat()))
            .chain(self.settling.iter().map(|(r, s)| (r.clone(), *s)))
            .collect();
        if held.is_empty() {
            return;
        }
        let mut logs = Logs::new(url, "parlor bot");
        logs.plan(held.iter().map(|(room, _)| room.clone()));
        for (room, seat) in held {
            let Ok(Ok(log)) = logs.fetch(&room).await else {
                continue;
            };
            if log.outcome.is_none() && log.closed.is_none() {
                continue;
            }
            self.playing.remove(&room);
            self.settling.remove(&room);
            self.done.insert(room.clone());
            self.summary.record(room, seat, log.outcome);
        }
    }

    /// Joins `seat` of `room` (with `client_seed`, if the deal takes one)
    /// unless it is taken or over already.
    pub async fn take(
        &mut self,
        client: &mut Client,
        room: &RoomId,
        seat: Seat,
        strategy: Option<&str>,
        client_seed: Option<String>,
    ) -> Result<(), String> {
        if self.playing.contains_key(room)
            || self.settling.contains_key(room)
            || self.done.contains(room)
        {
            return Ok(());
        }
        let join = ClientMsg::Join {
            room: room.clone(),
            seat: Some(seat),
            client_seed,
        };
        if let Err(e) = client.send(&join).await {
            // Not joined: the announcement is read again from the page.
            return sent(Err(e));
        }
        self.playing
            .insert(room.clone(), SeatBot::new(room.clone(), seat, strategy));
        Ok(())
    }

    /// After a reconnection that resumed `resumed`: every game held
    /// answers its next update afresh, a game not resumed (its seat
    /// was not held under the token) is joined again, and a log asked for
    /// is asked for again.
    pub async fn resumed(
        &mut self,
        client: &mut Client,
        resumed: &[SeatRef],
    ) -> Result<(), String> {
        for (room, bot) in &mut self.playing {
            bot.forget_answered();
            if !resumed.iter().any(|s| &s.room == room) {
                let join = ClientMsg::Join {
                    room: room.clone(),
                    seat: Some(bot.seat()),
                    client_seed: None,
                };
                sent(client.send(&join).await)?;
            }
        }
        // A log asked for on the dropped connection is asked for again.
        for room in self.settling.keys() {
            let ask = ClientMsg::GetLog {
                room: room.clone(),
                predict: false,
            };
            sent(client.send(&ask).await)?;
        }
        Ok(())
    }

    /// Plays on `msg` if it concerns a game held: an update (a move, or
    /// the game's end), or a refusal (the game is given up, its clock
    /// decides it, and the others play on). Other messages are the
    /// caller's.
    pub async fn on_msg(
        &mut self,
        client: &mut Client,
        msg: ServerMsg,
        rng: &mut GameRng,
    ) -> Result<(), String> {
        match msg {
            ServerMsg::Update(u) => {
                let Some(bot) = self.playing.get_mut(&u.room) else {
                    return Ok(());
                };
                match bot.on_update(&u, rng).map_err(|e| e.to_string())? {
                    Step::Wait => {}
                    Step::Play(m) => sent(client.send(&m).await)?,
                    Step::Over(outcome) => {
                        let seat = bot.seat();
                        self.playing.remove(&u.room);
                        self.done.insert(u.room.clone());
                        self.summary.record(u.room, seat, outcome);
                    }
                }
            }
            ServerMsg::Log(log) => {
                if let Some(seat) = self.settling.remove(&log.room) {
                    self.done.insert(log.room.clone());
                    if log.outcome.is_some() || log.closed.is_some() {
                        self.summary.record(log.room, seat, log.outcome);
                    }
                }
            }
            ServerMsg::Error { code, .. } if passing(code) => {}
            ServerMsg::Error {
                code: ErrorCode::RoomNotFound,
                room: Some(r),
                ..
            } if self.playing.contains_key(&r)
                || self.settling.contains_key(&r)
                || self.done.contains(&r) =>
            {
                // Held but no longer hosted: it ended while the bot was
                // away (a finished match is not hosted again after a
                // restart, and a finished one closes a while after its
                // end). Its log says how. A second such answer (a join
                // sent again after a reconnection) is no news.
                if let Some(bot) = self.playing.remove(&r) {
                    self.settling.insert(r.clone(), bot.seat());
                    let ask = ClientMsg::GetLog {
                        room: r,
                        predict: false,
                    };
                    sent(client.send(&ask).await)?;
                }
            }
            ServerMsg::Error {
                code,
                message,
                room,
                ..
            } => {
                let what = room
                    .as_ref()
                    .map_or_else(String::new, |r| format!(" in room {r}"));
                eprintln!("parlor bot: refused{what}: {message} ({code})");
                if let Some(r) = room {
                    self.playing.remove(&r);
                    self.settling.remove(&r);
                    self.done.insert(r);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
