//! Open challenges on one node: made within their limits, answered by the
//! player they name, withdrawn by their maker, expired, or dropped with
//! the challenger's connection.

use std::collections::BTreeMap;
use std::time::Duration;

use parlor_protocol::{ChallengeInfo, ErrorCode};

use super::asker::Asker;
use crate::blocks::{Blocked, Blocks};
use crate::directory::{Refused, RoomSpec};
use crate::outbox::ConnId;
use crate::store::Store;

/// How long a challenge waits for an answer (lichess's too): long enough
/// to notice and answer, short enough that a stale one does not seat a
/// player who has gone.
pub const CHALLENGE_LIFETIME: Duration = Duration::from_secs(60);

/// Open challenges one player may have made: a few at once is plenty.
pub const MAX_CHALLENGES_FROM: usize = 4;

/// Open challenges one player may receive: beyond this, challenge spam
/// to a popular player is refused to the spammer, not shown to the player.
pub const MAX_CHALLENGES_TO: usize = 16;

/// Refuses a new challenge over one of its limits, given how many its
/// maker has open and how many wait for the player it names (`to`).
pub fn check_limits(made: usize, received: usize, to: &str) -> Result<(), Refused> {
    if made >= MAX_CHALLENGES_FROM {
        return Err(Refused::new(
            ErrorCode::ChallengeTooMany,
            format!(
                "you already have {made} challenges waiting for answers, the most one player may"
            ),
        ));
    }
    if received >= MAX_CHALLENGES_TO {
        return Err(Refused::new(
            ErrorCode::ChallengeTooMany,
            format!("{to} has {received} challenges waiting already; try later"),
        ));
    }
    Ok(())
}

/// Refuses a challenge between the accounts named `from` (its maker)
/// and `to` when either blocks the other (`challenge/blocked`): the
/// maker who blocks is told so plainly; a maker who is blocked only that
/// `to` does not accept its challenges, nothing of a block as such.
pub async fn check_blocks(store: &Store, from: &str, to: &str) -> Result<(), Refused> {
    match Blocks::new(store.beside()).between(from, to).await {
        Ok(Blocked::Neither) => Ok(()),
        Ok(Blocked::ByFirst) => Err(Refused::new(
            ErrorCode::ChallengeBlocked,
            format!("you block {to}: unblock them to play them"),
        )),
        Ok(Blocked::BySecond) => Err(Refused::new(
            ErrorCode::ChallengeBlocked,
            format!("{to} does not accept challenges from you"),
        )),
        Err(e) => Err(Refused::new(
            ErrorCode::ServerStorage,
            format!("the challenge could not be checked: {e}"),
        )),
    }
}

/// A challenge waiting for its answer.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Open {
    /// As both players see it.
    pub info: ChallengeInfo,
    /// The challenger (its connection is seated on acceptance).
    pub from: Asker,
    /// The challenged account's key.
    pub to_key: String,
    /// The room it makes.
    pub spec: RoomSpec,
}

impl Open {
    /// The challenger's account key.
    pub fn from_key(&self) -> &str {
        self.from.account.as_ref().map_or("", |a| a.key.as_str())
    }
}

/// The open challenges, by id.
#[derive(Debug, Default)]
pub struct ChallengeBook {
    open: BTreeMap<u64, Open>,
    next_id: u64,
}

impl ChallengeBook {
    /// Adds a challenge within the limits (its id is filled in).
    pub fn add(&mut self, mut open: Open) -> Result<ChallengeInfo, Refused> {
        let from = open.from_key().to_owned();
        let made = self.open.values().filter(|o| o.from_key() == from).count();
        let received = self
            .open
            .values()
            .filter(|o| o.to_key == open.to_key)
            .count();
        check_limits(made, received, &open.info.to)?;
        self.next_id += 1;
        open.info.challenge = self.next_id;
        let info = open.info.clone();
        self.open.insert(self.next_id, open);
        Ok(info)
    }

    /// Takes challenge `id` for its answer by the account `by`: only the
    /// challenged player may accept or decline it.
    pub fn take_addressed(&mut self, id: u64, by: &str) -> Option<Open> {
        if self.open.get(&id).is_some_and(|o| o.to_key == by) {
            self.open.remove(&id)
        } else {
            None
        }
    }

    /// Takes challenge `id` for its withdrawal by the account `by`.
    pub fn take_made(&mut self, id: u64, by: &str) -> Option<Open> {
        if self.open.get(&id).is_some_and(|o| o.from_key() == by) {
            self.open.remove(&id)
        } else {
            None
        }
    }

    /// Takes every challenge that expired by `now_ms`.
    pub fn take_expired(&mut self, now_ms: u64) -> Vec<Open> {
        self.take_where(|o| o.info.expires_at_ms <= now_ms)
    }

    /// Takes every challenge made from connection `conn`.
    pub fn take_from_conn(&mut self, conn: ConnId) -> Vec<Open> {
        self.take_where(|o| o.from.conn == conn)
    }

    /// Takes every challenge `f` picks.
    pub fn take_where(&mut self, f: impl Fn(&Open) -> bool) -> Vec<Open> {
        let ids: Vec<u64> = self
            .open
            .iter()
            .filter(|(_, o)| f(o))
            .map(|(&id, _)| id)
            .collect();
        ids.iter().filter_map(|id| self.open.remove(id)).collect()
    }

    /// When the next challenge expires.
    pub fn next_expiry_ms(&self) -> Option<u64> {
        self.open.values().map(|o| o.info.expires_at_ms).min()
    }

    /// The challenges addressed to the account `key` still open at
    /// `now_ms`, oldest first.
    pub fn addressed_to(&self, key: &str, now_ms: u64) -> Vec<ChallengeInfo> {
        self.open
            .values()
            .filter(|o| o.to_key == key && o.info.expires_at_ms > now_ms)
            .map(|o| o.info.clone())
            .collect()
    }

    /// The accounts challenges are addressed to.
    pub fn addressees(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.open.values().map(|o| o.to_key.clone()).collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;
    use std::sync::Arc;

    use parlor_games::GameKind;
    use serde_json::Value;
    use uuid::Uuid;

    use super::*;
    use crate::matchmaking::asker::AskerAccount;

    fn open(from: &str, conn: u64, to: &str, expires: u64) -> Open {
        let spec = RoomSpec::check(GameKind::Nimrod, None, &Value::Null, None).unwrap();
        Open {
            info: ChallengeInfo {
                challenge: 0,
                from: from.into(),
                from_kind: "human".into(),
                to: to.into(),
                game: spec.game,
                seats: 2,
                options: spec.options.clone(),
                clock: None,
                rated: false,
                seat: None,
                expires_at_ms: expires,
            },
            from: Asker {
                conn: ConnId(conn),
                token: Uuid::new_v4(),
                name: Arc::from(from),
                account: Some(AskerAccount {
                    key: from.into(),
                    name: from.into(),
                    kind: "human".into(),
                }),
                addr: IpAddr::from([127, 0, 0, 1]),
                node: Arc::from("local"),
            },
            to_key: to.into(),
            spec,
        }
    }

    #[test]
    fn only_the_challenged_answers_and_only_the_challenger_withdraws() {
        let mut book = ChallengeBook::default();
        let id = book.add(open("al", 1, "bo", 100)).unwrap().challenge;
        assert!(book.take_addressed(id, "al").is_none());
        assert!(book.take_made(id, "bo").is_none());
        assert!(book.take_addressed(id, "bo").is_some());
        assert!(book.take_addressed(id, "bo").is_none());
    }

    #[test]
    fn spam_is_bounded_both_ways() {
        let mut book = ChallengeBook::default();
        for i in 0..MAX_CHALLENGES_FROM {
            book.add(open("al", 1, &format!("p{i}"), 100)).unwrap();
        }
        let over = book.add(open("al", 1, "zz", 100));
        assert_eq!(over.map_err(|e| e.code), Err(ErrorCode::ChallengeTooMany));
        let mut book = ChallengeBook::default();
        for i in 0..MAX_CHALLENGES_TO {
            book.add(open(&format!("p{i}"), i as u64, "star", 100))
                .unwrap();
        }
        let over = book.add(open("late", 99, "star", 100));
        assert_eq!(over.map_err(|e| e.code), Err(ErrorCode::ChallengeTooMany));
    }

    #[test]
    fn expiry_and_closed_connections_take_theirs() {
        let mut book = ChallengeBook::default();
        book.add(open("al", 1, "bo", 100)).unwrap();
        book.add(open("cy", 2, "bo", 200)).unwrap();
        assert_eq!(book.next_expiry_ms(), Some(100));
        assert_eq!(book.take_expired(150).len(), 1);
        assert_eq!(book.take_from_conn(ConnId(2)).len(), 1);
        assert_eq!(book.next_expiry_ms(), None);
    }
}
