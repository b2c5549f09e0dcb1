//! Running an event, one step at a time: starting it when it is due,
//! reading its games' results from their logs, pairing the next round
//! when one is over, and finishing it (revealing the seed). Each step
//! changes the stored document by compare-and-set and only then makes
//! rooms, whose ids come from the event's: a crash between the two is
//! repaired by the next step, which finds the room missing and makes it.

use std::collections::HashSet;

use parlor_competition::tournament::{arena, EventSeed, Format, Round};
use parlor_games::Outcome;
use parlor_protocol::{
    Closed, ErrorCode, EventGame, GameEnd, LoggedAction, RoomId, ServerMsg, TournamentStatus,
};
use sha2::{Digest, Sha256};

use super::doc::{DocGame, DocRound, EventDoc};
use super::store::Stored;
use super::Tournaments;
use crate::accounts::name_key;
use crate::directory::{NewRoom, Refused, Schedule, ScheduledRoom};
use crate::schedule::{read_game_end, EventError, EventRefusal};
use crate::store::StoreError;

/// The room id of `event`'s game `index` (in the round's order) of round
/// `round`, made for the `attempt`-th time: the first 12 hex digits of
/// SHA-256 over the four, so that a node taking over finds the rooms made.
pub fn game_room(event: &str, round: usize, index: usize, attempt: u32) -> Option<RoomId> {
    let text = format!("{event}/{round}/{index}/{attempt}");
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    RoomId::new(hash.get(..12)?)
}

/// The seats that won a finished log's match, if it finished or closed.
fn result(outcome: Option<&Outcome>, closed: Option<Closed>) -> Option<Vec<u8>> {
    match (outcome, closed) {
        (Some(Outcome::Win { winners }), _) => Some(winners.iter().map(|s| s.0).collect()),
        (Some(Outcome::Draw), _) => Some(Vec::new()),
        // A game closed without an outcome (which an event's rooms avoid:
        // they are neither aborted nor abandoned) counts as a draw.
        (None, Some(_)) => Some(Vec::new()),
        (None, None) => None,
    }
}

impl Tournaments {
    /// One step of event `stored` at `now_ms` (this node holds its lease).
    pub(super) async fn advance(&self, mut stored: Stored, now_ms: u64) -> Result<(), StoreError> {
        let before = stored.doc.clone();
        let doc = &mut stored.doc;
        // Rooms whose logs this step read: they exist, and are not made.
        let mut made = HashSet::new();
        match doc.status {
            TournamentStatus::Upcoming if now_ms >= doc.starts_at_ms => {
                if doc.players.len() < 2 {
                    doc.status = TournamentStatus::Cancelled;
                    doc.cancelled =
                        Some("fewer than two players had entered when it was due".into());
                } else {
                    self.begin(doc).await?;
                    self.progress(doc, now_ms);
                }
            }
            TournamentStatus::Running => {
                made = self.collect(doc).await?;
                self.progress(doc, now_ms);
            }
            _ => return Ok(()),
        }
        if stored.doc != before && !self.store.update(&stored).await? {
            // Someone else changed it meanwhile: the next step reads again.
            return Ok(());
        }
        if stored.doc.status == TournamentStatus::Cancelled {
            self.tell_cancelled(&stored.doc);
        }
        if let Err(reason) = self.make_rooms(&stored.doc, &made).await {
            self.cancel(&stored.doc.id, reason).await;
        }
        Ok(())
    }

    /// Cancels the running event `id` for `reason` (a round's room could
    /// not be made: the event would otherwise wait for it for ever) and
    /// tells its entrants.
    async fn cancel(&self, id: &str, reason: String) {
        tracing::warn!(event = %id, %reason, "an event is cancelled");
        let cancelled = self
            .change(id, |doc| {
                if doc.status != TournamentStatus::Running {
                    return Err(EventError::new(EventRefusal::Over, "no longer running"));
                }
                doc.status = TournamentStatus::Cancelled;
                doc.cancelled = Some(reason.clone());
                Ok(())
            })
            .await;
        match cancelled {
            Ok(doc) => self.tell_cancelled(&doc),
            // Finished or cancelled meanwhile, or the store failed: the
            // next step tries its rooms again.
            Err(e) => tracing::warn!(event = %id, error = %e, "the event could not be cancelled"),
        }
    }

    /// Tells every entrant of the cancelled `doc` why.
    fn tell_cancelled(&self, doc: &EventDoc) {
        let msg = ServerMsg::TournamentCancelled {
            tournament: doc.id.clone(),
            reason: doc.cancelled.clone().unwrap_or_default(),
        };
        for p in &doc.players {
            self.directory.notify_account(&name_key(&p.name), &msg, &[]);
        }
    }

    /// Seeds the players by their ratings.
    async fn begin(&self, doc: &mut EventDoc) -> Result<(), StoreError> {
        let pool = doc.game.name();
        for p in &mut doc.players {
            let held = self.log.rating(pool, &name_key(&p.name)).await?;
            p.rating = Some(held.map_or(super::doc::UNRATED_SEEDING, |r| r.rating.rating));
        }
        doc.status = TournamentStatus::Running;
        Ok(())
    }

    /// Reads the results of the games being played from their logs. In an
    /// arena, a player whose turns in a game were all played by the clock
    /// (or who forfeited without a move) is paused: withdrawn until they
    /// enter again, so that the absent are not paired over and over.
    /// The rooms found made.
    async fn collect(&self, doc: &mut EventDoc) -> Result<HashSet<RoomId>, StoreError> {
        let id = doc.id.clone();
        let arena = doc.format == Format::Arena;
        let mut absent = Vec::new();
        let mut made = HashSet::new();
        for (r, round) in doc.rounds.iter_mut().enumerate() {
            for (index, game) in round.games.iter_mut().enumerate() {
                let Some(room) = game.room.clone() else {
                    continue;
                };
                if game.winners.is_some() {
                    continue;
                }
                let Some(log) = self.log.log(room.clone()).await? else {
                    continue;
                };
                made.insert(room);
                if log.closed == Some(Closed::NeverStarted) {
                    // Made but never seated (a crash between the two):
                    // made again, on the same deal, under the next id.
                    game.attempt += 1;
                    game.room = game_room(&id, r + 1, index, game.attempt);
                    continue;
                }
                game.winners = result(log.outcome.as_ref(), log.closed);
                game.end = read_game_end(&self.log, &log).await?;
                if arena && game.winners.is_some() {
                    for seat in 0..2u8 {
                        let acted: Vec<&LoggedAction> = log
                            .moves
                            .iter()
                            .filter(|m| m.seat.0 == seat)
                            .map(|m| &m.action)
                            .collect();
                        let moved = acted.iter().any(|a| matches!(a, LoggedAction::Move(_)));
                        if !acted.is_empty() && !moved {
                            absent.push(game.seats[usize::from(seat)].clone());
                        }
                    }
                }
            }
        }
        for p in &mut doc.players {
            if absent.contains(&p.name) {
                p.withdrawn = true;
            }
        }
        Ok(made)
    }

    /// Pairs what can be paired now: the next round once the last is
    /// over (round robin, Swiss), or a wave of the free players while an
    /// arena's window is open; finishes the event when nothing is left.
    fn progress(&self, doc: &mut EventDoc, now_ms: u64) {
        let playing = doc
            .rounds
            .iter()
            .any(|r| r.games.iter().any(|g| g.winners.is_none()));
        if doc.format == Format::Arena {
            let open = now_ms < doc.ends_at_ms();
            if open {
                self.wave(doc);
            } else if !playing {
                doc.status = TournamentStatus::Finished;
            }
            return;
        }
        if !playing && !self.next_round(doc) {
            doc.status = TournamentStatus::Finished;
        }
    }

    /// An arena's next wave among its free players, if it pairs anyone.
    fn wave(&self, doc: &mut EventDoc) {
        let Ok(seed) = EventSeed::from_hex(&doc.seed) else {
            return;
        };
        let busy: Vec<&String> = doc
            .rounds
            .iter()
            .flat_map(|r| r.games.iter().filter(|g| g.winners.is_none()))
            .flat_map(|g| g.seats.iter())
            .collect();
        let free: Vec<String> = doc
            .active()
            .into_iter()
            .filter(|p| !busy.contains(&p))
            .collect();
        if free.len() < 2 {
            return;
        }
        let number = doc.rounds.len() + 1;
        let Ok(wave_no) = u32::try_from(number) else {
            return;
        };
        let (round, waiting) = arena(
            doc.arena_pairing,
            &seed,
            &doc.entrants(),
            &free,
            &doc.records(),
            wave_no,
        );
        if round.boards.is_empty() {
            return;
        }
        let active = doc.active();
        let mut planned = plan(&doc.id, number, &round, doc.rules().play, &active);
        planned.unpaired = waiting;
        doc.rounds.push(planned);
    }

    /// Pairs the next round into `doc`; false if the event has had all
    /// its rounds.
    fn next_round(&self, doc: &mut EventDoc) -> bool {
        let Ok(seed) = EventSeed::from_hex(&doc.seed) else {
            tracing::error!(event = %doc.id, "an event's stored seed does not decode");
            return false;
        };
        let rules = doc.rules();
        let Some(round) = rules.next_round(&seed, &doc.entrants(), &doc.active(), &doc.records())
        else {
            return false;
        };
        let number = doc.rounds.len() + 1;
        let active = doc.active();
        doc.rounds
            .push(plan(&doc.id, number, &round, rules.play, &active));
        true
    }

    /// Makes the room of every game being played that is not in `made`
    /// (rooms this step found): the new round's, and any a crash left
    /// unmade. A room made meanwhile by another node is refused as a
    /// duplicate, and nothing changes. A room refused for good (anything
    /// but the store or the server stopping, which the next step tries
    /// again) is the reason the event cannot go on.
    async fn make_rooms(&self, doc: &EventDoc, made: &HashSet<RoomId>) -> Result<(), String> {
        if doc.status != TournamentStatus::Running {
            return Ok(());
        }
        let Ok(seed) = EventSeed::from_hex(&doc.seed) else {
            return Ok(());
        };
        for (r, round) in doc.rounds.iter().enumerate() {
            let number = u32::try_from(r + 1).unwrap_or(u32::MAX);
            for game in &round.games {
                if let (Some(room), None) = (&game.room, &game.winners) {
                    if !made.contains(room) {
                        self.make_room(doc, &seed, number, round, game, room)
                            .await
                            .map_err(|why| {
                                format!("round {number}'s game could not be made: {why}")
                            })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Makes the room of `game` (of round `round`, numbered `number`);
    /// why not, if it cannot be made for good.
    async fn make_room(
        &self,
        doc: &EventDoc,
        seed: &EventSeed,
        number: u32,
        round: &DocRound,
        game: &DocGame,
        room: &RoomId,
    ) -> Result<(), String> {
        let siblings: Vec<RoomId> = round
            .games
            .iter()
            .filter(|g| g.board == game.board && g.deal == game.deal)
            .filter_map(|g| g.room.clone())
            .filter(|r| r != room)
            .collect();
        let made = self
            .directory
            .create(NewRoom {
                game: doc.game,
                seats: Some(2),
                options: doc.options.clone(),
                clock: Some(doc.clock),
                private: false,
                creator: None,
                creator_addr: None,
                rated: doc.rated,
                by_account: true,
                scheduled: Some(ScheduledRoom {
                    id: room.clone(),
                    secret: seed.deal(number, game.board, game.deal),
                    of: Schedule::Event(EventGame {
                        event: doc.id.clone(),
                        round: number,
                        board: game.board,
                        deal: game.deal,
                        players: game.seats.to_vec(),
                        siblings,
                    }),
                }),
                matched: Vec::new(),
            })
            .await;
        match made {
            Ok(_) => self.tell_players(doc, number, room, &game.seats),
            Err(Refused { code, message })
                if matches!(
                    code,
                    ErrorCode::ServerStorage | ErrorCode::ServerShuttingDown
                ) =>
            {
                tracing::warn!(event = %doc.id, %room, %code, %message, "an event's room could not be made; trying again");
            }
            Err(Refused { code, message }) => {
                // Made meanwhile (by another node, or a step before):
                // its log is there.
                if matches!(self.log.log(room.clone()).await, Ok(Some(_))) {
                    return Ok(());
                }
                tracing::warn!(event = %doc.id, %room, %code, %message, "an event's room cannot be made");
                return Err(message);
            }
        }
        Ok(())
    }
}

/// The stored round for `round`, numbered `number`: room ids for the
/// games to play, forfeits for games with a player who left.
fn plan(
    event: &str,
    number: usize,
    round: &Round,
    play: parlor_competition::tournament::Play,
    active: &[String],
) -> DocRound {
    let games = round
        .games(play)
        .into_iter()
        .enumerate()
        .map(|(index, g)| {
            let present = [0, 1].map(|s| active.contains(&g.seats[s]));
            let (room, winners) = match present {
                [true, true] => (game_room(event, number, index, 0), None),
                [true, false] => (None, Some(vec![0])),
                [false, true] => (None, Some(vec![1])),
                [false, false] => (None, Some(Vec::new())),
            };
            // A game not played is a forfeit from the start.
            let end = winners.is_some().then_some(GameEnd::Forfeit);
            DocGame {
                room,
                attempt: 0,
                board: g.board,
                deal: g.deal,
                seats: g.seats,
                winners,
                end,
            }
        })
        .collect();
    DocRound {
        games,
        bye: round.bye.clone(),
        unpaired: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_ids_are_stable_and_distinct() {
        let a = game_room("ev", 1, 0, 0);
        assert_eq!(a, game_room("ev", 1, 0, 0));
        assert_ne!(a, game_room("ev", 1, 1, 0));
        assert_ne!(a, game_room("ev", 1, 0, 1));
        assert_ne!(a, game_room("ev", 2, 0, 0));
        assert!(a.is_some());
    }

    #[test]
    fn a_game_not_played_is_a_forfeit() {
        use parlor_competition::tournament::{Play, Round};
        let round = Round {
            boards: vec![["ann".to_owned(), "bob".to_owned()]],
            bye: None,
        };
        let planned = plan("ev", 1, &round, Play::Single, &["ann".to_owned()]);
        assert_eq!(planned.games[0].winners, Some(vec![0]));
        assert_eq!(planned.games[0].end, Some(GameEnd::Forfeit));
        let both = ["ann".to_owned(), "bob".to_owned()];
        let played = plan("ev", 1, &round, Play::Single, &both);
        assert_eq!(played.games[0].end, None);
    }

    #[test]
    fn results_follow_the_log() {
        use parlor_games::{Seat, SeatSet};
        let win = Outcome::Win {
            winners: SeatSet::single(Seat(1)),
        };
        assert_eq!(result(Some(&win), None), Some(vec![1]));
        assert_eq!(result(Some(&Outcome::Draw), None), Some(vec![]));
        assert_eq!(result(None, Some(Closed::Abandoned)), Some(vec![]));
        assert_eq!(result(None, None), None);
    }
}
