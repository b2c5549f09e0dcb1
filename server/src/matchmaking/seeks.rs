//! The seeks waiting on one node: added within their limits, cancelled,
//! dropped with their connection, and taken out in groups when they pair.

use std::collections::BTreeMap;

use parlor_protocol::ErrorCode;

use super::asker::Asker;
use super::pairing::{pair, Seek};
use crate::blocks::BlockedPairs;
use crate::directory::{Refused, RoomSpec};
use crate::outbox::ConnId;

/// Waiting seeks one connection may have: a few games at once (say one
/// per game) is plenty, and each seek is a room's worth of work when it
/// pairs.
pub const MAX_SEEKS_PER_CONNECTION: usize = 4;

/// Waiting seeks one account may have over all its connections.
pub const MAX_SEEKS_PER_ACCOUNT: usize = 8;

/// Waiting seeks from one address: bounds a client that opens many
/// connections to flood the pool (each pair it makes with itself would
/// be a room).
pub const MAX_SEEKS_PER_ADDRESS: usize = 32;

/// Shortest wait a player may choose before bots fill in.
pub const MIN_BOTS_AFTER_MS: u64 = 1_000;

/// Longest wait a player may choose before bots fill in.
pub const MAX_BOTS_AFTER_MS: u64 = 600_000;

/// How long a seek with bots waits for people when it says nothing.
pub const DEFAULT_BOTS_AFTER_MS: u64 = 30_000;

/// The rating a seek pairs by when the seeker has none in the game's pool
/// (a guest, or an account new to it): the Glicko-2 starting rating.
pub const UNRATED_RATING: f64 = 1500.0;

fn unrated() -> f64 {
    UNRATED_RATING
}

/// Refuses a new seek over one of its limits, given how many seeks wait
/// already for its connection, its account (`None`: a guest's) and its
/// address (counted in memory on one node, in the database in a cluster).
pub fn check_limits(
    of_conn: usize,
    of_account: Option<usize>,
    of_addr: usize,
) -> Result<(), Refused> {
    let too_many = |m: String| Err(Refused::new(ErrorCode::SeekTooMany, m));
    if of_conn >= MAX_SEEKS_PER_CONNECTION {
        return too_many(format!("this connection already has {of_conn} seeks waiting, the most it may; cancel one first"));
    }
    if let Some(n) = of_account.filter(|&n| n >= MAX_SEEKS_PER_ACCOUNT) {
        return too_many(format!(
            "your account already has {n} seeks waiting, the most it may; cancel one first"
        ));
    }
    if of_addr >= MAX_SEEKS_PER_ADDRESS {
        return too_many(format!(
            "your address already has {of_addr} seeks waiting, the most one address may"
        ));
    }
    Ok(())
}

/// A seek as it waits.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Waiting {
    /// Its id.
    pub id: u64,
    /// Who seeks.
    pub asker: Asker,
    /// The room it asks for.
    pub spec: RoomSpec,
    /// Rated.
    pub rated: bool,
    /// The seeker's rating in the game's pool when the seek was made
    /// (rated seeks pair by it).
    #[serde(default = "unrated")]
    pub rating: f64,
    /// When it was made, in ms on the matchmaker's clock.
    pub since_ms: u64,
    /// When bots fill in, for a seek that asked for them.
    pub bots_at_ms: Option<u64>,
    /// For a rated seek: the accounts (name keys) it is not paired with,
    /// having had as many rated results with them lately as count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub apart: Vec<String>,
    /// Whether the seeker's account is marked by the moderators (`engine`
    /// or `booster`): rated, it pairs only with marked seekers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub marked: bool,
}

/// Seeks that make a match.
#[derive(Debug)]
pub struct Group {
    /// The seeks, in the order they were made.
    pub members: Vec<Waiting>,
    /// Seats left for built-in bots (a seek whose wait for people ran out).
    pub bots: u8,
}

/// The waiting seeks.
#[derive(Debug, Default)]
pub struct SeekBook {
    waiting: BTreeMap<u64, Waiting>,
    next_id: u64,
}

impl SeekBook {
    /// How many seeks wait.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// A book of seeks read back (cluster mode: from the database, ids
    /// as stored there), to pair them.
    pub fn from_waiting(waiting: Vec<Waiting>) -> SeekBook {
        let next_id = waiting.iter().map(|w| w.id).max().unwrap_or(0);
        SeekBook {
            waiting: waiting.into_iter().map(|w| (w.id, w)).collect(),
            next_id,
        }
    }

    /// Adds a seek within the limits; its id.
    pub fn add(
        &mut self,
        asker: Asker,
        spec: RoomSpec,
        rated: bool,
        rating: f64,
        now_ms: u64,
        bots_after_ms: Option<u64>,
    ) -> Result<u64, Refused> {
        let of_conn = self.count(|w| w.asker.conn == asker.conn);
        let of_account = asker.account.as_ref().map(|account| {
            self.count(|w| {
                w.asker
                    .account
                    .as_ref()
                    .is_some_and(|a| a.key == account.key)
            })
        });
        let of_addr = self.count(|w| w.asker.addr == asker.addr);
        check_limits(of_conn, of_account, of_addr)?;
        self.next_id += 1;
        let id = self.next_id;
        self.waiting.insert(
            id,
            Waiting {
                id,
                asker,
                spec,
                rated,
                rating,
                since_ms: now_ms,
                bots_at_ms: bots_after_ms.map(|after| now_ms.saturating_add(after)),
                apart: Vec::new(),
                marked: false,
            },
        );
        Ok(id)
    }

    /// Keeps seek `id` from being paired rated with the accounts `apart`.
    pub fn keep_apart(&mut self, id: u64, apart: Vec<String>) {
        if let Some(w) = self.waiting.get_mut(&id) {
            w.apart = apart;
        }
    }

    /// Notes whether seek `id`'s account is marked by the moderators.
    pub fn set_marked(&mut self, id: u64, marked: bool) {
        if let Some(w) = self.waiting.get_mut(&id) {
            w.marked = marked;
        }
    }

    fn count(&self, f: impl Fn(&Waiting) -> bool) -> usize {
        self.waiting.values().filter(|w| f(w)).count()
    }

    /// Cancels connection `conn`'s seek `id`, or all its seeks; the ids
    /// cancelled.
    pub fn cancel(&mut self, conn: ConnId, id: Option<u64>) -> Vec<u64> {
        let ids: Vec<u64> = self
            .waiting
            .values()
            .filter(|w| w.asker.conn == conn && id.is_none_or(|id| w.id == id))
            .map(|w| w.id)
            .collect();
        for id in &ids {
            self.waiting.remove(id);
        }
        ids
    }

    /// The accounts (name keys) that wait, whose blocks a pairing round
    /// reads.
    pub fn account_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .waiting
            .values()
            .filter_map(|w| w.asker.account.as_ref().map(|a| a.key.clone()))
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// Takes out every group that pairs at `now_ms`, never pairing two
    /// players `blocked` keeps apart (a seek of an account whose blocks it
    /// did not read waits for the next round), and every seek whose wait
    /// for people ran out and that asked for bots.
    pub fn take_groups(&mut self, now_ms: u64, blocked: &BlockedPairs) -> Vec<Group> {
        let seeks: Vec<Seek<String>> = self
            .waiting
            .values()
            .filter(|w| {
                w.asker
                    .account
                    .as_ref()
                    .is_none_or(|a| blocked.knows(&a.key))
            })
            .map(|w| Seek {
                id: w.id,
                // A marked account's rated seek pairs among marked ones
                // only: the mark is part of a rated seek's key.
                key: format!("{}|{}|{}", w.rated, w.rated && w.marked, w.spec.key()),
                rated: w.rated,
                seats: w.spec.seats,
                seeker: w.asker.seeker(),
                rating: w.rating,
                since_ms: w.since_ms,
                apart: w
                    .apart
                    .iter()
                    .cloned()
                    .map(super::Seeker::Account)
                    .collect(),
                blocked: w
                    .asker
                    .account
                    .as_ref()
                    .map(|a| blocked.of(&a.key))
                    .unwrap_or_default()
                    .into_iter()
                    .map(super::Seeker::Account)
                    .collect(),
            })
            .collect();
        let mut groups: Vec<Group> = pair(&seeks, now_ms)
            .into_iter()
            .map(|ids| Group {
                members: ids
                    .iter()
                    .filter_map(|id| self.waiting.remove(id))
                    .collect(),
                bots: 0,
            })
            .collect();
        let due: Vec<u64> = self
            .waiting
            .values()
            .filter(|w| w.bots_at_ms.is_some_and(|at| at <= now_ms))
            .map(|w| w.id)
            .collect();
        for id in due {
            if let Some(w) = self.waiting.remove(&id) {
                let bots = w.spec.seats.saturating_sub(1);
                groups.push(Group {
                    members: vec![w],
                    bots,
                });
            }
        }
        groups
    }

    /// When the next seek's wait for bots runs out, or its rating window
    /// widens: the latest time the book must be looked at again.
    pub fn next_due_ms(&self) -> Option<u64> {
        self.waiting.values().filter_map(|w| w.bots_at_ms).min()
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

    fn asker(conn: u64, account: Option<&str>, addr: u8) -> Asker {
        Asker {
            conn: ConnId(conn),
            token: Uuid::new_v4(),
            name: Arc::from(account.unwrap_or("guest")),
            account: account.map(|a| AskerAccount {
                key: a.to_ascii_lowercase(),
                name: a.into(),
                kind: "human".into(),
            }),
            addr: IpAddr::from([10, 0, 0, addr]),
            node: Arc::from("local"),
        }
    }

    fn nimrod() -> RoomSpec {
        RoomSpec::check(GameKind::Nimrod, None, &Value::Null, None).unwrap()
    }

    #[test]
    fn two_players_pair_and_leave_the_book() {
        let mut book = SeekBook::default();
        book.add(asker(1, None, 1), nimrod(), false, UNRATED_RATING, 0, None)
            .unwrap();
        book.add(asker(2, None, 2), nimrod(), false, UNRATED_RATING, 10, None)
            .unwrap();
        let groups = book.take_groups(20, &BlockedPairs::default());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].members.len(), 2);
        assert!(book.is_empty());
    }

    #[test]
    fn one_account_never_meets_itself_and_rated_never_meets_casual() {
        let mut book = SeekBook::default();
        book.add(
            asker(1, Some("Al"), 1),
            nimrod(),
            false,
            UNRATED_RATING,
            0,
            None,
        )
        .unwrap();
        book.add(
            asker(2, Some("al"), 2),
            nimrod(),
            false,
            UNRATED_RATING,
            0,
            None,
        )
        .unwrap();
        book.add(
            asker(3, Some("bo"), 3),
            nimrod(),
            true,
            UNRATED_RATING,
            0,
            None,
        )
        .unwrap();
        assert!(book.take_groups(1, &BlockedPairs::default()).is_empty());
        assert_eq!(book.len(), 3);
    }

    #[test]
    fn blocked_accounts_are_not_paired_and_unread_ones_wait_a_round() {
        let mut book = SeekBook::default();
        for (conn, name) in [(1, "al"), (2, "bo")] {
            book.add(
                asker(conn, Some(name), conn as u8),
                nimrod(),
                false,
                UNRATED_RATING,
                conn,
                None,
            )
            .unwrap();
        }
        let mut blocked = BlockedPairs::read_for(book.account_keys());
        blocked.insert("bo", "al");
        assert!(book.take_groups(10, &blocked).is_empty());
        // Cy's seek came after the read: it waits for the next round.
        book.add(
            asker(3, Some("cy"), 3),
            nimrod(),
            false,
            UNRATED_RATING,
            3,
            None,
        )
        .unwrap();
        assert!(book.take_groups(10, &blocked).is_empty());
        let mut blocked = BlockedPairs::read_for(book.account_keys());
        blocked.insert("al", "bo");
        let groups = book.take_groups(10, &blocked);
        assert_eq!(groups.len(), 1);
        let names: Vec<&str> = groups[0].members.iter().map(|w| &*w.asker.name).collect();
        assert_eq!(names, vec!["al", "cy"]);
        assert_eq!(book.len(), 1);
    }

    #[test]
    fn rated_seeks_pair_the_nearest_ratings_first() {
        let mut book = SeekBook::default();
        for (conn, name, rating) in [(1, "al", 1500.0), (2, "bo", 2400.0), (3, "cy", 1530.0)] {
            book.add(
                asker(conn, Some(name), conn as u8),
                nimrod(),
                true,
                rating,
                0,
                None,
            )
            .unwrap();
        }
        let groups = book.take_groups(1, &BlockedPairs::default());
        assert_eq!(groups.len(), 1);
        let mut paired: Vec<f64> = groups[0].members.iter().map(|w| w.rating).collect();
        paired.sort_by(f64::total_cmp);
        assert_eq!(paired, vec![1500.0, 1530.0]);
        assert_eq!(
            book.len(),
            1,
            "the far rating waits for its window to widen"
        );
    }

    #[test]
    fn limits_per_connection_account_and_address_hold() {
        let mut book = SeekBook::default();
        for _ in 0..MAX_SEEKS_PER_CONNECTION {
            book.add(asker(1, None, 1), nimrod(), false, UNRATED_RATING, 0, None)
                .unwrap();
        }
        let over = book.add(asker(1, None, 1), nimrod(), false, UNRATED_RATING, 0, None);
        assert_eq!(over.map_err(|e| e.code), Err(ErrorCode::SeekTooMany));
        let mut book = SeekBook::default();
        for conn in 0..MAX_SEEKS_PER_ADDRESS as u64 {
            book.add(
                asker(conn, None, 7),
                nimrod(),
                false,
                UNRATED_RATING,
                0,
                None,
            )
            .unwrap();
        }
        let over = book.add(
            asker(999, None, 7),
            nimrod(),
            false,
            UNRATED_RATING,
            0,
            None,
        );
        assert_eq!(over.map_err(|e| e.code), Err(ErrorCode::SeekTooMany));
        let mut book = SeekBook::default();
        for conn in 0..MAX_SEEKS_PER_ACCOUNT as u64 {
            book.add(
                asker(conn, Some("z"), conn as u8),
                nimrod(),
                true,
                UNRATED_RATING,
                0,
                None,
            )
            .unwrap();
        }
        let over = book.add(
            asker(99, Some("Z"), 99),
            nimrod(),
            true,
            UNRATED_RATING,
            0,
            None,
        );
        assert_eq!(over.map_err(|e| e.code), Err(ErrorCode::SeekTooMany));
    }

    #[test]
    fn bots_fill_in_only_when_the_wait_runs_out() {
        let mut book = SeekBook::default();
        book.add(
            asker(1, None, 1),
            nimrod(),
            false,
            UNRATED_RATING,
            0,
            Some(5_000),
        )
        .unwrap();
        assert_eq!(book.next_due_ms(), Some(5_000));
        assert!(book.take_groups(4_999, &BlockedPairs::default()).is_empty());
        let groups = book.take_groups(5_000, &BlockedPairs::default());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].bots, 1);
    }

    #[test]
    fn cancelling_takes_only_that_connections_seeks() {
        let mut book = SeekBook::default();
        let a = book
            .add(asker(1, None, 1), nimrod(), false, UNRATED_RATING, 0, None)
            .unwrap();
        book.add(asker(1, None, 1), nimrod(), false, UNRATED_RATING, 0, None)
            .unwrap();
        book.add(asker(2, None, 1), nimrod(), true, UNRATED_RATING, 0, None)
            .unwrap();
        assert_eq!(book.cancel(ConnId(2), Some(a)), Vec::<u64>::new());
        assert_eq!(book.cancel(ConnId(1), Some(a)), vec![a]);
        assert_eq!(book.cancel(ConnId(1), None).len(), 1);
        assert_eq!(book.len(), 1);
    }
}
