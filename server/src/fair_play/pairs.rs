//! The cap on rated results between two accounts, counted from the public
//! ledger: a rated match between them is a ledger line both have a seat
//! in (`ledger_seats`), at the line's `at_ms`.

use crate::clock::now_ms;
use crate::store::{Arg, Col, Kind, Store, StoreError};

pub use crate::limits::RATED_PAIR_CAP;

/// The window the cap counts in: a day.
pub const RATED_PAIR_WINDOW_MS: u64 = 86_400_000;

fn ms(n: u64) -> Arg {
    Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// Whether the accounts whose name keys are `a` and `b` have played
/// `cap` rated matches together in the window up to now (the server's
/// cap, [`RATED_PAIR_CAP`] by default; 0: no cap).
pub async fn pair_capped(store: &Store, a: &str, b: &str, cap: u64) -> Result<bool, StoreError> {
    if cap == 0 {
        return Ok(false);
    }
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
    Ok(u64::try_from(n).unwrap_or(0) >= cap)
}

/// The accounts (name keys) the account `a` has played `cap` rated
/// matches with in the window up to now: a rated seek of `a` does not
/// pair with theirs (0: no cap, nobody).
pub async fn capped_opponents(store: &Store, a: &str, cap: u64) -> Result<Vec<String>, StoreError> {
    if cap == 0 {
        return Ok(Vec::new());
    }
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
                Arg::Int(i64::try_from(cap).unwrap_or(i64::MAX)),
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
