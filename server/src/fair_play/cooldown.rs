//! The rated cooldown (lichess's play ban, our own rule): a rated match
//! aborted because a seat never made its first move (its clock ran out,
//! or its player sent `abort`) is free once, but an account that aborted
//! [`ABORTS_BEFORE_COOLDOWN`] rated matches
//! within [`ABORT_WINDOW_MS`] may not make or accept rated seeks or
//! challenges for [`COOLDOWN_BASE_MS`], twice as long for each further
//! cooldown within [`COOLDOWN_MEMORY_MS`], at most [`COOLDOWN_MAX_MS`].
//! The aborts are kept in `rated_aborts` (both stores).

use crate::clock::now_ms;
use crate::store::{Arg, Col, Kind, Store, StoreError};

/// Aborts by an account's silence within the window that start a
/// cooldown: one is a dropped connection, three in a day a habit.
pub const ABORTS_BEFORE_COOLDOWN: usize = 3;

/// The window the aborts are counted in: a day.
pub const ABORT_WINDOW_MS: u64 = 86_400_000;

/// The first cooldown: an hour.
pub const COOLDOWN_BASE_MS: u64 = 3_600_000;

/// How long earlier cooldowns are remembered for the doubling: a week
/// (an account that behaves for a week starts again from an hour).
pub const COOLDOWN_MEMORY_MS: u64 = 7 * 86_400_000;

/// The longest cooldown: a day (an hour doubled five times is more).
pub const COOLDOWN_MAX_MS: u64 = 86_400_000;

fn ms(n: u64) -> Arg {
    Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// Until when (ms) a cooldown holds after the aborts at `aborts` (in
/// ms, ascending, those of the memory window), if any cooldown was
/// earned: each time the aborts since the last cooldown reach
/// [`ABORTS_BEFORE_COOLDOWN`] within [`ABORT_WINDOW_MS`], a cooldown
/// starts, each twice the one before.
pub fn cooldown_until(aborts: &[u64]) -> Option<u64> {
    let mut recent: Vec<u64> = Vec::new();
    let mut until = None;
    let mut length = COOLDOWN_BASE_MS;
    for &t in aborts {
        recent.retain(|&x| t.saturating_sub(x) < ABORT_WINDOW_MS);
        recent.push(t);
        if recent.len() >= ABORTS_BEFORE_COOLDOWN {
            until = Some(t.saturating_add(length));
            length = length.saturating_mul(2).min(COOLDOWN_MAX_MS);
            recent.clear();
        }
    }
    until
}

/// Records that the account `key` (its silence, or its `abort`) aborted
/// the rated match in `room` at `at_ms`.
pub async fn record_abort(
    store: &Store,
    key: &str,
    room: &str,
    at_ms: u64,
) -> Result<(), StoreError> {
    store
        .beside()
        .exec(
            "INSERT INTO rated_aborts (account_key, at_ms, room) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
            vec![
                Arg::Text(key.to_owned()),
                ms(at_ms),
                Arg::Text(room.to_owned()),
            ],
        )
        .await
        .map(|_| ())
}

/// How long (ms) the account `key` must still wait before rated play, if
/// it is cooling down now.
pub async fn cooling_down(store: &Store, key: &str) -> Result<Option<u64>, StoreError> {
    let now = now_ms();
    let rows = store
        .beside()
        .query(
            "SELECT at_ms FROM rated_aborts WHERE account_key = $1 AND at_ms >= $2 ORDER BY at_ms",
            vec![
                Arg::Text(key.to_owned()),
                ms(now.saturating_sub(COOLDOWN_MEMORY_MS)),
            ],
            &[Kind::Int],
        )
        .await?;
    let aborts: Vec<u64> = rows
        .iter()
        .filter_map(|r| r.first())
        .map(|c| u64::try_from(Col::int(c)).unwrap_or(0))
        .collect();
    Ok(cooldown_until(&aborts)
        .filter(|&until| until > now)
        .map(|until| until - now))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: u64 = 3_600_000;

    #[test]
    fn two_aborts_are_free_the_third_in_a_day_cools_down_an_hour() {
        assert_eq!(cooldown_until(&[0, H]), None);
        assert_eq!(cooldown_until(&[0, H, 2 * H]), Some(3 * H));
        // Spread over more than a day: no cooldown.
        assert_eq!(cooldown_until(&[0, 13 * H, 26 * H]), None);
    }

    #[test]
    fn each_further_cooldown_doubles_up_to_a_day() {
        let mut aborts = Vec::new();
        let mut t = 0;
        let mut lengths = Vec::new();
        for _ in 0..7 {
            for _ in 0..3 {
                aborts.push(t);
                t += 60_000;
            }
            let until = cooldown_until(&aborts).unwrap();
            lengths.push(until - (t - 60_000));
            t = until;
        }
        assert_eq!(lengths, [H, 2 * H, 4 * H, 8 * H, 16 * H, 24 * H, 24 * H]);
    }
}
