//! Finding opponents: seeks paired into matches, and challenges between
//! named players.
//!
//! - [`pairing`]: the pure function that pairs waiting seeks (seeks in,
//!   groups out), with the rating window that widens while a seek waits.
//! - [`seeks`] and [`challenges`]: what waits, within its limits.
//! - [`asker`]: what is kept of the session asking.
//! - [`rated_clock`]: the clock of a rated match that named none.
//! - [`start`]: a pairing or an accepted challenge made into a room, its
//!   players summoned to their seats.
//!
//! The [`Matchmaker`] holds the books and a task that pairs seeks as they
//! come and as their windows widen, and expires challenges.

pub mod asker;
pub mod challenges;
pub mod pairing;
pub mod rated_clock;
pub mod seeks;
mod start;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use parlor_protocol::{ChallengeEnd, ChallengeInfo, DeclineReason, ErrorCode, ServerMsg};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use asker::{Asker, AskerAccount};
pub use pairing::{pair, rating_window, Seek, Seeker};

use crate::directory::{Directory, Refused, RoomSpec};
use crate::outbox::ConnId;
use crate::room::unix_ms;
use challenges::{ChallengeBook, Open};
use seeks::SeekBook;

/// How often waiting seeks are looked at again when nothing else wakes
/// the matchmaker: rated windows widen every 5 s, so a second is prompt.
pub const PAIRING_TICK: Duration = Duration::from_secs(1);

/// Locks a mutex, recovering the data if a panicking thread poisoned it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The seeks and challenges of one node.
#[derive(Debug)]
pub struct Matchmaker {
    dir: Arc<Directory>,
    seeks: Mutex<SeekBook>,
    challenges: Mutex<ChallengeBook>,
    wake: Notify,
}

impl Matchmaker {
    /// A matchmaker making rooms in `dir`; its task runs on `tracker`
    /// until `shutdown`.
    pub fn start(
        dir: Arc<Directory>,
        tracker: &TaskTracker,
        shutdown: CancellationToken,
    ) -> Arc<Self> {
        let mm = Arc::new(Matchmaker {
            dir,
            seeks: Mutex::new(SeekBook::default()),
            challenges: Mutex::new(ChallengeBook::default()),
            wake: Notify::new(),
        });
        let task = Arc::clone(&mm);
        tracker.spawn(async move { task.run(shutdown).await });
        mm
    }

    async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        loop {
            let now = unix_ms();
            let due = [
                lock(&self.seeks).next_due_ms(),
                lock(&self.challenges).next_expiry_ms(),
            ]
            .into_iter()
            .flatten()
            .min();
            let wait = due.map_or(PAIRING_TICK, |at| {
                Duration::from_millis(at.saturating_sub(now)).min(PAIRING_TICK)
            });
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = self.wake.notified() => {}
                () = tokio::time::sleep(wait) => {}
            }
            self.round(unix_ms());
        }
    }

    /// Pairs what pairs and expires what expired, at `now_ms`.
    fn round(&self, now_ms: u64) {
        let groups = lock(&self.seeks).take_groups(now_ms);
        for group in groups {
            let dir = Arc::clone(&self.dir);
            tokio::spawn(start::start_match(dir, group));
        }
        let expired = lock(&self.challenges).take_expired(now_ms);
        for open in expired {
            self.ended(&open, ChallengeEnd::Expired, None, None);
        }
        // A challenge to a player whose every connection closed cannot be
        // answered: it ends now rather than at its expiry.
        let gone: Vec<String> = lock(&self.challenges)
            .addressees()
            .into_iter()
            .filter(|key| !self.dir.signed_in_here(key))
            .collect();
        if !gone.is_empty() {
            let taken = lock(&self.challenges).take_where(|o| gone.contains(&o.to_key));
            for open in taken {
                self.ended(&open, ChallengeEnd::Gone, None, None);
            }
        }
    }

    /// Adds a seek (already checked); its id. The caller answers `seeking`.
    pub fn seek(
        &self,
        asker: Asker,
        spec: RoomSpec,
        rated: bool,
        bots_after_ms: Option<u64>,
    ) -> Result<u64, Refused> {
        let id = lock(&self.seeks).add(asker, spec, rated, unix_ms(), bots_after_ms)?;
        self.wake.notify_one();
        Ok(id)
    }

    /// Cancels connection `conn`'s seek `id` (or all of them); the ids.
    pub fn cancel_seek(&self, conn: ConnId, id: Option<u64>) -> Vec<u64> {
        lock(&self.seeks).cancel(conn, id)
    }

    /// Makes a challenge (already checked) and tells the challenged
    /// player's connections; the challenge as both see it.
    pub fn challenge(&self, open: Open) -> Result<ChallengeInfo, Refused> {
        let to_key = open.to_key.clone();
        if !self.dir.signed_in_here(&to_key) {
            return Err((
                ErrorCode::ChallengeOffline,
                format!("{} is not connected now", open.info.to),
            ));
        }
        let info = lock(&self.challenges).add(open)?;
        self.dir
            .notify_account(&to_key, &ServerMsg::ChallengeMade(info.clone()), None);
        self.wake.notify_one();
        Ok(info)
    }

    /// The challenged player `by` accepts challenge `id` from connection
    /// `by.conn`: the room is made and both are summoned to it.
    pub async fn accept(&self, by: &Asker, id: u64) -> Result<(), Refused> {
        let key = by.account.as_ref().map_or("", |a| a.key.as_str());
        let open = lock(&self.challenges)
            .take_addressed(id, key)
            .ok_or_else(not_found)?;
        if self.dir.outbox_of(open.from.conn).is_none() {
            self.ended(&open, ChallengeEnd::Gone, None, None);
            return Err((
                ErrorCode::ChallengeNotFound,
                "the challenger has gone".into(),
            ));
        }
        match start::start_challenge(&self.dir, &open, by).await {
            Ok(room) => {
                // Both seated connections were told by their summons; the
                // challenged player's other connections hear it here.
                let msg = ServerMsg::ChallengeEnded {
                    challenge: open.info.challenge,
                    end: ChallengeEnd::Accepted,
                    reason: None,
                    room: Some(room),
                };
                self.dir.notify_account(key, &msg, Some(by.conn));
                Ok(())
            }
            Err(refused) => {
                self.ended(&open, ChallengeEnd::Cancelled, None, None);
                Err(refused)
            }
        }
    }

    /// The challenged player (account `by`) declines challenge `id`.
    pub fn decline(&self, by: &str, id: u64, reason: DeclineReason) -> Result<(), Refused> {
        let open = lock(&self.challenges)
            .take_addressed(id, by)
            .ok_or_else(not_found)?;
        self.ended(&open, ChallengeEnd::Declined, Some(reason), None);
        Ok(())
    }

    /// The challenger (account `by`) withdraws challenge `id`.
    pub fn cancel_challenge(&self, by: &str, id: u64) -> Result<(), Refused> {
        let open = lock(&self.challenges)
            .take_made(id, by)
            .ok_or_else(not_found)?;
        self.ended(&open, ChallengeEnd::Cancelled, None, None);
        Ok(())
    }

    /// Tells both sides that a challenge ended (the challenger on the
    /// connection it challenged from).
    fn ended(
        &self,
        open: &Open,
        end: ChallengeEnd,
        reason: Option<DeclineReason>,
        room: Option<parlor_protocol::RoomId>,
    ) {
        let msg = ServerMsg::ChallengeEnded {
            challenge: open.info.challenge,
            end,
            reason,
            room,
        };
        if let Some(out) = self.dir.outbox_of(open.from.conn) {
            out.send(&msg);
        }
        self.dir.notify_account(&open.to_key, &msg, None);
    }

    /// Connection `conn` closed: its seeks end, its challenges are gone.
    pub fn closed(&self, conn: ConnId) {
        lock(&self.seeks).cancel(conn, None);
        let taken = lock(&self.challenges).take_from_conn(conn);
        for open in taken {
            self.ended(&open, ChallengeEnd::Gone, None, None);
        }
    }

    /// How many seeks wait here.
    pub fn waiting(&self) -> usize {
        lock(&self.seeks).len()
    }
}

fn not_found() -> Refused {
    (
        ErrorCode::ChallengeNotFound,
        "no open challenge with that id is yours to answer (it may have expired or been withdrawn)"
            .into(),
    )
}
