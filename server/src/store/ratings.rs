//! Ratings in the store: what the end of a rated match carries to the
//! writer, and the one computation both backends run inside the
//! transaction that records that end (read the ledger's head and the
//! players' ratings, seal the next line, write it and the new ratings).
//! Either all of it is committed with the match's last step, or none.
//!
//! The reads (ratings of an account, ledger pages, the head, the
//! leaderboard) stay with each backend rather than going through
//! `Beside`'s one spelling: they run on the log's readers (SQLite's pool
//! of read connections, PostgreSQL's snapshot transaction) so that they
//! see the same committed state as the log and never queue behind the
//! single side connection; and the head is read differently by design
//! (PostgreSQL keeps it in the one `ledger_head` row its writers lock,
//! SQLite reads the ledger's last line).

use std::collections::HashMap;

use parlor_competition::ledger::{next_line, MatchEntrant};
use parlor_competition::{Glicko2, LedgerLine, Rating};
use parlor_games::Seat;

use super::{postgres, sqlite, Backend, Store, StoreError};

/// A rated player at the end of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedSeat {
    /// The account's name as shown (the ledger's `name`).
    pub name: String,
    /// The name's key (the ratings table's key).
    pub account_key: String,
    /// The seat played.
    pub seat: Seat,
    /// The partnership, if the game has them.
    pub team: Option<u8>,
    /// The place at the end (1 is best).
    pub place: u8,
}

/// What a rated match's final step carries to the store.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedEnd {
    /// The pool: the game's name.
    pub pool: String,
    /// The room.
    pub room: String,
    /// The deal's commitment ("" for a match without one).
    pub commitment: String,
    /// Every seat, in seat order.
    pub seats: Vec<RatedSeat>,
    /// When the match ended by the room's clock (ms since the Unix epoch).
    pub ended_ms: u64,
}

/// A player's stored rating in one pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredRating {
    /// The rating after the player's last rated match in the pool.
    pub rating: Rating,
    /// Rated matches played in the pool.
    pub games: u64,
    /// When the last one ended (the ledger's `at_ms`).
    pub last_ms: u64,
}

/// A leaderboard's row as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardRow {
    /// The account's name.
    pub name: String,
    /// `human` or `bot`.
    pub kind: String,
    /// Its rating in the pool.
    pub rating: StoredRating,
}

/// The ledger's latest line as the writer needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    /// Its number.
    pub n: u64,
    /// Its hash.
    pub hash: String,
    /// When its match ended.
    pub at_ms: u64,
}

/// The sealed line for `end`, after `head`, from each player's stored
/// rating (by account key): stamped when the match ended, or at the
/// head's time if that is later (the ledger's times never go back, even
/// when a cluster's clocks disagree by a little).
pub fn line_for(
    end: &RatedEnd,
    head: Option<&Head>,
    current: &HashMap<String, StoredRating>,
) -> LedgerLine {
    let at_ms = head.map_or(end.ended_ms, |h| end.ended_ms.max(h.at_ms));
    let entrants: Vec<MatchEntrant> = end
        .seats
        .iter()
        .map(|s| MatchEntrant {
            name: s.name.clone(),
            seat: s.seat.0,
            team: s.team,
            place: s.place,
            current: current.get(&s.account_key).map(|r| (r.rating, r.last_ms)),
        })
        .collect();
    next_line(
        &Glicko2::PARLOR,
        head.map(|h| (h.n, h.hash.as_str())),
        at_ms,
        &end.pool,
        &end.room,
        &end.commitment,
        &entrants,
    )
}

/// The line's JSON as the ledger serves it. A line of numbers and strings
/// always serialises; an empty text would fail verification, never pass.
pub fn line_text(line: &LedgerLine) -> String {
    serde_json::to_string(line).unwrap_or_default()
}

/// The most lines one ledger read returns.
pub const LEDGER_PAGE: usize = 1000;

impl Store {
    /// Every pool's rating of the account whose name's key is
    /// `account_key`, by pool name.
    pub async fn ratings_of(
        &self,
        account_key: &str,
    ) -> Result<Vec<(String, StoredRating)>, StoreError> {
        let key = account_key.to_owned();
        match &self.0 {
            Backend::Sqlite(s) => {
                s.snapshot(move |c| sqlite::ratings::ratings_of(c, &key))
                    .await
            }
            Backend::Postgres(s) => {
                s.0.snapshot(async |tx| postgres::ratings::ratings_of(tx, &key).await)
                    .await
            }
        }
    }

    /// The account's rating in `pool`, if it has played there.
    pub async fn rating(
        &self,
        pool: &str,
        account_key: &str,
    ) -> Result<Option<StoredRating>, StoreError> {
        Ok(self
            .ratings_of(account_key)
            .await?
            .into_iter()
            .find(|(p, _)| p == pool)
            .map(|(_, r)| r))
    }

    /// The ledger's lines (their JSON, as hashed) after line `after`, of
    /// `pool` if given, in order, at most `limit`.
    pub async fn ledger(
        &self,
        after: u64,
        pool: Option<String>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => {
                s.snapshot(move |c| sqlite::ratings::ledger(c, after, pool.as_deref(), limit))
                    .await
            }
            Backend::Postgres(s) => {
                s.0.snapshot(async |tx| {
                    postgres::ratings::ledger(tx, after, pool.as_deref(), limit).await
                })
                .await
            }
        }
    }

    /// The ledger's latest line's number and hash, if it has one.
    pub async fn ledger_head(&self) -> Result<Option<(u64, String)>, StoreError> {
        match &self.0 {
            Backend::Sqlite(s) => s.snapshot(sqlite::ratings::head).await,
            Backend::Postgres(s) => {
                s.0.snapshot(async |tx| postgres::ratings::head(tx).await)
                    .await
            }
        }
    }

    /// The ledger line of the match in `room`, if it was rated.
    pub async fn ledger_line_of(&self, room: &str) -> Result<Option<LedgerLine>, StoreError> {
        let room = room.to_owned();
        let text = match &self.0 {
            Backend::Sqlite(s) => {
                s.snapshot(move |c| sqlite::ratings::line_of(c, &room))
                    .await
            }
            Backend::Postgres(s) => {
                s.0.snapshot(async |tx| postgres::ratings::line_of(tx, &room).await)
                    .await
            }
        }?;
        text.as_deref().map(parse_line).transpose()
    }

    /// The ledger lines the account played in, newest first, at most `limit`.
    pub async fn rated_lines_of(
        &self,
        account_key: &str,
        limit: usize,
    ) -> Result<Vec<LedgerLine>, StoreError> {
        let key = account_key.to_owned();
        let texts = match &self.0 {
            Backend::Sqlite(s) => {
                s.snapshot(move |c| sqlite::ratings::lines_of(c, &key, limit))
                    .await
            }
            Backend::Postgres(s) => {
                s.0.snapshot(async |tx| postgres::ratings::lines_of(tx, &key, limit).await)
                    .await
            }
        }?;
        texts.iter().map(|t| parse_line(t)).collect()
    }

    /// `pool`'s ratings with a stored deviation at most `max_rd`, best
    /// first, of accounts of `kind` if given, at most `limit`.
    pub async fn leaderboard(
        &self,
        pool: &str,
        kind: Option<&str>,
        max_rd: f64,
        limit: usize,
    ) -> Result<Vec<BoardRow>, StoreError> {
        let pool = pool.to_owned();
        let kind = kind.map(str::to_owned);
        match &self.0 {
            Backend::Sqlite(s) => {
                s.snapshot(move |c| {
                    sqlite::ratings::board(c, &pool, kind.as_deref(), max_rd, limit)
                })
                .await
            }
            Backend::Postgres(s) => {
                s.0.snapshot(async |tx| {
                    postgres::ratings::board(tx, &pool, kind.as_deref(), max_rd, limit).await
                })
                .await
            }
        }
    }
}

fn parse_line(text: &str) -> Result<LedgerLine, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("a ledger line: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end() -> RatedEnd {
        RatedEnd {
            pool: "nimrod".into(),
            room: "aaaaaaaaaaaa".into(),
            commitment: "c".into(),
            seats: vec![
                RatedSeat {
                    name: "Alice".into(),
                    account_key: "alice".into(),
                    seat: Seat(0),
                    team: None,
                    place: 1,
                },
                RatedSeat {
                    name: "bob".into(),
                    account_key: "bob".into(),
                    seat: Seat(1),
                    team: None,
                    place: 2,
                },
            ],
            ended_ms: 1000,
        }
    }

    #[test]
    fn the_first_line_starts_the_chain_from_the_initial_ratings() {
        let line = line_for(&end(), None, &HashMap::new());
        assert_eq!(line.n, 1);
        assert_eq!(line.prev, parlor_competition::ledger::GENESIS);
        assert_eq!(line.players[0].before, Glicko2::PARLOR.initial);
        assert!(line.players[0].after.rating > 1500.0);
        assert!(line.players[1].after.rating < 1500.0);
        assert_eq!(line.hash, line.compute_hash());
    }

    #[test]
    fn times_never_go_back_and_stored_ratings_are_used() {
        let head = Head {
            n: 7,
            hash: "ab".repeat(32),
            at_ms: 5000,
        };
        let mut current = HashMap::new();
        let alice = Rating {
            rating: 1700.0,
            rd: 80.0,
            vol: 0.06,
        };
        current.insert(
            "alice".to_owned(),
            StoredRating {
                rating: alice,
                games: 3,
                last_ms: 4000,
            },
        );
        let line = line_for(&end(), Some(&head), &current);
        assert_eq!((line.n, line.at_ms), (8, 5000));
        assert_eq!(line.prev, head.hash);
        assert_eq!(line.players[0].before, alice, "less than a day idle");
        let text = line_text(&line);
        let back: LedgerLine = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, line);
    }
}
