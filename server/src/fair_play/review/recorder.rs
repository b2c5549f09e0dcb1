//! After a rated match ends: its engine agreement per human seat,
//! computed from the stored log and kept in `fairplay_games`.
//!
//! The room hands over the match's ledger line once its final step is
//! committed ([`after_rated_end`]); the rest runs in a task of its own,
//! the replay and the engines on a blocking thread, so the room neither
//! waits for it nor hears of its failures (logged, then dropped: a
//! match not counted only makes the review see a little less).
//!
//! Matches that ended before a server counted them (before this
//! version, or when the node stopped between the end and the count) are
//! not counted afterwards: there is no backfill.

use parlor_competition::LedgerLine;
use parlor_protocol::RoomId;

use super::store::{FairPlayStore, GameCounts};
use crate::accounts::name_key;
use crate::store::Store;

/// Counts the rated match of `line` in the background: never slows or
/// fails the room that calls it.
pub fn after_rated_end(store: &Store, line: &LedgerLine) {
    let store = store.clone();
    let line = line.clone();
    tokio::spawn(async move {
        if let Err(e) = record(&store, &line).await {
            tracing::warn!(room = %line.room, error = %e, "the match's fair-play counts were not kept");
        }
    });
}

/// Counts the rated match of `line` for each of its human accounts;
/// how many rows were new.
pub async fn record(store: &Store, line: &LedgerLine) -> Result<usize, String> {
    let counts = FairPlayStore::new(store.beside());
    let mut humans = Vec::new();
    for p in &line.players {
        let key = name_key(&p.name);
        if counts.is_human(&key).await.map_err(|e| e.to_string())? {
            humans.push((key, p.name.clone(), p.seat));
        }
    }
    if humans.is_empty() {
        return Ok(0);
    }
    let room = RoomId::new(&line.room).ok_or("the ledger line's room is not a room id")?;
    let log = store
        .log(room)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the match's log is gone")?;
    if log.outcome.is_none() {
        // Never during a match: only its end is reviewed.
        return Err("the match has not ended".into());
    }
    let tallies = tokio::task::spawn_blocking(move || parlor_protocol::agreement(&log))
        .await
        .map_err(|e| format!("the agreement's thread failed: {e}"))?
        .map_err(|e| e.to_string())?;
    let mut new = 0;
    for (key, name, seat) in humans {
        let Some(t) = tallies.get(usize::from(seat)) else {
            continue;
        };
        let row = GameCounts {
            room: line.room.clone(),
            account_key: key,
            name,
            pool: line.pool.clone(),
            at_ms: line.at_ms,
            choices: t.choices,
            agreed: t.agreed,
        };
        if counts.insert(row).await.map_err(|e| e.to_string())? {
            new += 1;
        }
    }
    tracing::debug!(room = %line.room, rows = new, "fair-play counts kept");
    Ok(new)
}
