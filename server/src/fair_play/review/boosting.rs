//! The booster signal: accounts with many rated results decided early
//! (the loser resigned, left or ran out of time having made few moves)
//! against the same few opponents, as rating farming or sandbagging
//! between two accounts looks.
//!
//! Read from the store at request time, bounded: the pool's lines among
//! the ledger's last [`BOOST_SCAN_LINES`], and for each two-player line
//! its match log (to see how it ended and how many moves the loser made).

use std::collections::BTreeMap;

use parlor_competition::LedgerLine;
use parlor_protocol::{LoggedAction, MatchLog, RoomId};
use serde::Serialize;

use crate::store::{Store, StoreError};

/// How far back the signal looks: the ledger's last lines (all pools),
/// of which the pool's are read with their logs. A few hundred log
/// reads keep a moderator's request to well under a second, and cover
/// the recent days of a busy server.
pub const BOOST_SCAN_LINES: u64 = 400;

/// A result is early when the loser made at most this many moves before
/// forfeiting: nobody gives up a real game after one or two moves.
pub const EARLY_MOVES: usize = 2;

/// Early results an account needs before it is listed: one or two are
/// a bad day or a dropped connection; five are a habit.
pub const BOOST_MIN_RESULTS: usize = 5;

/// Listed when one opponent accounts for at least this share of the
/// account's early results: farming needs a partner.
pub const BOOST_PARTNER_SHARE: f64 = 0.5;

/// One rated result decided early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlyResult {
    /// The match's room.
    pub room: String,
    /// The winner's name.
    pub winner: String,
    /// The loser's name (who forfeited).
    pub loser: String,
}

/// An account the signal lists.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Booster {
    /// The account's name.
    pub name: String,
    /// Its early results (won and lost) in the lines scanned.
    pub early_results: usize,
    /// Of those, won.
    pub wins: usize,
    /// Of those, lost.
    pub losses: usize,
    /// The opponent of most of them.
    pub partner: String,
    /// How many were against that opponent.
    pub with_partner: usize,
    /// The rooms, newest first.
    pub games: Vec<String>,
}

/// The early result `log` (of the two-player rated `line`) is, if it is
/// one: its last step is the loser's forfeit after at most
/// [`EARLY_MOVES`] moves of its own.
pub fn early_result(line: &LedgerLine, log: &MatchLog) -> Option<EarlyResult> {
    let [a, b] = line.players.as_slice() else {
        return None;
    };
    let (winner, loser) = match a.place.cmp(&b.place) {
        std::cmp::Ordering::Less => (a, b),
        std::cmp::Ordering::Greater => (b, a),
        std::cmp::Ordering::Equal => return None,
    };
    let last = log.moves.last()?;
    if last.action != LoggedAction::Forfeit || last.seat.0 != loser.seat {
        return None;
    }
    let moves = log
        .moves
        .iter()
        .filter(|e| e.seat.0 == loser.seat && e.action != LoggedAction::Forfeit)
        .count();
    (moves <= EARLY_MOVES).then(|| EarlyResult {
        room: line.room.clone(),
        winner: winner.name.clone(),
        loser: loser.name.clone(),
    })
}

/// The accounts `results` (newest first) list: at least
/// [`BOOST_MIN_RESULTS`] early results, at least
/// [`BOOST_PARTNER_SHARE`] of them against one opponent. Most results
/// first.
pub fn boosters(results: &[EarlyResult]) -> Vec<Booster> {
    #[derive(Default)]
    struct Seen<'a> {
        wins: usize,
        losses: usize,
        against: BTreeMap<&'a str, usize>,
        rooms: Vec<String>,
    }
    let mut by_name: BTreeMap<&str, Seen<'_>> = BTreeMap::new();
    for r in results {
        for (me, other, won) in [(&r.winner, &r.loser, true), (&r.loser, &r.winner, false)] {
            let seen = by_name.entry(me.as_str()).or_default();
            if won {
                seen.wins += 1;
            } else {
                seen.losses += 1;
            }
            *seen.against.entry(other.as_str()).or_default() += 1;
            seen.rooms.push(r.room.clone());
        }
    }
    let mut out: Vec<Booster> = by_name
        .into_iter()
        .filter_map(|(name, seen)| {
            let total = seen.wins + seen.losses;
            let (partner, with) = seen
                .against
                .iter()
                .max_by(|x, y| x.1.cmp(y.1).then_with(|| y.0.cmp(x.0)))
                .map(|(p, n)| ((*p).to_owned(), *n))?;
            let listed =
                total >= BOOST_MIN_RESULTS && with as f64 >= BOOST_PARTNER_SHARE * total as f64;
            listed.then(|| Booster {
                name: name.to_owned(),
                early_results: total,
                wins: seen.wins,
                losses: seen.losses,
                partner,
                with_partner: with,
                games: seen.rooms,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.early_results
            .cmp(&a.early_results)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// The early results of `pool` among the ledger's last
/// [`BOOST_SCAN_LINES`] lines, newest first. Lines that are not a
/// match's (a correction) or whose log cannot be read are passed over.
pub async fn early_results(store: &Store, pool: &str) -> Result<Vec<EarlyResult>, StoreError> {
    let Some((head, _)) = store.ledger_head().await? else {
        return Ok(Vec::new());
    };
    let after = head.saturating_sub(BOOST_SCAN_LINES);
    let texts = store
        .ledger(
            after,
            Some(pool.to_owned()),
            usize::try_from(BOOST_SCAN_LINES).unwrap_or(usize::MAX),
        )
        .await?;
    let mut out = Vec::new();
    for text in texts.iter().rev() {
        let Ok(line) = serde_json::from_str::<LedgerLine>(text) else {
            continue;
        };
        // A correction line names a voided match, not a result.
        if line.players.len() != 2 || line.void.is_some() {
            continue;
        }
        let Some(room) = RoomId::new(&line.room) else {
            continue;
        };
        match store.log(room).await {
            Ok(Some(log)) => out.extend(early_result(&line, &log)),
            Ok(None) => {}
            Err(e) => {
                tracing::debug!(room = %line.room, error = %e, "a rated match's log was not read")
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(room: &str, winner: &str, loser: &str) -> EarlyResult {
        EarlyResult {
            room: room.into(),
            winner: winner.into(),
            loser: loser.into(),
        }
    }

    #[test]
    fn a_pair_farming_each_other_is_listed_and_scattered_results_are_not() {
        let mut results: Vec<EarlyResult> = (0..5)
            .map(|i| r(&format!("f{i}"), "farmer", "feeder"))
            .collect();
        // Someone whose opponents give up early against many people.
        for i in 0..6 {
            results.push(r(&format!("s{i}"), "strong", &format!("quitter{i}")));
        }
        let listed = boosters(&results);
        let names: Vec<&str> = listed.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["farmer", "feeder"]);
        assert_eq!(listed[0].wins, 5);
        assert_eq!(listed[1].losses, 5);
        assert_eq!(listed[0].partner, "feeder");
        assert_eq!(listed[0].games.len(), 5);
        // Four are not a habit yet.
        assert!(boosters(&results[..4]).is_empty());
    }
}
