//! Finding opponents: seeks paired into matches, and challenges between
//! named players.
//!
//! - [`pairing`]: the pure function that pairs waiting seeks (seeks in,
//!   groups out), with the rating window that widens while a seek waits.
//! - [`seeks`] and [`challenges`]: what waits, within its limits.
//! - [`asker`]: what is kept of the session asking.
//! - [`rated_clock`]: the clock of a rated match that named none.
//! - `start`: a pairing or an accepted challenge made into a room, its
//!   players summoned to their seats.
//! - [`shared`]: the books in PostgreSQL, for a cluster.
//!
//! The [`Matchmaker`] holds the books (in memory on one node, in the
//! database in cluster mode) and a task that pairs seeks as they come and
//! as their windows widen, and expires challenges.

pub mod asker;
mod bus_loss;
pub mod challenges;
pub mod pairing;
pub mod rated_clock;
mod retell;
pub mod seeks;
pub mod shared;
mod start;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use parlor_protocol::{ChallengeEnd, ChallengeInfo, DeclineReason, ErrorCode, ServerMsg};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use asker::{Asker, AskerAccount};
pub use pairing::{pair, rating_window, Seek, Seeker};

use crate::blocks::{BlockedPairs, Blocks};
use crate::clock::now_ms;
use crate::directory::{lock, Directory, Refused, RoomSpec};
use crate::outbox::ConnId;
use challenges::{ChallengeBook, Open};
use seeks::{SeekBook, Waiting};
use shared::{Round, SharedBooks, TakeBy, BEAT_EVERY};

/// How long a closing connection waits for the shared books to drop its
/// seeks before answering the close anyway: the node's beat drops them
/// later if the database is slow or away, and a close must not hang.
const CLOSED_WITHIN: Duration = Duration::from_secs(2);

/// How often waiting seeks are looked at again when nothing else wakes
/// the matchmaker: rated windows widen every 5 s, so a second is prompt.
pub const PAIRING_TICK: Duration = Duration::from_secs(1);

/// Where the books are kept.
#[derive(Debug)]
enum Books {
    /// In memory: the node is the only one that matches.
    Local {
        seeks: Mutex<SeekBook>,
        challenges: Mutex<ChallengeBook>,
    },
    /// In the cluster's database.
    Shared(SharedBooks),
}

/// The seeks and challenges of one node (and, in cluster mode, its part
/// in the cluster's).
#[derive(Debug)]
pub struct Matchmaker {
    dir: Arc<Directory>,
    books: Books,
    wake: Notify,
}

fn storage(e: crate::store::StoreError) -> Refused {
    Refused::new(
        ErrorCode::ServerStorage,
        format!("matchmaking could not reach its database: {e}"),
    )
}

impl Matchmaker {
    /// A matchmaker making rooms in `dir`; its task runs on `tracker`
    /// until `shutdown`. In cluster mode (with a bus) its books are the
    /// cluster's, in the database.
    pub fn start(
        dir: Arc<Directory>,
        tracker: &TaskTracker,
        shutdown: CancellationToken,
    ) -> Arc<Self> {
        let books = match dir.cluster_pool() {
            Some(pool) => Books::Shared(SharedBooks::new(pool, &dir.node_name())),
            None => Books::Local {
                seeks: Mutex::new(SeekBook::default()),
                challenges: Mutex::new(ChallengeBook::default()),
            },
        };
        let mm = Arc::new(Matchmaker {
            dir,
            books,
            wake: Notify::new(),
        });
        if let Books::Shared(_) = &mm.books {
            let beat = Arc::clone(&mm);
            let stop = shutdown.clone();
            tracker.spawn(async move { beat.beat(stop).await });
            if let Some(losses) = mm.dir.bus_losses() {
                let watch = Arc::clone(&mm);
                let stop = shutdown.clone();
                tracker.spawn(bus_loss::close_challengers(watch, losses, stop));
            }
        }
        let task = Arc::clone(&mm);
        tracker.spawn(async move { task.run(shutdown).await });
        mm
    }

    /// Cluster mode: says this node is alive, every [`BEAT_EVERY`].
    async fn beat(self: Arc<Self>, shutdown: CancellationToken) {
        let Books::Shared(books) = &self.books else {
            return;
        };
        loop {
            match books.beat(now_ms()).await {
                Ok(renewal) => self.renew(books, renewal).await,
                Err(e) => tracing::warn!(error = %e, "matchmaking's beat failed; trying again"),
            }
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(BEAT_EVERY) => {}
            }
        }
    }

    /// Makes good what a beat found gone: this node's players' presence
    /// written again (a connection that closed meanwhile is taken out
    /// again after), and the players of challenges the books lost told.
    async fn renew(&self, books: &SharedBooks, renewal: shared::Renewal) {
        if renewal.presence {
            let signed = self.dir.signed_in();
            let written = books.sign_in_all(&signed).await;
            let still: std::collections::HashSet<ConnId> =
                self.dir.signed_in().into_iter().map(|(_, c)| c).collect();
            let gone: Vec<ConnId> = signed
                .iter()
                .map(|&(_, c)| c)
                .filter(|c| !still.contains(c))
                .collect();
            if let Err(e) = written.and(books.sign_out_all(&gone).await) {
                // The next beat finds the row and will not try again; the
                // players' next connection signs them in.
                tracing::warn!(error = %e, "players' presence was not written again");
            } else if !signed.is_empty() {
                tracing::info!(
                    players = signed.len(),
                    "matchmaking's books had lost this node: its players' presence written again"
                );
            }
        }
        for open in renewal.lost {
            self.ended(&open, ChallengeEnd::Lost, None, None);
        }
    }

    async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        loop {
            self.round(now_ms()).await;
            let now = now_ms();
            let due = match &self.books {
                Books::Local { seeks, challenges } => {
                    [lock(seeks).next_due_ms(), lock(challenges).next_expiry_ms()]
                        .into_iter()
                        .flatten()
                        .min()
                }
                Books::Shared(_) => None,
            };
            let wait = due.map_or(PAIRING_TICK, |at| {
                Duration::from_millis(at.saturating_sub(now)).min(PAIRING_TICK)
            });
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = self.wake.notified() => {}
                () = self.dir.placed().notified() => {}
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Pairs what pairs and expires what expired, at `now_ms`.
    async fn round(&self, now_ms: u64) {
        match &self.books {
            Books::Local { seeks, challenges } => {
                // The blocks among the accounts waiting, read once a round
                // (outside the lock: a seek made meanwhile waits a round).
                let keys = lock(seeks).account_keys();
                let blocked = match self.blocked_among(&keys).await {
                    Ok(b) => b,
                    Err(e) => {
                        // Accounts' seeks wait for a round that can read
                        // them; guests pair, challenges still expire.
                        tracing::warn!(error = %e, "blocks could not be read; accounts' seeks wait");
                        BlockedPairs::read_for(Vec::new())
                    }
                };
                let groups = lock(seeks).take_groups(now_ms, &blocked);
                for group in groups {
                    let dir = Arc::clone(&self.dir);
                    tokio::spawn(async move {
                        for (w, placed) in start::place_group(&dir, group).await {
                            start::deliver(&dir, w.id, w.asker.conn, placed);
                        }
                    });
                }
                let expired = lock(challenges).take_expired(now_ms);
                for open in expired {
                    self.ended(&open, ChallengeEnd::Expired, None, None);
                }
                // A challenge to a player whose every connection closed
                // cannot be answered: it ends now rather than at its expiry.
                let gone: Vec<String> = lock(challenges)
                    .addressees()
                    .into_iter()
                    .filter(|key| !self.dir.signed_in_here(key))
                    .collect();
                if !gone.is_empty() {
                    let taken = lock(challenges).take_where(|o| gone.contains(&o.to_key));
                    for open in taken {
                        self.ended(&open, ChallengeEnd::Gone, None, None);
                    }
                }
            }
            Books::Shared(books) => {
                if let Err(e) = self.shared_round(books, now_ms).await {
                    tracing::warn!(error = %e, "a matchmaking round failed; trying again");
                }
            }
        }
    }

    /// The pairs a block keeps apart among the accounts keyed `keys`
    /// (none to read for fewer than two).
    async fn blocked_among(
        &self,
        keys: &[String],
    ) -> Result<BlockedPairs, crate::store::StoreError> {
        if keys.len() < 2 {
            return Ok(BlockedPairs::read_for(keys.iter().cloned()));
        }
        Blocks::new(self.dir.store().beside())
            .pairs_among(keys)
            .await
    }

    async fn shared_round(
        &self,
        books: &SharedBooks,
        now_ms: u64,
    ) -> Result<(), crate::store::StoreError> {
        let dir = &self.dir;
        let round = books
            .pair(now_ms, |group| start::place_group(dir, group))
            .await?;
        if round != Round::Idle {
            dir.announce_placed();
        }
        if round == Round::More {
            self.wake.notify_one();
        }
        for (seek, conn, placed) in books.collect().await? {
            match placed {
                Some(placed) => start::deliver(dir, seek, conn, placed),
                None => {
                    if let Some(out) = dir.outbox_of(conn) {
                        out.send(&ServerMsg::SeekEnded {
                            seek,
                            reason: parlor_protocol::SeekEnd::Lost,
                        });
                    }
                }
            }
        }
        for (open, expired) in books.take_ended(now_ms).await? {
            let end = if expired {
                ChallengeEnd::Expired
            } else {
                ChallengeEnd::Gone
            };
            self.ended(&open, end, None, None);
        }
        Ok(())
    }

    /// Connection `conn` acts as the account `key` (for challenges to
    /// find it, on any node).
    pub fn sign_in(self: &Arc<Self>, key: &str, conn: ConnId) {
        self.dir.sign_in(key, conn);
        if let Books::Shared(_) = &self.books {
            let mm = Arc::clone(self);
            let key = key.to_owned();
            tokio::spawn(async move {
                if let Books::Shared(books) = &mm.books {
                    if let Err(e) = books.sign_in(&key, conn).await {
                        tracing::warn!(error = %e, "a player's presence was not recorded");
                    }
                }
            });
        }
    }

    /// Adds a seek (already checked), not to be paired rated with the
    /// accounts `apart`; if rated, it pairs only with seekers whose
    /// accounts are marked by the moderators when its own is (`marked`),
    /// and unmarked when its own is not. Its id. The caller answers
    /// `seeking`.
    pub async fn seek(
        &self,
        asker: Asker,
        spec: RoomSpec,
        (rated, rating): (bool, f64),
        bots_after_ms: Option<u64>,
        apart: Vec<String>,
        marked: bool,
    ) -> Result<u64, Refused> {
        let now = now_ms();
        let id = match &self.books {
            Books::Local { seeks, .. } => {
                let mut book = lock(seeks);
                let id = book.add(asker, spec, rated, rating, now, bots_after_ms)?;
                book.keep_apart(id, apart);
                book.set_marked(id, marked);
                id
            }
            Books::Shared(books) => {
                let w = Waiting {
                    id: 0,
                    asker,
                    spec,
                    rated,
                    rating,
                    since_ms: now,
                    bots_at_ms: bots_after_ms.map(|after| now.saturating_add(after)),
                    apart,
                    marked,
                };
                books.add_seek(&w).await.map_err(storage)??
            }
        };
        self.wake.notify_one();
        Ok(id)
    }

    /// Cancels connection `conn`'s seek `id` (or all of them); the ids.
    pub async fn cancel_seek(&self, conn: ConnId, id: Option<u64>) -> Result<Vec<u64>, Refused> {
        match &self.books {
            Books::Local { seeks, .. } => Ok(lock(seeks).cancel(conn, id)),
            Books::Shared(books) => books.cancel(conn, id).await.map_err(storage),
        }
    }

    /// Makes a challenge (already checked) and tells the challenged
    /// player's connections; the challenge as both see it.
    pub async fn challenge(&self, open: Open) -> Result<ChallengeInfo, Refused> {
        let to_key = open.to_key.clone();
        let online = match &self.books {
            Books::Local { .. } => self.dir.signed_in_here(&to_key),
            Books::Shared(books) => books.online(&to_key, now_ms()).await.map_err(storage)?,
        };
        if !online {
            return Err(Refused::new(
                ErrorCode::ChallengeOffline,
                format!("{} is not connected now", open.info.to),
            ));
        }
        let info = match &self.books {
            Books::Local { challenges, .. } => lock(challenges).add(open)?,
            Books::Shared(books) => books.add_challenge(open).await.map_err(storage)??,
        };
        self.dir
            .notify_account(&to_key, &ServerMsg::ChallengeMade(info.clone()), &[]);
        self.wake.notify_one();
        Ok(info)
    }

    /// Takes challenge `id` for `by` (its addressee or its maker).
    async fn take(&self, id: u64, whose: TakeBy, by: &str) -> Result<Open, Refused> {
        let taken = match &self.books {
            Books::Local { challenges, .. } => {
                let mut book = lock(challenges);
                match whose {
                    TakeBy::Addressee => book.take_addressed(id, by),
                    TakeBy::Maker => book.take_made(id, by),
                }
            }
            Books::Shared(books) => books.take(id, whose, by).await.map_err(storage)?,
        };
        taken.ok_or_else(not_found)
    }

    /// The challenged player `by` accepts challenge `id` from connection
    /// `by.conn`: the room is made and both are summoned to it.
    pub async fn accept(&self, by: &Asker, id: u64) -> Result<(), Refused> {
        let key = by.account.as_ref().map_or("", |a| a.key.as_str());
        let open = self.take(id, TakeBy::Addressee, key).await?;
        // A block made while the challenge waited stops it too (the
        // accepting player is the first: a block of theirs is said so).
        if let Err(refused) =
            challenges::check_blocks(self.dir.store(), &open.info.to, &open.info.from).await
        {
            self.ended(&open, ChallengeEnd::Cancelled, None, None);
            return Err(refused);
        }
        if open.info.rated {
            let cooling = crate::fair_play::cooling_down(self.dir.store(), key).await;
            if !matches!(cooling, Ok(None)) {
                self.ended(&open, ChallengeEnd::Cancelled, None, None);
                return Err(match cooling {
                    Err(e) => storage(e),
                    _ => Refused::new(
                        ErrorCode::RatedCooldown,
                        "you aborted too many rated matches lately (by not moving, or with abort); no rated play for now",
                    ),
                });
            }
            // The cap may have been reached while the challenge waited.
            let capped = crate::fair_play::pair_capped(
                self.dir.store(),
                open.from_key(),
                key,
                self.dir.limits().rated_pair_cap,
            )
            .await;
            if !matches!(capped, Ok(false)) {
                self.ended(&open, ChallengeEnd::Cancelled, None, None);
                return Err(match capped {
                    Err(e) => storage(e),
                    _ => Refused::new(
                        ErrorCode::ChallengeRatedLimit,
                        "you have played as many rated games together in the last 24 hours as count; play casual, or later",
                    ),
                });
            }
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
                self.dir.notify_account(key, &msg, &[by.conn]);
                Ok(())
            }
            Err(refused) => {
                self.ended(&open, ChallengeEnd::Cancelled, None, None);
                Err(refused)
            }
        }
    }

    /// The challenged player (account `by`) declines challenge `id`.
    pub async fn decline(&self, by: &str, id: u64, reason: DeclineReason) -> Result<(), Refused> {
        let open = self.take(id, TakeBy::Addressee, by).await?;
        self.ended(&open, ChallengeEnd::Declined, Some(reason), None);
        Ok(())
    }

    /// The challenger (account `by`) withdraws challenge `id`.
    pub async fn cancel_challenge(&self, by: &str, id: u64) -> Result<(), Refused> {
        let open = self.take(id, TakeBy::Maker, by).await?;
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
        self.dir.tell_at(&open.from.node, open.from.conn, &msg);
        self.dir.notify_account(&open.to_key, &msg, &[]);
    }

    /// Which of the accounts keyed `keys` are connected now, on this node
    /// or (in a cluster) any live one.
    pub async fn online_among(
        &self,
        keys: &[String],
    ) -> Result<std::collections::HashSet<String>, crate::store::StoreError> {
        match &self.books {
            Books::Local { .. } => Ok(keys
                .iter()
                .filter(|k| self.dir.signed_in_here(k))
                .cloned()
                .collect()),
            Books::Shared(books) => books.online_among(keys, now_ms()).await,
        }
    }

    /// Connection `conn` closed: its seeks end, its challenges are gone.
    /// Awaited before the close is answered, so that a client that saw
    /// its close answered knows its seeks can no longer pair (a new
    /// connection's seek would otherwise race the old one's removal).
    pub async fn closed(self: &Arc<Self>, conn: ConnId) {
        let taken = match &self.books {
            Books::Local { seeks, challenges } => {
                lock(seeks).cancel(conn, None);
                lock(challenges).take_from_conn(conn)
            }
            Books::Shared(books) => {
                match tokio::time::timeout(CLOSED_WITHIN, books.closed(conn)).await {
                    Ok(Ok(taken)) => taken,
                    Ok(Err(e)) => {
                        tracing::warn!(error = %e, "a closed connection's seeks were not dropped; its node's beat drops them");
                        Vec::new()
                    }
                    Err(_) => {
                        tracing::warn!("a closed connection's seeks were not dropped in time; its node's beat drops them");
                        Vec::new()
                    }
                }
            }
        };
        for open in taken {
            self.ended(&open, ChallengeEnd::Gone, None, None);
        }
    }
}

fn not_found() -> Refused {
    Refused::new(
        ErrorCode::ChallengeNotFound,
        "no open challenge with that id is yours to answer (it may have expired or been withdrawn)",
    )
}
