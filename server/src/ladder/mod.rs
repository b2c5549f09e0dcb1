//! The continuous bot ladder, one per game: bot accounts enter it, and
//! the server keeps pairing the entered bots that are connected and idle
//! in rated games, with the game's built-in bots as fixed anchors (bot
//! accounts of their own, played by the server), so that a new bot gets
//! a settled rating without anyone organising anything.
//!
//! - [`anchors`]: the built-in bot accounts, made at start.
//! - [`store`]: entrants, games and leases beside the match log.
//! - `tick`: the tick every node runs on the shared
//!   [`LeasedTicker`](crate::schedule::LeasedTicker) (presence, and on
//!   the node holding a game's lease: results, pairing, rooms).
//! - `page`: `GET /api/ladder` and `GET /api/ladder/GAME`.
//!
//! Who plays whom is `parlor_competition::ladder`'s pure choice; this
//! module gathers its input and makes the rooms.

pub mod anchors;
mod page;
pub mod store;
mod tick;

use std::sync::Arc;

use parlor_games::GameKind;
use parlor_protocol::Clock;

pub use store::LadderStore;
pub use tick::{LADDER_LEASE_MS, LADDER_MAKE_GRACE_MS, PRESENCE_TICKS};

use crate::accounts::store::{Account, AccountStore};
use crate::accounts::{name_key, AccountKind};
use crate::clock::now_ms;
use crate::directory::Directory;
use crate::limits::LadderSettings;
use crate::schedule::{EventError, EventRefusal};
use crate::store::Store;

/// Finished games a ladder's page lists: enough to see a bot's latest
/// results, bounded so the public page stays small.
pub const LADDER_RECENT_GAMES: usize = 30;

/// The clock of every ladder game: the game's rated default (see
/// "Finding opponents" in the protocol document), so that a ladder game
/// rates like any rated match.
pub fn ladder_clock(game: GameKind) -> Clock {
    crate::matchmaking::rated_clock::rated_default(game)
}

/// The ladders; cheap to clone.
#[derive(Clone, Debug)]
pub struct Ladder {
    store: LadderStore,
    accounts: AccountStore,
    log: Store,
    directory: Arc<Directory>,
    settings: LadderSettings,
}

/// The game named `name`, or the ladder's refusal.
pub fn game_named(name: &str) -> Result<GameKind, EventError> {
    name.parse::<GameKind>().map_err(|_| {
        EventError::new(
            EventRefusal::UnknownGame,
            format!("no game {name:?} has a ladder here"),
        )
    })
}

impl Ladder {
    /// The ladders over `directory`'s database, with the settings of its
    /// limits.
    pub fn new(directory: Arc<Directory>) -> Self {
        let db = directory.store().beside();
        Ladder {
            store: LadderStore::new(db.clone()),
            accounts: AccountStore::new(db),
            log: directory.store().clone(),
            settings: directory.limits().ladder,
            directory,
        }
    }

    /// Enters bot account `account` in `game`'s ladder (again, if it
    /// left; entering twice changes nothing).
    pub async fn join(&self, game: GameKind, account: &Account) -> Result<(), EventError> {
        if !self.settings.enabled {
            return Err(EventError::new(
                EventRefusal::LadderOff,
                "this server runs no ladder",
            ));
        }
        if account.kind != AccountKind::Bot || account.builtin {
            return Err(EventError::new(
                EventRefusal::BotsOnly,
                "only bot accounts may enter a ladder; register one with \"kind\": \"bot\"",
            ));
        }
        self.store
            .enter(
                game,
                &name_key(&account.name),
                &account.name,
                false,
                now_ms(),
            )
            .await
            .map_err(|e| EventError::store(&e))?;
        tracing::info!(account = %account.name, %game, "entered the ladder");
        Ok(())
    }

    /// Takes `account` out of every ladder it is in (a moderator closed
    /// it): how many it left.
    pub async fn leave_every(&self, account: &Account) -> Result<usize, EventError> {
        let key = name_key(&account.name);
        let mut left = 0;
        for &game in GameKind::ALL {
            if self
                .store
                .leave(game, &key)
                .await
                .map_err(|e| EventError::store(&e))?
            {
                left += 1;
            }
        }
        if left > 0 {
            tracing::info!(account = %account.name, left, "left every ladder");
        }
        Ok(left)
    }

    /// Takes `account` out of `game`'s ladder: it is paired no more, its
    /// games being played go on. Leaving a ladder one is not in is no
    /// error.
    pub async fn leave(&self, game: GameKind, account: &Account) -> Result<(), EventError> {
        let was_in = self
            .store
            .leave(game, &name_key(&account.name))
            .await
            .map_err(|e| EventError::store(&e))?;
        if was_in {
            tracing::info!(account = %account.name, %game, "left the ladder");
        }
        Ok(())
    }
}
