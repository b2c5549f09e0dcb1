//! The cap on rated results between two accounts, counted from the public
//! ledger: a rated match between them is a ledger line both have a seat
//! in (`ledger_seats`), at the line's `at_ms`.

use crate::clock::now_ms;
use crate::store::{Arg, Col, Kind, Store, StoreError};

/// Rated results between the same two accounts that count in any
/// [`RATED_PAIR_WINDOW_MS`]: enough for a real rivalry's evening, too few
/// for two puppets to lift a third's rating far (12 resigned games took
/// one from 1500 to 1918).
pub const RATED_PAIR_CAP: u64 = 5;

/// The window the cap counts in: a day.
pub const RATED_PAIR_WINDOW_MS: u64 = 86_400_000;

fn ms(n: u64) -> Arg {
    Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// Whether the accounts whose name keys are `a` and `b` have played
/// [`RATED_PAIR_CAP`] rated matches together in the window up to now.
pub async fn pair_capped(store: &Store, a: &str, b: &str) -> Result<bool, StoreError> {
    let since = now_ms().saturating_sub(RATED_PAIR_WINDOW_MS);
    let rows = store
        .beside()
        .query(
            "SELECT COUNT(*) FROM ledger_seats x \
             JOIN ledger_seats y ON y.n = x.n AND y.account_key = $2 \
             JOIN ledger l ON l.n = x.n \
             WHERE x.account_key = $1 AND l.at_ms >= $3",
            vec![Arg::Text(a.to_owned()), Arg::Text(b.to_owned()), ms(since)],
            &[Kind::Int],
        )
        .await?;
    let n = rows.first().and_then(|r| r.first()).map_or(0, Col::int);
    Ok(u64::try_from(n).unwrap_or(0) >= RATED_PAIR_CAP)
}

/// The accounts (name keys) the account `a` has played
/// [`RATED_PAIR_CAP`] rated matches with in the window up to now: a rated
/// seek of `a` does not pair with theirs.
pub async fn capped_opponents(store: &Store, a: &str) -> Result<Vec<String>, StoreError> {
    let since = now_ms().saturating_sub(RATED_PAIR_WINDOW_MS);
    let rows = store
        .beside()
        .query(
            "SELECT y.account_key FROM ledger_seats x \
             JOIN ledger_seats y ON y.n = x.n AND y.account_key <> x.account_key \
             JOIN ledger l ON l.n = x.n \
             WHERE x.account_key = $1 AND l.at_ms >= $2 \
             GROUP BY y.account_key HAVING COUNT(*) >= $3",
            vec![
                Arg::Text(a.to_owned()),
                ms(since),
                Arg::Int(i64::try_from(RATED_PAIR_CAP).unwrap_or(i64::MAX)),
            ],
            &[Kind::Text],
        )
        .await?;
    Ok(rows
        .iter()
        .filter_map(|r| r.first())
        .map(Col::text)
        .collect())
}
