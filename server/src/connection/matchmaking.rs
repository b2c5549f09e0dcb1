//! Answering the requests that find opponents: seeks, challenges and
//! rematches, and the summonses that seat this session from outside.
//! What the session keeps for them is its [`Matchmaking`]: the queue its
//! summonses arrive on (its seeks and challenges are the matchmaker's).

use std::sync::Arc;

use parlor_games::deal::check_client_seed;
use parlor_games::GameKind;
use parlor_protocol::{ChallengeInfo, Clock, DeclineReason, ErrorCode, RoomId, ServerMsg};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::asks::{ChallengeAsk, SeekAsk};
use super::seek_budget::SeekBudget;
use super::standing::MayPlay;
use super::Session;
use crate::accounts::name_key;
use crate::admission::address_key;
use crate::clock::now_ms;
use crate::directory::{Refused, RoomSpec, Summons};
use crate::fair_play::{capped_opponents, cooling_down, pair_capped, RATED_PAIR_CAP};
use crate::matchmaking::challenges::{check_blocks, Open, CHALLENGE_LIFETIME};
use crate::matchmaking::rated_clock::rated_default;
use crate::matchmaking::seeks::{
    DEFAULT_BOTS_AFTER_MS, MAX_BOTS_AFTER_MS, MIN_BOTS_AFTER_MS, UNRATED_RATING,
};
use crate::matchmaking::{Asker, AskerAccount};
use crate::room::RoomRequest;

/// A session's part in matchmaking: where summonses to seats arrive
/// (matches found, challenges accepted, rematches), once the session
/// seeks, challenges or offers a rematch: made then, so that idle
/// connections do not pay for it.
#[derive(Debug, Default)]
pub(super) struct Matchmaking {
    summons: Option<mpsc::Receiver<Summons>>,
    /// The seeks it may still make.
    seek_budget: SeekBudget,
    /// The client sent a seed with a seek, challenge, acceptance or
    /// rematch: it answers `joined`'s `seed_wanted`, so the seats it is
    /// summoned to wait for its seed (a client that never said so is
    /// seated without one at once, as older clients expect).
    seeds: bool,
}

impl Matchmaking {
    /// Listens for summonses from now on, on the queue `queue` makes
    /// (made once: a session listening already keeps its queue).
    pub(super) fn listen(&mut self, queue: impl FnOnce() -> mpsc::Receiver<Summons>) {
        if self.summons.is_none() {
            self.summons = Some(queue());
        }
    }

    /// The next summons, for a session that listens for them; never, for
    /// one that does not.
    /// Boxed: a summons is rare and large, and the connection loop's state
    /// would keep a place for it on every idle connection.
    pub(super) async fn next(&mut self) -> Box<Summons> {
        match &mut self.summons {
            Some(rx) => match rx.recv().await {
                Some(s) => Box::new(s),
                None => std::future::pending().await,
            },
            None => std::future::pending().await,
        }
    }
}

impl Session {
    /// Notes a seed given with a request that may seat this session: the
    /// session's summonses wait for its seed after the commitment from
    /// now on. False (refused) if the seed is not a valid one.
    pub(super) fn promise_seed(&mut self, client_seed: Option<&str>) -> bool {
        let Some(seed) = client_seed else {
            return true;
        };
        if let Err(e) = check_client_seed(seed) {
            self.refuse(Refused::new(ErrorCode::RequestMalformed, e.to_string()));
            return false;
        }
        self.matchmaking.seeds = true;
        true
    }

    /// This session as the matchmaker keeps it.
    /// The rating a seek of `game` pairs by: for a rated seek, the
    /// account's rating in the game's pool (the starting rating if it has
    /// none yet, or if it cannot be read now: the seek still pairs).
    async fn seek_rating(&self, game: GameKind, rated: bool) -> f64 {
        let Some(account) = self.account.as_ref().filter(|_| rated) else {
            return UNRATED_RATING;
        };
        let store = self.shared.directory.store();
        match store.rating(game.name(), &name_key(&account.name)).await {
            Ok(r) => r.map_or(UNRATED_RATING, |r| r.rating.rating),
            Err(e) => {
                tracing::debug!(error = %e, "a seeker's rating could not be read");
                UNRATED_RATING
            }
        }
    }

    fn asker(&self) -> Asker {
        Asker {
            conn: self.conn,
            token: self.token,
            name: Arc::clone(&self.name),
            account: self.account.as_ref().map(|a| AskerAccount {
                key: name_key(&a.name),
                name: a.name.clone(),
                kind: a.kind.as_str().to_owned(),
            }),
            addr: address_key(self.peer.addr),
            node: self.shared.directory.node_name(),
        }
    }

    /// Lets this session be summoned to seats from now on.
    fn listen(&mut self) {
        let (directory, conn) = (&self.shared.directory, self.conn);
        self.matchmaking.listen(|| directory.listen(conn));
    }

    fn refuse(&self, refused: Refused) {
        self.out.send(&ServerMsg::from(refused));
    }

    /// Refuses what only an account may do, for a guest.
    fn require_account(&self, what: &str) -> bool {
        if self.account.is_none() {
            self.refuse(Refused::new(
                ErrorCode::AuthRequired,
                format!("{what} needs an account: log in, or send a token in hello"),
            ));
            return false;
        }
        true
    }

    /// The spec of a rated or casual match: a rated one always has a
    /// clock, and a correspondence clock is for accounts only.
    fn match_spec(
        &self,
        game: GameKind,
        seats: Option<u8>,
        options: &Value,
        clock: Option<Clock>,
        rated: bool,
    ) -> Option<RoomSpec> {
        if rated && !self.require_account("rated play") {
            return None;
        }
        if clock.is_some_and(|c| c.is_correspondence())
            && !self.require_account("a correspondence game")
        {
            return None;
        }
        let clock = match clock {
            None if rated => Some(rated_default(game)),
            c => c,
        };
        match RoomSpec::check(game, seats, options, clock) {
            Ok(spec) => Some(spec),
            Err(refused) => {
                self.refuse(refused);
                None
            }
        }
    }

    pub(super) async fn seek(&mut self, ask: SeekAsk) {
        // First, so that a churn of seeks costs nothing but this.
        if let Err(refused) = self.matchmaking.seek_budget.take(Instant::now()) {
            return self.refuse(refused);
        }
        let bots_after_ms = if ask.bots {
            if ask.rated {
                return self.refuse(Refused::new(
                    ErrorCode::SeekInvalid,
                    "built-in bots are never rated: seek casual to play them",
                ));
            }
            let after = ask.bots_after_ms.unwrap_or(DEFAULT_BOTS_AFTER_MS);
            if !(MIN_BOTS_AFTER_MS..=MAX_BOTS_AFTER_MS).contains(&after) {
                return self.refuse(Refused::new(
                    ErrorCode::SeekInvalid,
                    format!("bots_after_ms must be {MIN_BOTS_AFTER_MS} to {MAX_BOTS_AFTER_MS}"),
                ));
            }
            Some(after)
        } else {
            None
        };
        let Some(spec) = self.match_spec(ask.game, ask.seats, &ask.options, ask.clock, ask.rated)
        else {
            return;
        };
        let marked = match self.may_play(None).await {
            MayPlay::Refused => return,
            MayPlay::Guest => false,
            MayPlay::Account(s) => s.mark.is_some(),
        };
        if ask.rated && !self.rated_allowed().await {
            return;
        }
        let rating = self.seek_rating(ask.game, ask.rated).await;
        let apart = match (&self.account, ask.rated) {
            (Some(account), true) => {
                let store = self.shared.directory.store();
                match capped_opponents(
                    store,
                    &name_key(&account.name),
                    self.shared.directory.limits().rated_pair_cap,
                )
                .await
                {
                    Ok(apart) => apart,
                    Err(e) => {
                        return self.refuse(Refused::new(
                            ErrorCode::ServerStorage,
                            format!("your rated games could not be counted: {e}"),
                        ))
                    }
                }
            }
            _ => Vec::new(),
        };
        self.listen();
        let seats = spec.seats;
        let matchmaker = Arc::clone(&self.shared.matchmaker);
        match matchmaker
            .seek(
                self.asker(),
                spec,
                (ask.rated, rating),
                bots_after_ms,
                apart,
                marked,
            )
            .await
        {
            Ok(seek) => {
                self.out.send(&ServerMsg::Seeking {
                    seek,
                    game: ask.game,
                    seats,
                    rated: ask.rated,
                });
            }
            Err(refused) => self.refuse(refused),
        }
    }

    pub(super) async fn cancel_seek(&mut self, seek: Option<u64>) {
        let matchmaker = Arc::clone(&self.shared.matchmaker);
        let ended = match matchmaker.cancel_seek(self.conn, seek).await {
            Ok(ended) => ended,
            Err(refused) => return self.refuse(refused),
        };
        if ended.is_empty() && seek.is_some() {
            return self.refuse(Refused::new(
                ErrorCode::SeekNotFound,
                "this connection has no waiting seek with that id (it may just have been matched)",
            ));
        }
        for seek in ended {
            self.out.send(&ServerMsg::SeekEnded {
                seek,
                reason: parlor_protocol::SeekEnd::Cancelled,
            });
        }
    }

    pub(super) async fn challenge(&mut self, ask: ChallengeAsk) {
        if !self.require_account("a challenge") {
            return;
        }
        let Some(me) = self.asker().account else {
            return;
        };
        if name_key(&ask.to) == me.key {
            return self.refuse(Refused::new(
                ErrorCode::ChallengeSelf,
                "you cannot challenge yourself",
            ));
        }
        let them = match self.shared.accounts.player(&ask.to).await {
            Ok(account) => account,
            Err(crate::accounts::AccountError::NoSuchPlayer) => {
                return self.refuse(Refused::new(
                    ErrorCode::ChallengeUnknownPlayer,
                    format!("no account is called {:?}", ask.to),
                ))
            }
            Err(e) => return self.refuse(Refused::new(ErrorCode::ServerStorage, e.to_string())),
        };
        let store = self.shared.directory.store();
        if let Err(refused) = check_blocks(store, &me.name, &them.name).await {
            return self.refuse(refused);
        }
        if ask.game.seat_range().0 > 2 {
            return self.refuse(Refused::new(
                ErrorCode::ChallengeInvalid,
                format!("{} needs more than two players", ask.game),
            ));
        }
        if ask.seat.is_some_and(|s| s.0 > 1) {
            return self.refuse(Refused::new(
                ErrorCode::ChallengeInvalid,
                "a challenge has seats 0 and 1",
            ));
        }
        let Some(spec) = self.match_spec(ask.game, Some(2), &ask.options, ask.clock, ask.rated)
        else {
            return;
        };
        let my_mark = match self.may_play(None).await {
            MayPlay::Refused => return,
            MayPlay::Guest => None,
            MayPlay::Account(s) => s.mark,
        };
        if ask.rated {
            if my_mark.is_some() != them.standing.mark.is_some() {
                // A marked account's rated games are among marked ones.
                return self.refuse(Refused::new(
                    ErrorCode::ChallengeInvalid,
                    "a rated game between an account marked by the moderators and one not marked cannot be played: challenge casual",
                ));
            }
            if !self.rated_allowed().await {
                return;
            }
            let store = self.shared.directory.store();
            let cap = self.shared.directory.limits().rated_pair_cap;
            if let Err(refused) =
                rated_pair_allowed(store, &me.key, &name_key(&them.name), cap).await
            {
                return self.refuse(refused);
            }
        }
        self.listen();
        let lifetime = u64::try_from(CHALLENGE_LIFETIME.as_millis()).unwrap_or(u64::MAX);
        let open = Open {
            info: ChallengeInfo {
                challenge: 0,
                from: me.name.clone(),
                from_kind: me.kind.clone(),
                to: them.name.clone(),
                game: spec.game,
                seats: spec.seats,
                options: spec.options.clone(),
                clock: spec.clock,
                rated: ask.rated,
                seat: ask.seat,
                expires_at_ms: now_ms().saturating_add(lifetime),
            },
            from: self.asker(),
            to_key: name_key(&them.name),
            spec,
        };
        let matchmaker = Arc::clone(&self.shared.matchmaker);
        match matchmaker.challenge(open).await {
            Ok(info) => {
                self.out.send(&ServerMsg::ChallengeMade(info));
            }
            Err(refused) => self.refuse(refused),
        }
    }

    pub(super) async fn accept(&mut self, challenge: u64) {
        if !self.require_account("accepting a challenge") {
            return;
        }
        if self.may_play(None).await == MayPlay::Refused {
            return;
        }
        self.listen();
        let me = self.asker();
        let matchmaker = Arc::clone(&self.shared.matchmaker);
        if let Err(refused) = matchmaker.accept(&me, challenge).await {
            // A cooldown's refusal is sent with its retry time.
            if refused.code != ErrorCode::RatedCooldown || self.rated_allowed().await {
                self.refuse(refused);
            }
        }
    }

    /// Whether this session may play rated now: not if its account is
    /// cooling down after aborting rated matches by its silence (then it
    /// is told so, with `retry_after_ms`).
    async fn rated_allowed(&self) -> bool {
        let Some(account) = &self.account else {
            return true;
        };
        let store = self.shared.directory.store();
        match cooling_down(store, &name_key(&account.name)).await {
            Ok(None) => true,
            Ok(Some(wait)) => {
                self.out.send(&ServerMsg::Error {
                    code: ErrorCode::RatedCooldown,
                    message: format!("you aborted too many rated matches lately (by not moving, or with abort): no rated play for {} more minutes", wait.div_ceil(60_000)),
                    room: None,
                    detail: Some(serde_json::json!({ "retry_after_ms": wait })),
                });
                false
            }
            Err(e) => {
                self.refuse(Refused::new(
                    ErrorCode::ServerStorage,
                    format!("your aborted games could not be counted: {e}"),
                ));
                false
            }
        }
    }

    pub(super) async fn decline(&mut self, challenge: u64, reason: DeclineReason) {
        let Some(me) = self.asker().account else {
            return self.refuse(not_yours());
        };
        let matchmaker = Arc::clone(&self.shared.matchmaker);
        if let Err(refused) = matchmaker.decline(&me.key, challenge, reason).await {
            self.refuse(refused);
        }
    }

    pub(super) async fn cancel_challenge(&mut self, challenge: u64) {
        let Some(me) = self.asker().account else {
            return self.refuse(not_yours());
        };
        let matchmaker = Arc::clone(&self.shared.matchmaker);
        if let Err(refused) = matchmaker.cancel_challenge(&me.key, challenge).await {
            self.refuse(refused);
        }
    }

    pub(super) fn rematch(&mut self, room: RoomId) {
        self.listen();
        self.forward(room, RoomRequest::Rematch, false);
    }

    /// Takes the seat a summons names, after telling the client why; then
    /// seats the bots it brings.
    pub(super) fn on_summons(&mut self, summons: Summons) {
        if matches!(summons.notice, ServerMsg::Matched { .. }) {
            self.matchmaking.seek_budget.matched();
        }
        self.out.send(&summons.notice);
        self.forward(
            summons.room.clone(),
            RoomRequest::Join {
                seat: Some(summons.seat),
                client_seed: None,
                await_seed: self.matchmaking.seeds,
            },
            true,
        );
        for (seat, strategy) in summons.bots {
            self.forward(
                summons.room.clone(),
                RoomRequest::AddBot {
                    seat: Some(seat),
                    strategy: Some(strategy),
                },
                false,
            );
        }
    }
}

/// Refuses a rated game between the accounts `a` and `b` (name keys)
/// once they have had [`RATED_PAIR_CAP`] rated results together in the
/// last [`crate::fair_play::RATED_PAIR_WINDOW_MS`].
pub async fn rated_pair_allowed(
    store: &crate::store::Store,
    a: &str,
    b: &str,
    cap: u64,
) -> Result<(), Refused> {
    match pair_capped(store, a, b, cap).await {
        Ok(false) => Ok(()),
        Ok(true) => Err(Refused::new(
            ErrorCode::ChallengeRatedLimit,
            format!(
                "you have played {RATED_PAIR_CAP} rated games together in the last 24 hours, as many as count; play casual, or later"
            ),
        )),
        Err(e) => Err(Refused::new(
            ErrorCode::ServerStorage,
            format!("your rated games could not be counted: {e}"),
        )),
    }
}

/// A challenge a guest tries to answer or withdraw is none of theirs.
fn not_yours() -> Refused {
    Refused::new(
        ErrorCode::ChallengeNotFound,
        "no open challenge with that id is yours (challenges are between accounts)",
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use parlor_games::Seat;
    use parlor_protocol::ServerMsg;

    use super::*;

    fn summons(seat: u8) -> Summons {
        Summons {
            notice: ServerMsg::Pong { id: None },
            room: RoomId::new("r1").unwrap(),
            seat: Seat(seat),
            bots: Vec::new(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_that_never_listened_is_never_summoned() {
        let mut mm = Matchmaking::default();
        let waited = tokio::time::timeout(Duration::from_secs(3600), mm.next()).await;
        assert!(waited.is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn a_listening_session_keeps_its_first_queue_and_reads_it_in_order() {
        let mut mm = Matchmaking::default();
        let (tx, rx) = mpsc::channel(4);
        mm.listen(|| rx);
        // A second listen must not replace the queue the directory holds.
        mm.listen(|| mpsc::channel(4).1);
        tx.send(summons(1)).await.unwrap();
        tx.send(summons(0)).await.unwrap();
        assert_eq!(mm.next().await.seat, Seat(1));
        assert_eq!(mm.next().await.seat, Seat(0));
        // The directory forgot the queue: nothing more, ever.
        drop(tx);
        let waited = tokio::time::timeout(Duration::from_secs(3600), mm.next()).await;
        assert!(waited.is_err());
    }
}
