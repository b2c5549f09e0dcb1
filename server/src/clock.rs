//! The wall clock, read in one place: milliseconds since the Unix epoch,
//! as matches, ledgers, leases and accounts record time. (A match's game
//! clocks are `room::clock`'s, on the monotonic clock.)

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now (0 on a clock set before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// [`now_ms`] as the signed integer SQL keeps (`bigint`).
pub fn now_ms_signed() -> i64 {
    i64::try_from(now_ms()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_read_the_same_clock() {
        let a = now_ms();
        let b = now_ms_signed();
        let c = now_ms();
        assert!(a > 1_600_000_000_000, "the clock reads {a}");
        assert!(u64::try_from(b).is_ok_and(|b| a <= b && b <= c));
    }
}
