//! The ladder's tick, run by every node on the shared
//! [`LeasedTicker`] once the anchors are made. Each tick a node notes which
//! entrants are signed in on it (so that the node pairing a game, maybe
//! another, knows who is connected anywhere), and for each game whose
//! lease it holds: reads the results of the games being played from
//! their logs, then pairs the available entrants (the pure choice of
//! `parlor_competition::ladder`) and makes their rooms. A new game is
//! recorded before its room is made, so a crash between the two is
//! repaired by the next tick, which finds the room missing and makes it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use parlor_competition::ladder::{pair_key, pair_ladder, LadderEntrant, LadderInput, PairRecord};
use parlor_competition::Glicko2;
use parlor_games::deal::DealSecret;
use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{LadderGame, LadderResult, LadderSeat, MatchLog, RoomId, ServerMsg};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::anchors::anchor_strategy;
use super::store::{EntryRow, GameRow, LADDERS};
use super::{ladder_clock, Ladder};
use crate::accounts::name_key;
use crate::blocks::Blocks;
use crate::clock::now_ms;
use crate::directory::{NewRoom, Schedule, ScheduledRoom};
use crate::room::DAY_MS;
use crate::schedule::{read_game_end, LeasedTicker, Leases, Tick};
use crate::store::StoreError;

/// How long a node's hold on a game's ladder lasts unrenewed: several
/// ticks, so a busy node keeps it, short enough that another node carries
/// on soon after one dies.
pub const LADDER_LEASE_MS: u64 = 10_000;

/// How long a recorded game may lack its room before it is given up as
/// void (its room could not be made: the server is full, or stopping),
/// so that its pair is not held as playing for ever.
pub const LADDER_MAKE_GRACE_MS: u64 = 60_000;

/// Ticks since a node last saw an entrant signed in after which it counts
/// as gone: a few, so that nodes ticking out of step agree.
pub const PRESENCE_TICKS: u32 = 3;

/// The result of a ladder game's log, once it is over.
fn result_of(log: &MatchLog) -> Option<LadderResult> {
    match (&log.outcome, log.closed) {
        (Some(Outcome::Draw), _) => Some(LadderResult::Draw),
        (Some(Outcome::Win { winners }), _) => Some(
            match (winners.contains(Seat(0)), winners.contains(Seat(1))) {
                (true, false) => LadderResult::Seat0,
                (false, true) => LadderResult::Seat1,
                _ => LadderResult::Draw,
            },
        ),
        (None, Some(_)) => Some(LadderResult::Void),
        (None, None) => None,
    }
}

/// A fresh room id, as rooms have them.
fn new_room() -> Option<RoomId> {
    RoomId::new(&uuid::Uuid::new_v4().simple().to_string()[..12])
}

impl Ladder {
    /// Starts the ladder on `tracker` until `shutdown`: makes the anchors,
    /// then ticks (only the anchors, with `--no-ladder`).
    pub fn start(self: &Arc<Self>, tracker: &TaskTracker, shutdown: CancellationToken) {
        let ticker = LeasedTicker::new(
            self.settings.tick,
            Leases::new(&self.log, LADDERS, LADDER_LEASE_MS),
        );
        let ladder = Arc::clone(self);
        tracker.spawn(async move {
            if let Err(e) = ladder.ensure_anchors().await {
                tracing::error!(error = %e, "the ladder's anchors could not be made");
            }
            ticker.run(&*ladder, shutdown).await;
        });
    }
}

impl Tick for Ladder {
    async fn tick(&self, leases: &Leases) {
        let now = now_ms();
        let mut entries = match self.store.entries().await {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "the ladder's entrants could not be read");
                return;
            }
        };
        let mut here: Vec<String> = entries
            .iter()
            .filter(|e| !e.builtin && self.directory.signed_in_here(&e.key))
            .map(|e| e.key.clone())
            .collect();
        here.sort();
        here.dedup();
        if !here.is_empty() {
            if let Err(e) = self.store.touch(&here, now).await {
                tracing::warn!(error = %e, "the ladder's presence could not be noted");
            }
            for e in &mut entries {
                if here.contains(&e.key) {
                    e.seen_ms = now;
                }
            }
        }
        if !self.settings.enabled {
            return;
        }
        // A game with neither an entrant of its own nor a game being
        // played has nothing to do: no lease is taken for it.
        let busy = match self.store.busy_games().await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(error = %e, "the ladder's games could not be read");
                return;
            }
        };
        for game in GameKind::ALL {
            let mine: Vec<&EntryRow> = entries.iter().filter(|e| e.game == game.name()).collect();
            if !busy.contains(game.name()) && mine.iter().all(|e| e.builtin) {
                continue;
            }
            match leases.take(game.name(), now).await {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(%game, error = %e, "a ladder's lease could not be taken");
                    continue;
                }
            }
            if let Err(e) = self.step(*game, &mine, now).await {
                tracing::warn!(%game, error = %e, "a ladder could not be stepped");
            }
        }
    }
}

impl Ladder {
    /// One step of `game`'s ladder (this node holds its lease).
    async fn step(
        &self,
        game: GameKind,
        entries: &[&EntryRow],
        now: u64,
    ) -> Result<(), StoreError> {
        let mut playing = Vec::new();
        for row in self.store.playing(game).await? {
            match self.log.log(row.room.clone()).await? {
                Some(log) => match result_of(&log) {
                    Some(result) => {
                        let end = read_game_end(&self.log, &log).await?;
                        self.store.finish(game, &row, result, end, now).await?
                    }
                    None => playing.push(row),
                },
                None if now.saturating_sub(row.started_ms) > LADDER_MAKE_GRACE_MS => {
                    tracing::warn!(room = %row.room, "a ladder game's room was never made: void");
                    self.store
                        .finish(game, &row, LadderResult::Void, None, now)
                        .await?;
                }
                None => {
                    self.make_room(game, &row).await;
                    playing.push(row);
                }
            }
        }
        let presence = self
            .settings
            .tick
            .saturating_mul(PRESENCE_TICKS)
            .as_millis();
        let connected = |e: &EntryRow| {
            if e.builtin {
                anchor_strategy(game, &e.name).is_some()
            } else {
                u128::from(now.saturating_sub(e.seen_ms)) <= presence
            }
        };
        let mut busy: HashMap<String, u32> = HashMap::new();
        for row in &playing {
            for name in &row.seats {
                *busy.entry(name_key(name)).or_default() += 1;
            }
        }
        // Only a connected, idle entrant that is not an anchor starts
        // anything: without one there is nothing to pair (and no rating
        // to read).
        let wanted = entries.iter().any(|e| {
            !e.builtin
                && connected(e)
                && busy.get(&e.key).copied().unwrap_or(0) < self.settings.max_games
        });
        if !wanted {
            return Ok(());
        }
        let mut pairs: BTreeMap<(String, String), PairRecord> = BTreeMap::new();
        for [a, b] in self.store.begun_since(game, now - now % DAY_MS).await? {
            pairs
                .entry(pair_key(&name_key(&a), &name_key(&b)))
                .or_default()
                .today += 1;
        }
        for row in &playing {
            let [a, b] = &row.seats;
            pairs
                .entry(pair_key(&name_key(a), &name_key(b)))
                .or_default()
                .playing = true;
        }
        // Pairs a block keeps apart never meet (anchors block nobody).
        let people: Vec<String> = entries
            .iter()
            .filter(|e| !e.builtin)
            .map(|e| e.key.clone())
            .collect();
        if people.len() >= 2 {
            let blocked = Blocks::new(self.log.beside()).pairs_among(&people).await?;
            for (a, b) in blocked.iter() {
                pairs.entry(pair_key(a, b)).or_default().blocked = true;
            }
        }
        let mut input = LadderInput {
            entrants: Vec::new(),
            pairs,
            daily_cap: self.settings.daily_cap,
        };
        for e in entries {
            let rating = self
                .log
                .rating(game.name(), &e.key)
                .await?
                .map_or(Glicko2::PARLOR.initial.rating, |r| r.rating.rating);
            input.entrants.push(LadderEntrant {
                name: e.key.clone(),
                rating,
                anchor: e.builtin,
                connected: connected(e),
                playing: busy.get(&e.key).copied().unwrap_or(0),
                max_games: if e.builtin {
                    self.settings.anchor_max_games
                } else {
                    self.settings.max_games
                },
            });
        }
        let by_key: HashMap<&str, &EntryRow> =
            entries.iter().map(|e| (e.key.as_str(), *e)).collect();
        let mut started = HashSet::new();
        for pairing in pair_ladder(&input) {
            let (Some(a), Some(b), Some(room)) = (
                by_key.get(pairing.seats[0].as_str()),
                by_key.get(pairing.seats[1].as_str()),
                new_room(),
            ) else {
                continue;
            };
            let strategy = |e: &EntryRow| {
                e.builtin
                    .then(|| anchor_strategy(game, &e.name).map(str::to_owned))
                    .flatten()
            };
            let row = GameRow {
                room,
                seats: [a.name.clone(), b.name.clone()],
                strategies: vec![strategy(a), strategy(b)],
                started_ms: now,
                ended_ms: None,
                result: None,
                end: None,
            };
            self.store.add_game(game, &row).await?;
            started.insert(row.room.clone());
            self.make_room(game, &row).await;
        }
        if !started.is_empty() {
            tracing::info!(%game, games = started.len(), "ladder games paired");
        }
        Ok(())
    }

    /// Makes the room of ladder game `row`, and tells its bots (those that
    /// play over the protocol) where they sit. A room made meanwhile is
    /// refused as a duplicate, and nothing changes.
    async fn make_room(&self, game: GameKind, row: &GameRow) {
        let made = self
            .directory
            .create(NewRoom {
                game,
                seats: Some(2),
                options: serde_json::Value::Null,
                clock: Some(ladder_clock(game)),
                private: false,
                creator: None,
                creator_addr: None,
                rated: true,
                by_account: true,
                scheduled: Some(ScheduledRoom {
                    id: row.room.clone(),
                    secret: DealSecret::new(rand::random(), rand::random()),
                    of: Schedule::Ladder(LadderGame {
                        players: row.seats.to_vec(),
                        strategies: row.strategies.clone(),
                    }),
                }),
                matched: Vec::new(),
            })
            .await;
        if let Err(crate::directory::Refused { code, message }) = made {
            tracing::warn!(room = %row.room, %code, %message, "a ladder game's room could not be made; trying again");
            return;
        }
        for (i, name) in row.seats.iter().enumerate() {
            if row.strategies.get(i).is_some_and(Option::is_some) {
                continue;
            }
            let msg = ServerMsg::LadderGame(Box::new(LadderSeat {
                game,
                room: row.room.clone(),
                seat: Seat(u8::try_from(i).unwrap_or(0)),
                opponent: row.seats[1 - i].clone(),
            }));
            self.directory.notify_account(&name_key(name), &msg, &[]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::SeatSet;

    fn log(outcome: Option<Outcome>, closed: Option<parlor_protocol::Closed>) -> MatchLog {
        let header: parlor_protocol::MatchHeader = serde_json::from_value(serde_json::json!({
            "game": "nimrod", "options": null, "seats": 2
        }))
        .unwrap_or_else(|e| unreachable!("{e}"));
        MatchLog {
            chat: Vec::new(),
            room: new_room().unwrap_or_else(|| unreachable!()),
            header,
            moves: vec![],
            outcome,
            closed,
            players: Vec::new(),
        }
    }

    #[test]
    fn results_follow_the_log() {
        let win1 = Outcome::Win {
            winners: SeatSet::single(Seat(1)),
        };
        assert_eq!(result_of(&log(Some(win1), None)), Some(LadderResult::Seat1));
        assert_eq!(
            result_of(&log(Some(Outcome::Draw), None)),
            Some(LadderResult::Draw)
        );
        assert_eq!(
            result_of(&log(None, Some(parlor_protocol::Closed::Aborted))),
            Some(LadderResult::Void)
        );
        assert_eq!(result_of(&log(None, None)), None);
    }
}
