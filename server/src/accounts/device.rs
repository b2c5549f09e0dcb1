//! Device cookies (OWASP's "slow down online guessing attacks with
//! device cookies"): a successful login is given a long-lived random
//! `parlor_device` cookie bound to its account. A later login for that
//! account presenting it is counted against that device alone
//! ([`LOGIN_FAILURES_PER_DEVICE`]), not against the name or the address,
//! so however many strangers fail for a name, its owner's browser or CLI
//! still signs in; a login without one keeps the per-name and
//! per-address limits.
//!
//! Like tokens, a device cookie is 256 random bits shown once (in the
//! `Set-Cookie` header) and kept only as its SHA-256.

use std::time::Duration;

use super::store::{AccountId, AccountStore};
use super::TokenHash;
#[cfg(doc)]
use crate::limits::LOGIN_FAILURES_PER_DEVICE;
use crate::store::StoreError;

/// The device cookie's name.
pub const DEVICE_COOKIE: &str = "parlor_device";

/// How long a device stays known after its login: a year, so a player
/// who signs in now and then keeps being recognised.
pub const DEVICE_LIFETIME: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// The most devices one account keeps; a new login past this forgets
/// the oldest (a player has a few browsers and machines; a bound keeps
/// someone who knows the password from filling the table).
pub const MAX_DEVICES_PER_ACCOUNT: i64 = 20;

/// The lifetime in milliseconds, as the store compares it.
fn lifetime_ms() -> i64 {
    i64::try_from(DEVICE_LIFETIME.as_millis()).unwrap_or(i64::MAX)
}

impl AccountStore {
    /// Remembers a new device of `account` by its cookie's hash, and
    /// forgets its devices beyond [`MAX_DEVICES_PER_ACCOUNT`], oldest
    /// first.
    pub async fn add_device(
        &self,
        account: AccountId,
        hash: TokenHash,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let db = self.beside();
        db.exec(
            "INSERT INTO devices (hash, account, created_ms) VALUES ($1, $2, $3)",
            vec![hash.to_hex().into(), account.0.into(), now_ms.into()],
        )
        .await?;
        db.exec(
            "DELETE FROM devices WHERE account = $1 AND hash NOT IN \
             (SELECT hash FROM devices WHERE account = $1 \
              ORDER BY created_ms DESC, hash LIMIT $2)",
            vec![account.0.into(), MAX_DEVICES_PER_ACCOUNT.into()],
        )
        .await?;
        Ok(())
    }

    /// The account the unexpired device cookie with this hash was given
    /// to, if any.
    pub async fn device_account(
        &self,
        hash: TokenHash,
        now_ms: i64,
    ) -> Result<Option<AccountId>, StoreError> {
        let row = self
            .beside()
            .fetch_opt(
                "SELECT account FROM devices WHERE hash = $1 AND created_ms > $2",
                vec![
                    hash.to_hex().into(),
                    now_ms.saturating_sub(lifetime_ms()).into(),
                ],
            )
            .await?;
        row.map(|r| r.int(0).map(AccountId)).transpose()
    }
}
