//! Tournaments: creating events, entering and leaving them, and running
//! their rounds. Pairings, deals and standings are
//! `parlor_competition::tournament`'s pure functions of the stored
//! document and the event's seed; this module only schedules: it makes
//! each round's rooms (with the players seated, absent until they join)
//! and reads their results from the match log.
//!
//! Every node runs the tournaments' tick ([`Tournaments::start`], on the
//! shared [`LeasedTicker`](crate::schedule::LeasedTicker)); an event's
//! rounds are run by the node holding its lease (kept in the events
//! table), so that when that node dies another carries on from the
//! stored document.
//!
//! - `create`: a new event's document from the request, and its caps.
//! - `doc`: the stored document and what pages show of it.
//! - `entry`: entering and leaving.
//! - `advance`: one step of an event (start, results, next round, end).
//! - `tick`: each tick, the events due, under their leases.
//! - `store`: the events table beside the match log ([`TournamentStore`]).

mod advance;
mod create;
mod doc;
mod entry;
mod store;
mod tick;

use std::net::IpAddr;
use std::sync::Arc;

use parlor_competition::tournament::EventSeed;
use parlor_games::Seat;
use parlor_protocol::{
    NewTournament, RoomId, ServerMsg, TournamentInfo, TournamentSeat, TournamentStatus,
    TournamentSummary,
};

pub use advance::game_room;
pub use create::{
    DEFAULT_EVENT_PLAYERS, MAX_ARENA_MINUTES, MAX_CYCLES, MAX_EVENT_NAME_CHARS, MAX_EVENT_PLAYERS,
    MAX_ROUND_ROBIN_PLAYERS, MAX_START_AHEAD_MS, MAX_SWISS_ROUNDS,
};
pub use doc::{DocGame, DocRound, EventDoc, DUPLICATE_DEALS, UNRATED_SEEDING};
pub use store::{Stored, TournamentStore};
pub use tick::{EVENT_LEASE_MS, EVENT_TICK};

use crate::accounts::name_key;
use crate::admission::address_key;
use crate::clock::now_ms;
use crate::directory::Directory;
use crate::schedule::{EventError, EventRefusal};
use crate::store::Store;

/// The window of the per-address cap on new events: a day.
const DAY_MS: u64 = 86_400_000;

/// Events listed at most per status.
pub const MAX_LISTED_EVENTS: usize = 50;

/// How often a change that lost a compare-and-set is tried again before
/// the request is answered "busy": a handful of players entering at once
/// settle within a few tries.
pub const CHANGE_RETRIES: usize = 8;

/// The tournaments service; cheap to clone.
#[derive(Clone, Debug)]
pub struct Tournaments {
    store: TournamentStore,
    log: Store,
    directory: Arc<Directory>,
}

impl Tournaments {
    /// The service over `directory`'s database (its tick is started
    /// apart, by [`Tournaments::start`]).
    pub fn new(directory: Arc<Directory>) -> Self {
        Tournaments {
            store: TournamentStore::new(directory.store().beside()),
            log: directory.store().clone(),
            directory,
        }
    }

    /// Creates an event for account `by`, asked from the address `from`;
    /// its id.
    pub async fn create(
        &self,
        req: NewTournament,
        by: &str,
        from: Option<IpAddr>,
    ) -> Result<String, EventError> {
        let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_owned();
        let seed = EventSeed::new(rand::random());
        let now = now_ms();
        let doc = create::new_event(req, by, now, id.clone(), &seed)?;
        let key = name_key(by);
        let addr = from.map(|a| address_key(a).to_string());
        self.check_caps(&key, addr.as_deref(), now).await?;
        self.store
            .create(&doc, &key, addr)
            .await
            .map_err(|e| EventError::store(&e))?;
        tracing::info!(event = %id, by, "tournament created");
        Ok(id)
    }

    /// Refuses a new event over the caps: the account's upcoming events
    /// and the address's events of the last 24 hours. (Two requests at
    /// the same moment may both pass: the caps bound spam, not exactly.)
    async fn check_caps(&self, key: &str, addr: Option<&str>, now: u64) -> Result<(), EventError> {
        let limits = self.directory.limits();
        let too_many = |m: String| Err(EventError::new(EventRefusal::TooMany, m));
        let per_account = limits.upcoming_events_per_account;
        if per_account > 0 {
            let upcoming = self
                .store
                .upcoming_by(key)
                .await
                .map_err(|e| EventError::store(&e))?;
            if upcoming >= u64::try_from(per_account).unwrap_or(u64::MAX) {
                return too_many(format!(
                    "you have {upcoming} upcoming tournaments, the most one account may; wait for one to start"
                ));
            }
        }
        let per_address = limits.events_per_address_day;
        if let (Some(addr), true) = (addr, per_address > 0) {
            let made = self
                .store
                .made_from(addr, now.saturating_sub(DAY_MS))
                .await
                .map_err(|e| EventError::store(&e))?;
            if made >= u64::try_from(per_address).unwrap_or(u64::MAX) {
                return too_many(format!(
                    "{made} tournaments were created from your address in the last 24 hours, the most one address may"
                ));
            }
        }
        Ok(())
    }

    /// The event `id`'s public page.
    pub async fn info(&self, id: &str) -> Result<TournamentInfo, EventError> {
        self.get(id).await.map(|s| s.doc.info())
    }

    async fn get(&self, id: &str) -> Result<Stored, EventError> {
        self.store
            .get(id)
            .await
            .map_err(|e| EventError::store(&e))?
            .ok_or_else(|| EventError::not_found(id))
    }

    /// Upcoming, running and finished events (at most
    /// [`MAX_LISTED_EVENTS`] of each, newest first), each saying whether
    /// the account `viewer` (its name, when signed in) is entered.
    pub async fn list(
        &self,
        viewer: Option<&str>,
    ) -> Result<Vec<(TournamentStatus, Vec<TournamentSummary>)>, EventError> {
        let key = viewer.map(name_key);
        let mut out = Vec::new();
        for status in [
            TournamentStatus::Upcoming,
            TournamentStatus::Running,
            TournamentStatus::Finished,
        ] {
            let rows = self
                .store
                .list(&[status.as_str()], MAX_LISTED_EVENTS)
                .await
                .map_err(|e| EventError::store(&e))?;
            out.push((
                status,
                rows.iter().map(|s| s.doc.summary(key.as_deref())).collect(),
            ));
        }
        Ok(out)
    }

    /// Applies `change` to event `id`'s document until it is stored
    /// (another change may win the race: it is then read and tried again).
    async fn change(
        &self,
        id: &str,
        change: impl Fn(&mut EventDoc) -> Result<(), EventError>,
    ) -> Result<EventDoc, EventError> {
        for _ in 0..CHANGE_RETRIES {
            let mut stored = self.get(id).await?;
            change(&mut stored.doc)?;
            if self
                .store
                .update(&stored)
                .await
                .map_err(|e| EventError::store(&e))?
            {
                return Ok(stored.doc);
            }
        }
        Err(EventError::new(
            EventRefusal::Busy,
            "the tournament is changing too fast to update; try again",
        ))
    }

    /// Tells both players of a new game where they sit.
    fn tell_players(&self, doc: &EventDoc, round: u32, room: &RoomId, seats: &[String; 2]) {
        for (i, name) in seats.iter().enumerate() {
            let msg = ServerMsg::TournamentGame(Box::new(TournamentSeat {
                tournament: doc.id.clone(),
                round,
                room: room.clone(),
                seat: Seat(u8::try_from(i).unwrap_or(0)),
                players: seats.to_vec(),
            }));
            self.directory.notify_account(&name_key(name), &msg, &[]);
        }
    }
}
