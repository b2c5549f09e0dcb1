//! Rating corrections: voiding a marked account's rated results without
//! rewriting the ledger. A void appends one **correction line** per
//! voided match, hash-chained like every line, so that anyone re-folding
//! the ledger arrives at the corrected ratings and sees what was
//! corrected and why.
//!
//! **The rule.** A correction line carries `void: {line, account, mark}`:
//! the number of the match line it voids, the marked account, and the
//! mark (`engine` or `booster`). Its `pool`, `room` and `commitment` are
//! the voided line's, and its `players` list the voided line's players in
//! the same order with the same `name`, `seat`, `team` and `place`. For
//! each player, `before` is their current rating in the fold, exactly
//! (no idle widening: a correction is not a match), and `after` is:
//!
//! - for the marked account: the voided line's `before` for it (the
//!   rating it entered that match with);
//! - for everyone else (a refund): the current rating minus the change
//!   the voided match made to it, `before.rating - (v.after.rating -
//!   v.before.rating)`, with `rd` and `vol` unchanged.
//!
//! A correction changes ratings only: when a player last played (from
//! which idle time widens their deviation) and how many games they have
//! played stay as they were. A void of several matches writes their
//! correction lines newest match first, so the marked account ends at
//! its rating before the first voided match. A line is voided at most
//! once; only match lines are voided; the marked account must have
//! played the voided match.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::glicko2::Rating;
use crate::ledger::{LedgerError, LedgerLine, LedgerPlayer, RatingTable, GENESIS};

/// What a correction line voids.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Void {
    /// The number of the match line voided.
    pub line: u64,
    /// The marked account whose result is voided.
    pub account: String,
    /// Why: the account's mark (`engine` or `booster`).
    pub mark: String,
}

/// Each player's (before, after) of a correction voiding `voided` for
/// `account`, from the ratings in `table`; `None` if a player of the
/// voided line has no rating there (which a fold that applied the voided
/// line cannot lack). The table is left as it was.
fn corrected(
    table: &RatingTable,
    voided: &LedgerLine,
    account: &str,
) -> Option<Vec<(Rating, Rating)>> {
    voided
        .players
        .iter()
        .map(|p| {
            let (before, _) = table.get(&voided.pool, &p.name)?;
            let after = if p.name == account {
                p.before
            } else {
                Rating {
                    rating: before.rating - (p.after.rating - p.before.rating),
                    ..before
                }
            };
            Some((before, after))
        })
        .collect()
}

/// The sealed correction line voiding `voided` (a match line) for the
/// marked `account` (`mark` says why), written at `at_ms` after the line
/// `head` (its `n` and `hash`), with each player's current rating from
/// `table`, which it then updates (as the fold will). `None` if a player
/// of `voided` has no rating in `table`, or `account` did not play it.
pub fn correction_line(
    table: &mut RatingTable,
    head: Option<(u64, &str)>,
    at_ms: u64,
    voided: &LedgerLine,
    account: &str,
    mark: &str,
) -> Option<LedgerLine> {
    if voided.void.is_some() || !voided.players.iter().any(|p| p.name == account) {
        return None;
    }
    let changes = corrected(table, voided, account)?;
    for (p, (_, after)) in voided.players.iter().zip(&changes) {
        table.correct(&voided.pool, &p.name, *after);
    }
    let (n, prev) = head.map_or((1, GENESIS.to_owned()), |(n, h)| (n + 1, h.to_owned()));
    Some(
        LedgerLine {
            n,
            at_ms,
            pool: voided.pool.clone(),
            room: voided.room.clone(),
            commitment: voided.commitment.clone(),
            players: voided
                .players
                .iter()
                .zip(changes)
                .map(|(p, (before, after))| LedgerPlayer {
                    before,
                    after,
                    ..p.clone()
                })
                .collect(),
            void: Some(Void {
                line: voided.n,
                account: account.to_owned(),
                mark: mark.to_owned(),
            }),
            prev,
            hash: String::new(),
        }
        .seal(),
    )
}

/// Applies the correction `line` (number `at`, voiding `v`) of `lines` to
/// `table` in a fold, after checking it may void what it names; each
/// player's (before, after) by the fold, for the caller to compare with
/// the line's. `voided` holds the lines voided so far.
pub(crate) fn fold(
    table: &mut RatingTable,
    lines: &[LedgerLine],
    at: u64,
    line: &LedgerLine,
    v: &Void,
    voided: &mut HashSet<u64>,
) -> Result<Vec<(Rating, Rating)>, LedgerError> {
    let bad = |why: String| LedgerError::Void(at, why);
    if v.line == 0 || v.line >= at {
        return Err(bad(format!(
            "it voids line {}, which is not an earlier line",
            v.line
        )));
    }
    let target = usize::try_from(v.line - 1)
        .ok()
        .and_then(|i| lines.get(i))
        .ok_or_else(|| bad(format!("line {} is not in the ledger", v.line)))?;
    if target.void.is_some() {
        return Err(bad(format!("line {} is a correction, not a match", v.line)));
    }
    if !voided.insert(v.line) {
        return Err(bad(format!("line {} was voided already", v.line)));
    }
    if target.pool != line.pool || target.room != line.room || target.commitment != line.commitment
    {
        return Err(bad(format!(
            "its pool, room or commitment is not line {}'s",
            v.line
        )));
    }
    let same_players = target.players.len() == line.players.len()
        && target.players.iter().zip(&line.players).all(|(a, b)| {
            a.name == b.name && a.seat == b.seat && a.team == b.team && a.place == b.place
        });
    if !same_players {
        return Err(bad(format!("its players are not line {}'s", v.line)));
    }
    if !target.players.iter().any(|p| p.name == v.account) {
        return Err(bad(format!(
            "{} did not play line {}'s match",
            v.account, v.line
        )));
    }
    let changes = corrected(table, target, &v.account)
        .ok_or_else(|| bad(format!("a player of line {} has no rating", v.line)))?;
    for (p, (_, after)) in target.players.iter().zip(&changes) {
        table.correct(&target.pool, &p.name, *after);
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glicko2::Glicko2;
    use crate::ledger::{next_line, verify, MatchEntrant};
    use proptest::prelude::*;

    /// A ledger of `results` (winner, loser) among `names`, an hour apart,
    /// and the fold's table.
    fn ledger(results: &[(usize, usize)], names: &[&str]) -> (Vec<LedgerLine>, RatingTable) {
        let system = Glicko2::PARLOR;
        let mut table = RatingTable::default();
        let mut lines: Vec<LedgerLine> = Vec::new();
        for (i, &(w, l)) in results.iter().enumerate() {
            let at = i as u64 * 3_600_000;
            let entrants: Vec<MatchEntrant> = [(w, 0u8, 1u8), (l, 1, 2)]
                .iter()
                .map(|&(who, seat, place)| MatchEntrant {
                    name: names[who].to_owned(),
                    seat,
                    team: None,
                    place,
                    current: table.get("nimrod", names[who]),
                })
                .collect();
            let head = lines.last().map(|h| (h.n, h.hash.as_str()));
            let line = next_line(
                &system,
                head,
                at,
                "nimrod",
                &format!("r{i}"),
                "c",
                &entrants,
            );
            let players: Vec<_> = line.players.iter().map(crate::Placing::from).collect();
            table.apply(&system, "nimrod", at, &players);
            lines.push(line);
        }
        (lines, table)
    }

    /// Voids every line `account` played from `from` on, newest first.
    fn void_from(lines: &mut Vec<LedgerLine>, table: &mut RatingTable, account: &str, from: u64) {
        let targets: Vec<LedgerLine> = lines
            .iter()
            .filter(|l| l.n >= from && l.void.is_none())
            .filter(|l| l.players.iter().any(|p| p.name == account))
            .rev()
            .cloned()
            .collect();
        let at = lines.last().map_or(0, |l| l.at_ms) + 1;
        for t in targets {
            let head = lines.last().map(|h| (h.n, h.hash.clone()));
            let line = correction_line(
                table,
                head.as_ref().map(|(n, h)| (*n, h.as_str())),
                at,
                &t,
                account,
                "engine",
            );
            let Some(line) = line else {
                panic!("line {} could not be voided", t.n)
            };
            lines.push(line);
        }
    }

    #[test]
    fn a_void_refunds_opponents_and_resets_the_cheat() {
        let names = ["cheat", "ann", "bob"];
        // The cheat beats ann twice and bob once, from line 2 on.
        let (mut lines, mut table) = ledger(&[(1, 2), (0, 1), (0, 2), (0, 1)], &names);
        let cheat_before = lines[1].players[0].before;
        let ann_now = table.get("nimrod", "ann").map(|r| r.0);
        let (lost1, lost3) = (
            lines[1].players[1].after.rating - lines[1].players[1].before.rating,
            lines[3].players[1].after.rating - lines[3].players[1].before.rating,
        );
        void_from(&mut lines, &mut table, "cheat", 2);
        assert_eq!(lines.len(), 7, "one correction per voided match");
        assert_eq!(
            table.get("nimrod", "cheat").map(|r| r.0),
            Some(cheat_before)
        );
        let ann_after = table.get("nimrod", "ann").map(|r| r.0.rating);
        assert_eq!(
            ann_after,
            ann_now.map(|r| r.rating - lost1 - lost3),
            "ann got back exactly what she lost"
        );
        let folded = verify(&Glicko2::PARLOR, &lines, 0.0);
        assert_eq!(folded.as_ref().ok(), Some(&table), "{folded:?}");
        // Corrections reference the voided lines, newest first.
        let voids: Vec<u64> = lines[4..]
            .iter()
            .filter_map(|l| l.void.as_ref().map(|v| v.line))
            .collect();
        assert_eq!(voids, vec![4, 3, 2]);
    }

    #[test]
    fn a_line_voided_twice_or_a_correction_voided_fails_the_fold() {
        let names = ["cheat", "ann"];
        let (mut lines, mut table) = ledger(&[(0, 1)], &names);
        void_from(&mut lines, &mut table, "cheat", 1);
        // Void line 1 again, by hand, as a lying server might.
        let mut twice = lines.clone();
        let head = twice.last().map(|h| (h.n, h.hash.clone()));
        let again = correction_line(
            &mut table.clone(),
            head.as_ref().map(|(n, h)| (*n, h.as_str())),
            10,
            &lines[0],
            "cheat",
            "engine",
        );
        twice.extend(again);
        let err = verify(&Glicko2::PARLOR, &twice, 0.0);
        assert!(matches!(err, Err(LedgerError::Void(3, _))), "{err:?}");
        // A correction cannot be voided.
        assert!(correction_line(&mut table, None, 0, &lines[1], "cheat", "engine").is_none());
    }

    #[test]
    fn a_correction_with_a_changed_refund_or_players_fails() {
        let names = ["cheat", "ann"];
        let (mut lines, mut table) = ledger(&[(0, 1), (1, 0)], &names);
        void_from(&mut lines, &mut table, "cheat", 1);
        let mut lying = lines.clone();
        let last = lying.len() - 1;
        lying[last].players[1].after.rating += 1.0;
        lying[last] = lying[last].clone().seal();
        let err = verify(&Glicko2::PARLOR, &lying, 0.0);
        assert!(
            matches!(err, Err(LedgerError::After(_, _, _, _))),
            "{err:?}"
        );
        let mut swapped = lines.clone();
        swapped[last].players[1].place = 1;
        swapped[last] = swapped[last].clone().seal();
        let err = verify(&Glicko2::PARLOR, &swapped, 0.0);
        assert!(matches!(err, Err(LedgerError::Void(_, _))), "{err:?}");
    }

    proptest! {
        /// Voiding any account's results from any line re-folds exactly,
        /// and leaves every other player's rating moved only by refunds.
        #[test]
        fn any_void_refolds_exactly(
            results in proptest::collection::vec((0usize..4, 0usize..4), 1..40),
            who in 0usize..4,
            from in 1u64..40,
        ) {
            let names = ["a", "b", "c", "d"];
            let results: Vec<(usize, usize)> =
                results.into_iter().filter(|(w, l)| w != l).collect();
            prop_assume!(!results.is_empty());
            let (mut lines, mut table) = ledger(&results, &names);
            void_from(&mut lines, &mut table, names[who], from);
            let folded = verify(&Glicko2::PARLOR, &lines, 0.0);
            prop_assert_eq!(folded.ok(), Some(table));
        }
    }
}
