//! The public ratings ledger: one line per rated match, in the order the
//! ratings were applied, chained by SHA-256 so that a rewritten history
//! shows, and folded from the initial ratings by anyone.
//!
//! **Canonical form.** A line's `hash` is the SHA-256 (lower-case hex) of
//! the line's compact JSON without its `hash` field: keys in the order of
//! [`LedgerLine`]'s fields, no spaces, numbers as serde_json writes them:
//! the shortest text that reads back to the same `f64` (the protocol
//! reference's docs/protocol/ratings.md spells out the rules, where Python's `json.dumps` differs).
//! Readers must parse floats exactly (serde_json's `float_roundtrip`).
//! `prev` is the previous line's `hash`, 64 zeros for the first line.
//!
//! **Fold.** Ratings are kept per pool and player. For a line, each
//! player's rating entering the match is their last rating in the pool
//! (the initial one for a first match), widened by [`Glicko2::idle`] for
//! each whole day (86,400,000 ms of `at_ms`) since their last rated match
//! there; that is the line's `before`. Each player's period then holds one
//! game against every other player who is not their partner (a `team`
//! shared with them), scored 1 / 0.5 / 0 as their `place` is better (lower)
//! / equal / worse, against that opponent's `before`; its result is the
//! line's `after`.
//!
//! **Corrections.** A line carrying `void` is a correction, not a match:
//! it voids an earlier match line's result (see [`crate::correction`] for
//! its rule). A match line has no `void` key at all, so lines written
//! before corrections existed keep their hashes.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::correction::{self, Void};
use crate::glicko2::{GameResult, Glicko2, Rating};

/// A day, in the ledger's milliseconds: idle time counts in whole days.
pub const DAY_MS: u64 = 86_400_000;

/// `prev` of the first line.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One rated match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LedgerLine {
    /// The line's number, from 1 with no gaps.
    pub n: u64,
    /// When the match ended (milliseconds since the Unix epoch).
    pub at_ms: u64,
    /// The rating pool: the game's name.
    pub pool: String,
    /// The match's room, whose log `parlor verify` checks.
    pub room: String,
    /// The match's deal commitment, as its log has it.
    pub commitment: String,
    /// Every rated player of the match, by seat.
    pub players: Vec<LedgerPlayer>,
    /// On a correction line only: the match line it voids, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub void: Option<Void>,
    /// The previous line's hash.
    pub prev: String,
    /// This line's hash (see the module's canonical form).
    pub hash: String,
}

/// A player's part in a rated match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LedgerPlayer {
    /// The account's name.
    pub name: String,
    /// The seat played.
    pub seat: u8,
    /// The partnership, for games played in teams; partners are not each
    /// other's opponents.
    pub team: Option<u8>,
    /// 1 for the winners; higher is worse; equal places drew.
    pub place: u8,
    /// The rating entering the match.
    pub before: Rating,
    /// The rating after it.
    pub after: Rating,
}

/// The fields of a line that its hash covers, in canonical order.
#[derive(Serialize)]
struct Unhashed<'a> {
    n: u64,
    at_ms: u64,
    pool: &'a str,
    room: &'a str,
    commitment: &'a str,
    players: &'a [LedgerPlayer],
    #[serde(skip_serializing_if = "Option::is_none")]
    void: Option<&'a Void>,
    prev: &'a str,
}

impl LedgerLine {
    /// The line's canonical bytes: what its hash is taken over.
    pub fn canonical(&self) -> Vec<u8> {
        let unhashed = Unhashed {
            n: self.n,
            at_ms: self.at_ms,
            pool: &self.pool,
            room: &self.room,
            commitment: &self.commitment,
            players: &self.players,
            void: self.void.as_ref(),
            prev: &self.prev,
        };
        // Serialising plain structs of numbers and strings cannot fail; an
        // empty form would only make the hash disagree, never pass.
        serde_json::to_vec(&unhashed).unwrap_or_default()
    }

    /// The hash the line should carry.
    pub fn compute_hash(&self) -> String {
        hex::encode(Sha256::digest(self.canonical()))
    }

    /// Sets `hash` from the rest of the line.
    pub fn seal(mut self) -> Self {
        self.hash = self.compute_hash();
        self
    }
}

/// Why a ledger does not check out, and at which line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LedgerError {
    /// `n` is not the next number.
    #[error("line {at}: n is {n}, expected {at}")]
    Numbering {
        /// The expected number.
        at: u64,
        /// The number found.
        n: u64,
    },
    /// `prev` is not the previous line's hash.
    #[error("line {0}: prev is not the previous line's hash")]
    Chain(u64),
    /// `hash` is not the hash of the line.
    #[error("line {0}: hash does not match the line")]
    Hash(u64),
    /// `at_ms` went back in time.
    #[error("line {0}: at_ms is earlier than the previous line's")]
    Time(u64),
    /// A player appears twice in one match.
    #[error("line {0}: {1} appears twice")]
    Duplicate(u64, String),
    /// A `before` differs from the fold's rating entering the match.
    #[error("line {0}: {1}'s before is {2:?}, the fold gives {3:?}")]
    Before(u64, String, Rating, Rating),
    /// An `after` differs from the fold's result.
    #[error("line {0}: {1}'s after is {2:?}, the fold gives {3:?}")]
    After(u64, String, Rating, Rating),
    /// A correction line does not void what it may (see
    /// [`crate::correction`]); why.
    #[error("line {0}: {1}")]
    Void(u64, String),
}

/// Where one player finished a rated match: all the fold needs of them
/// to rate it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placing<'a> {
    /// The account's name.
    pub name: &'a str,
    /// The partnership, for games played in teams; partners are not each
    /// other's opponents.
    pub team: Option<u8>,
    /// 1 for the winners; higher is worse; equal places drew.
    pub place: u8,
}

impl<'a> From<&'a LedgerPlayer> for Placing<'a> {
    fn from(p: &'a LedgerPlayer) -> Self {
        Placing {
            name: &p.name,
            team: p.team,
            place: p.place,
        }
    }
}

/// The ratings a fold arrives at: per pool and player, the rating and when
/// it was last applied.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RatingTable {
    ratings: HashMap<(String, String), (Rating, u64)>,
}

impl RatingTable {
    /// A player's current rating in a pool and when it last changed.
    pub fn get(&self, pool: &str, name: &str) -> Option<(Rating, u64)> {
        self.ratings
            .get(&(pool.to_owned(), name.to_owned()))
            .copied()
    }

    /// Holds `rating`, last changed by a match at `last_ms`, as `name`'s
    /// in `pool`: a table seeded with a server's stored ratings, to
    /// compute corrections from.
    pub fn set(&mut self, pool: &str, name: &str, rating: Rating, last_ms: u64) {
        self.ratings
            .insert((pool.to_owned(), name.to_owned()), (rating, last_ms));
    }

    /// Sets `name`'s rating in `pool` by a correction: when it last
    /// changed by a match stays as it was (idle time counts from matches).
    pub(crate) fn correct(&mut self, pool: &str, name: &str, rating: Rating) {
        if let Some(held) = self.ratings.get_mut(&(pool.to_owned(), name.to_owned())) {
            held.0 = rating;
        }
    }

    /// The rating `name` enters a match in `pool` at `at_ms` with.
    pub fn entering(&self, system: &Glicko2, pool: &str, name: &str, at_ms: u64) -> Rating {
        entering(system, self.get(pool, name), at_ms)
    }

    /// Applies one rated match: returns each player's (before, after) in
    /// the order given and records the afters.
    pub fn apply(
        &mut self,
        system: &Glicko2,
        pool: &str,
        at_ms: u64,
        players: &[Placing<'_>],
    ) -> Vec<(Rating, Rating)> {
        let before: Vec<Rating> = players
            .iter()
            .map(|p| self.entering(system, pool, p.name, at_ms))
            .collect();
        let teams: Vec<(Option<u8>, u8)> = players.iter().map(|p| (p.team, p.place)).collect();
        let out: Vec<(Rating, Rating)> = before
            .iter()
            .copied()
            .zip(rate_match(system, &before, &teams))
            .collect();
        for (p, (_, after)) in players.iter().zip(&out) {
            self.ratings
                .insert((pool.to_owned(), p.name.to_owned()), (*after, at_ms));
        }
        out
    }
}

/// The rating a player enters a match at `at_ms` with, from their current
/// rating and when it last changed (`None`: never rated in the pool):
/// widened for each whole day idle, or the initial rating.
fn entering(system: &Glicko2, current: Option<(Rating, u64)>, at_ms: u64) -> Rating {
    match current {
        Some((r, last)) => system.idle(r, at_ms.saturating_sub(last) / DAY_MS),
        None => system.initial,
    }
}

/// Rates one match: each player's rating after it, from everyone's rating
/// entering it (`before`) and each player's (team, place), in the same
/// order. Each player's period holds one game against every player who is
/// not their partner, scored by place.
pub fn rate_match(
    system: &Glicko2,
    before: &[Rating],
    players: &[(Option<u8>, u8)],
) -> Vec<Rating> {
    players
        .iter()
        .enumerate()
        .map(|(i, (team, place))| {
            let results: Vec<GameResult> = players
                .iter()
                .enumerate()
                .filter(|(j, (t, _))| *j != i && (team.is_none() || t != team))
                .map(|(j, (_, p))| GameResult {
                    opponent: before[j],
                    score: match place.cmp(p) {
                        std::cmp::Ordering::Less => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Greater => 0.0,
                    },
                })
                .collect();
            system.rate(before[i], &results)
        })
        .collect()
}

/// A rated player of a match that just ended, as the server's ratings
/// table has them: where they finished and the rating they bring to it.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchEntrant {
    /// The account's name.
    pub name: String,
    /// The seat played.
    pub seat: u8,
    /// The partnership, if the game has them.
    pub team: Option<u8>,
    /// The place at the end (1 is best).
    pub place: u8,
    /// Their rating in the pool and when it last changed (`at_ms`), if
    /// they have played in it.
    pub current: Option<(Rating, u64)>,
}

/// The sealed ledger line of a rated match that ended at `at_ms`, after
/// the line `head` (its `n` and `hash`; `None` for the first): each
/// entrant's `before` is their current rating widened for the whole days
/// idle since it last changed (the initial rating if they have none), and
/// `after` the match's result. The same computation as [`verify`]'s fold.
pub fn next_line(
    system: &Glicko2,
    head: Option<(u64, &str)>,
    at_ms: u64,
    pool: &str,
    room: &str,
    commitment: &str,
    entrants: &[MatchEntrant],
) -> LedgerLine {
    let before: Vec<Rating> = entrants
        .iter()
        .map(|e| entering(system, e.current, at_ms))
        .collect();
    let teams: Vec<(Option<u8>, u8)> = entrants.iter().map(|e| (e.team, e.place)).collect();
    let after = rate_match(system, &before, &teams);
    let (n, prev) = head.map_or((1, GENESIS.to_owned()), |(n, h)| (n + 1, h.to_owned()));
    LedgerLine {
        n,
        at_ms,
        pool: pool.to_owned(),
        room: room.to_owned(),
        commitment: commitment.to_owned(),
        players: entrants
            .iter()
            .zip(before.iter().zip(after))
            .map(|(e, (b, a))| LedgerPlayer {
                name: e.name.clone(),
                seat: e.seat,
                team: e.team,
                place: e.place,
                before: *b,
                after: a,
            })
            .collect(),
        void: None,
        prev,
        hash: String::new(),
    }
    .seal()
}

/// Checks a whole ledger from its first line: numbering, the hash chain,
/// each line's hash, every correction against the line it voids, and
/// every `before` and `after` against its own fold
/// (equal to within `tolerance`; 0 asks for bit-identical values, which
/// this crate's own fold gives). Returns the fold's ratings.
pub fn verify(
    system: &Glicko2,
    lines: &[LedgerLine],
    tolerance: f64,
) -> Result<RatingTable, LedgerError> {
    let mut table = RatingTable::default();
    let mut prev = GENESIS.to_owned();
    let mut last_at = 0;
    // The match lines voided so far: each at most once.
    let mut voided = std::collections::HashSet::new();
    for (i, line) in lines.iter().enumerate() {
        let at = i as u64 + 1;
        if line.n != at {
            return Err(LedgerError::Numbering { at, n: line.n });
        }
        if line.prev != prev {
            return Err(LedgerError::Chain(at));
        }
        if line.hash != line.compute_hash() {
            return Err(LedgerError::Hash(at));
        }
        if line.at_ms < last_at {
            return Err(LedgerError::Time(at));
        }
        for (k, p) in line.players.iter().enumerate() {
            if line.players[..k].iter().any(|q| q.name == p.name) {
                return Err(LedgerError::Duplicate(at, p.name.clone()));
            }
        }
        let folded = match &line.void {
            Some(v) => correction::fold(&mut table, lines, at, line, v, &mut voided)?,
            None => {
                let players: Vec<Placing<'_>> = line.players.iter().map(Placing::from).collect();
                table.apply(system, &line.pool, line.at_ms, &players)
            }
        };
        for (p, (before, after)) in line.players.iter().zip(folded) {
            if !close(&p.before, &before, tolerance) {
                return Err(LedgerError::Before(at, p.name.clone(), p.before, before));
            }
            if !close(&p.after, &after, tolerance) {
                return Err(LedgerError::After(at, p.name.clone(), p.after, after));
            }
        }
        prev.clone_from(&line.hash);
        last_at = line.at_ms;
    }
    Ok(table)
}

fn close(a: &Rating, b: &Rating, tolerance: f64) -> bool {
    (a.rating - b.rating).abs() <= tolerance
        && (a.rd - b.rd).abs() <= tolerance
        && (a.vol - b.vol).abs() <= tolerance
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line read back from its JSON text keeps every rating bit for bit,
    /// so its hash still matches: the reader must parse floats exactly
    /// (serde_json's `float_roundtrip`; Python's `json` does by default).
    #[test]
    fn lines_survive_their_text_bit_for_bit() {
        let system = Glicko2::PARLOR;
        let mut table = RatingTable::default();
        let names = ["a", "b", "c"];
        let mut head: Option<(u64, String)> = None;
        for i in 0..400u64 {
            let (x, y) = (names[(i % 3) as usize], names[((i + 1) % 3) as usize]);
            let entrants: Vec<MatchEntrant> = [(x, 0u8), (y, 1u8)]
                .iter()
                .map(|&(name, seat)| MatchEntrant {
                    name: name.to_owned(),
                    seat,
                    team: None,
                    place: if (i * 7 + u64::from(seat)) % 3 == 0 {
                        1
                    } else {
                        2
                    },
                    current: table.get("nimrod", name),
                })
                .collect();
            let at = i * 3_600_000;
            let line = next_line(
                &system,
                head.as_ref().map(|(n, h)| (*n, h.as_str())),
                at,
                "nimrod",
                "room",
                "c",
                &entrants,
            );
            let players: Vec<Placing<'_>> = line.players.iter().map(Placing::from).collect();
            table.apply(&system, "nimrod", at, &players);
            let text = serde_json::to_string(&line).unwrap_or_default();
            let back: LedgerLine = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
            for (p, q) in line.players.iter().zip(&back.players) {
                assert_eq!(p.after.rating.to_bits(), q.after.rating.to_bits(), "{text}");
                assert_eq!(p.after.rd.to_bits(), q.after.rd.to_bits(), "{text}");
                assert_eq!(p.after.vol.to_bits(), q.after.vol.to_bits(), "{text}");
            }
            assert_eq!(back.compute_hash(), line.hash, "{text}");
            head = Some((line.n, line.hash.clone()));
        }
    }
}
