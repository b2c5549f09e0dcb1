//! Entering and leaving an event.

use parlor_competition::tournament::Format;
use parlor_protocol::{EntrantKind, TournamentPlayer, TournamentStatus};

use super::doc::UNRATED_SEEDING;
use super::Tournaments;
use crate::accounts::{name_key, AccountKind};
use crate::schedule::{EventError, EventRefusal};

impl Tournaments {
    /// Enters account `name` (of `kind`) in event `id`: before the start,
    /// or in a running arena (late, or again after leaving or being
    /// paused), seeded by its rating now.
    pub async fn join(&self, id: &str, name: &str, kind: AccountKind) -> Result<(), EventError> {
        let key = name_key(name);
        let game = self.get(id).await?.doc.game;
        let rating = self
            .log
            .rating(game.name(), &key)
            .await
            .map_err(|e| EventError::store(&e))?
            .map_or(UNRATED_SEEDING, |r| r.rating.rating);
        self.change(id, |doc| {
            let late = doc.format == Format::Arena && doc.status == TournamentStatus::Running;
            if doc.status != TournamentStatus::Upcoming && !late {
                return Err(EventError::new(
                    EventRefusal::Started,
                    "the tournament has started: it takes no more players",
                ));
            }
            let fits = match doc.kind {
                EntrantKind::Any => true,
                EntrantKind::Human => kind == AccountKind::Human,
                EntrantKind::Bot => kind == AccountKind::Bot,
            };
            if !fits {
                return Err(EventError::new(
                    EventRefusal::WrongKind,
                    format!("this tournament is for {} accounts", kind_name(doc.kind)),
                ));
            }
            if let Some(p) = doc.players.iter_mut().find(|p| name_key(&p.name) == key) {
                if late && p.withdrawn {
                    // Back in the arena.
                    p.withdrawn = false;
                    return Ok(());
                }
                return Err(EventError::new(
                    EventRefusal::AlreadyEntered,
                    "you are entered already",
                ));
            }
            if doc.players.len() >= usize::try_from(doc.max_players).unwrap_or(usize::MAX) {
                return Err(EventError::new(
                    EventRefusal::Full,
                    format!("the tournament is full ({} players)", doc.max_players),
                ));
            }
            doc.players.push(TournamentPlayer {
                name: name.to_owned(),
                rating: late.then_some(rating),
                withdrawn: false,
            });
            Ok(())
        })
        .await
        .map(|_| ())
    }

    /// Takes account `name` out of every upcoming event it entered and
    /// withdraws it from every running one (a moderator closed it): how
    /// many.
    pub async fn leave_every(&self, name: &str) -> Result<usize, EventError> {
        let key = name_key(name);
        let events = self
            .store
            .list(
                &[
                    TournamentStatus::Upcoming.as_str(),
                    TournamentStatus::Running.as_str(),
                ],
                EVENTS_LEFT_AT_ONCE,
            )
            .await
            .map_err(|e| EventError::store(&e))?;
        let mut left = 0;
        for event in events.iter().filter(|s| s.doc.has(&key)) {
            self.leave(&event.doc.id, name).await?;
            left += 1;
        }
        Ok(left)
    }

    /// Takes account `name` out of event `id`: before the start, off the
    /// list; while it runs, withdrawn (its later games are forfeited).
    pub async fn leave(&self, id: &str, name: &str) -> Result<(), EventError> {
        let key = name_key(name);
        self.change(id, |doc| {
            if !doc.has(&key) {
                return Err(EventError::new(
                    EventRefusal::NotEntered,
                    "you are not entered in this tournament",
                ));
            }
            match doc.status {
                TournamentStatus::Upcoming => {
                    doc.players.retain(|p| name_key(&p.name) != key);
                    Ok(())
                }
                TournamentStatus::Running => {
                    for p in &mut doc.players {
                        if name_key(&p.name) == key {
                            p.withdrawn = true;
                        }
                    }
                    Ok(())
                }
                TournamentStatus::Finished | TournamentStatus::Cancelled => Err(EventError::new(
                    EventRefusal::Over,
                    "the tournament is over",
                )),
            }
        })
        .await
        .map(|_| ())
    }
}

/// The most upcoming and running events looked through when an account
/// leaves them all: far more than a server holds at once (each creator
/// may have a few upcoming), and a bound on one request's work.
pub const EVENTS_LEFT_AT_ONCE: usize = 1_000;

fn kind_name(kind: EntrantKind) -> &'static str {
    match kind {
        EntrantKind::Human => "human",
        EntrantKind::Bot => "bot",
        EntrantKind::Any => "any",
    }
}
