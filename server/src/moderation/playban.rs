//! Play bans as a player meets them: a play-banned account is refused
//! `play/banned` when it asks to start or join a game (seek, challenge,
//! accept, rematch, create or join a room as a player, enter a ladder or
//! a tournament), told until when and why, in the reason's public words.
//! Games already being played go on.

use super::log::{ModAction, ModLog};
use super::ModError;
use crate::accounts::store::{Account, AccountStore};
use crate::store::StoreError;

/// Why a play-banned account may not play now, and for how long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banned {
    /// When the ban ends (ms since the epoch).
    pub until_ms: i64,
    /// How long until then, in ms (at least one).
    pub retry_after_ms: u64,
    /// What the player is told: "you may not play until ...: why".
    pub message: String,
}

impl From<Banned> for ModError {
    fn from(b: Banned) -> ModError {
        ModError::PlayBanned {
            message: b.message,
            retry_after_ms: b.retry_after_ms,
        }
    }
}

/// Whether the account named `name` is play-banned at `now_ms`, read
/// afresh (a moderator may have acted since it signed in); `None` if it
/// may play, or no account has the name.
pub async fn banned(
    accounts: &AccountStore,
    log: &ModLog,
    name: &str,
    now_ms: i64,
) -> Result<Option<Banned>, StoreError> {
    let Some(account) = accounts.by_name(name).await? else {
        return Ok(None);
    };
    banned_account(log, &account, now_ms).await
}

/// [`banned`] for an account just read.
pub async fn banned_account(
    log: &ModLog,
    account: &Account,
    now_ms: i64,
) -> Result<Option<Banned>, StoreError> {
    let Some(until_ms) = account.standing.playban_at(now_ms) else {
        return Ok(None);
    };
    // The reason is the latest play ban's in the log.
    let entries = log
        .list(Some(&account.name), None, super::log::MOD_LOG_PAGE)
        .await?;
    let why = entries
        .iter()
        .find(|e| e.action == ModAction::Playban)
        .map_or("a breach of the rules", |e| e.reason.public());
    let retry_after_ms = u64::try_from(until_ms.saturating_sub(now_ms))
        .unwrap_or(0)
        .max(1);
    Ok(Some(Banned {
        until_ms,
        retry_after_ms,
        message: format!("you may not play until {}: {why}", utc_minute(until_ms)),
    }))
}

/// `ms` (since the epoch) as a UTC date and minute: `2026-12-01 22:15 UTC`.
pub fn utc_minute(ms: i64) -> String {
    let minutes = ms.div_euclid(60_000);
    let days = minutes.div_euclid(24 * 60);
    let in_day = minutes.rem_euclid(24 * 60);
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        in_day / 60,
        in_day % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01: (year, month,
/// day). Counted in 400-year eras of 146 097 days, each starting on
/// March 1st so that the leap day ends a year.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_utc_dates_and_minutes() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00 UTC");
        // 2000-02-29 12:34 UTC: a leap day of a century divisible by 400.
        assert_eq!(utc_minute(951_827_640_000), "2000-02-29 12:34 UTC");
        // 2026-12-01 00:00 UTC.
        assert_eq!(utc_minute(1_796_083_200_000), "2026-12-01 00:00 UTC");
        assert_eq!(utc_minute(-60_000), "1969-12-31 23:59 UTC");
    }
}
