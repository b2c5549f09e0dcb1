//! Voiding a marked account's rated results: the correction lines (see
//! `parlor_competition::correction` for their rule) appended to the
//! ledger and the corrected ratings, written in one transaction that
//! holds the ledger's head as a rated end does, so the chain stays one.
//!
//! Each voided match's correction line is stored under the room key
//! `void:ROOM`: the ledger's `room` column is unique, so a match is voided
//! at most once, by construction, whatever node or moderator asks. The
//! line itself names the voided room as it is (`room`) and the voided
//! line (`void.line`). Corrections are not filed under the players'
//! lines (`ledger_seats`): a player's history lists the matches they
//! played; the public ledger lists the corrections.

use std::collections::HashMap;

use parlor_competition::correction::correction_line;
use parlor_competition::{LedgerLine, RatingTable};

use super::ratings::{Head, StoredRating};
use super::StoreError;

/// The most matches one void job corrects: a job is one transaction of
/// the log's writer (SQLite) and holds the ledger's head (PostgreSQL), so
/// it must stay short. A longer history is voided by jobs one after
/// another, newest matches first, which leaves the same ratings.
pub const VOID_BATCH: usize = 500;

/// The room key a correction line is stored under.
pub fn void_key(room: &str) -> String {
    format!("void:{room}")
}

/// What to void.
#[derive(Clone, Debug, PartialEq)]
pub struct VoidJob {
    /// The marked account's name key.
    pub account_key: String,
    /// Its rated results from this time on (ms since the epoch) are voided.
    pub from_ms: u64,
    /// When the correction is made (ms since the epoch).
    pub at_ms: u64,
    /// The mark: `engine` or `booster`.
    pub mark: String,
}

/// The correction lines voiding `targets` (the account's match lines not
/// voided yet, newest first) after `head`, from the players' stored
/// ratings `current` (by pool and account key). Each line's `at_ms` is
/// the job's, or the head's if later (the ledger's times never go back).
pub fn corrections(
    job: &VoidJob,
    head: Option<&Head>,
    targets: &[LedgerLine],
    current: &HashMap<(String, String), StoredRating>,
) -> Result<Vec<LedgerLine>, StoreError> {
    let mut table = RatingTable::default();
    for line in targets {
        for p in &line.players {
            let key = (line.pool.clone(), parlor_protocol::account_key(&p.name));
            let held = current.get(&key).ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "{} has no rating in {} though line {} rated them",
                    p.name, line.pool, line.n
                ))
            })?;
            table.set(&line.pool, &p.name, held.rating, held.last_ms);
        }
    }
    let at_ms = head.map_or(job.at_ms, |h| job.at_ms.max(h.at_ms));
    let mut head = head.map(|h| (h.n, h.hash.clone()));
    let mut out = Vec::with_capacity(targets.len());
    for line in targets {
        let account = line
            .players
            .iter()
            .find(|p| parlor_protocol::account_key(&p.name) == job.account_key)
            .map(|p| p.name.clone())
            .ok_or_else(|| StoreError::Corrupt(format!("line {} is not the account's", line.n)))?;
        let previous = head.as_ref().map(|(n, h)| (*n, h.as_str()));
        let correction = correction_line(&mut table, previous, at_ms, line, &account, &job.mark)
            .ok_or_else(|| StoreError::Corrupt(format!("line {} cannot be voided", line.n)))?;
        head = Some((correction.n, correction.hash.clone()));
        out.push(correction);
    }
    Ok(out)
}

/// The players' keys by pool whose ratings `targets` need.
pub fn needed(targets: &[LedgerLine]) -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = targets
        .iter()
        .flat_map(|l| {
            l.players
                .iter()
                .map(|p| (l.pool.clone(), parlor_protocol::account_key(&p.name)))
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

impl super::Store {
    /// Voids the rated results of the account keyed `account_key` from
    /// `from_ms` on (those not voided yet), marked `mark`, at `at_ms`:
    /// appends a correction line per voided match, newest first, and
    /// corrects the ratings, in jobs of at most [`VOID_BATCH`] matches.
    /// Every correction line written.
    pub async fn void_rated(
        &self,
        account_key: &str,
        from_ms: u64,
        at_ms: u64,
        mark: &str,
    ) -> Result<Vec<LedgerLine>, StoreError> {
        let job = VoidJob {
            account_key: account_key.to_owned(),
            from_ms,
            at_ms,
            mark: mark.to_owned(),
        };
        let mut all = Vec::new();
        loop {
            let void = Box::new(job.clone());
            let lines = self
                .write(|reply| super::job::WriteJob::Void(void, reply))
                .await?;
            let done = lines.len() < VOID_BATCH;
            all.extend(lines);
            if done {
                return Ok(all);
            }
        }
    }
}
