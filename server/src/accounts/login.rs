//! Logging in with a name and a password, and the limits on failing:
//! a login that presents a valid device cookie for that account is
//! counted against its device alone; any other against its address and
//! its name (see [`super::device`]). A success without a known device
//! is given a new device cookie.

use std::net::IpAddr;

use tokio::time::Instant;

use super::error::{AccountError, Throttled};
use super::service::DECOY_HASH;
use super::store::Account;
use super::{Accounts, Password, PasswordHash, Token};

/// A successful login.
#[derive(Debug)]
pub struct SignedIn {
    /// The account.
    pub account: Account,
    /// A new device cookie's value, for a login that presented no valid
    /// one (to be set as `parlor_device`); `None` when it did, or if the
    /// device could not be stored (the login still succeeds).
    pub device: Option<Token>,
}

impl Accounts {
    /// The account whose `name` and `password` these are, with a new
    /// device cookie if `device` (the `parlor_device` cookie presented)
    /// is not a valid one of that account's.
    pub async fn login(
        &self,
        name: &str,
        password: Password,
        peer: IpAddr,
        secure: bool,
        device: Option<&str>,
    ) -> Result<SignedIn, AccountError> {
        let (account, known) = self
            .check_login(name, password, peer, secure, device)
            .await?;
        let device = if known {
            None
        } else {
            self.new_device(&account).await
        };
        Ok(SignedIn { account, device })
    }

    /// Checks `name` and `password` under the failure limits, as
    /// [`Accounts::login`] does, without issuing a device cookie: the
    /// account, and whether `device` was a valid one of its own.
    pub async fn check_login(
        &self,
        name: &str,
        password: Password,
        peer: IpAddr,
        secure: bool,
        device: Option<&str>,
    ) -> Result<(Account, bool), AccountError> {
        self.check_password_channel(secure, peer)?;
        let key = name.to_ascii_lowercase();
        let found = self
            .store
            .by_name(name)
            .await
            .map_err(AccountError::store)?;
        let device = self.known_device(device, found.as_ref()).await?;
        let now = Instant::now();
        match &device {
            Some(d) => self.failed_by_device.check(d, now),
            None => self
                .failed_by_address
                .check(&peer, now)
                .and_then(|()| self.failed_by_name.check(&key, now)),
        }
        .map_err(|wait| AccountError::RateLimited {
            what: Throttled::FailedLogins,
            wait,
        })?;
        // An unknown name costs a hash too, so that timing does not tell
        // which names exist.
        let hash = found
            .as_ref()
            .map(|a| a.password.clone())
            .unwrap_or_else(|| PasswordHash::from_stored(DECOY_HASH.to_owned()));
        let ok = self.hash(move || password.verify(&hash)).await?;
        match found {
            Some(account) if ok => Ok((super::service::unless_closed(account)?, device.is_some())),
            _ => {
                let now = Instant::now();
                match device {
                    Some(d) => self.failed_by_device.record(d, now),
                    None => {
                        self.failed_by_address.record(peer, now);
                        self.failed_by_name.record(key, now);
                    }
                }
                tracing::debug!(%peer, "failed login");
                Err(AccountError::BadCredentials)
            }
        }
    }

    /// The device cookie `presented`'s hash in hex, if it is a live one
    /// given to `account`.
    async fn known_device(
        &self,
        presented: Option<&str>,
        account: Option<&Account>,
    ) -> Result<Option<String>, AccountError> {
        let (Some(token), Some(account)) = (presented.and_then(Token::parse), account) else {
            return Ok(None);
        };
        let hash = token.hash();
        let owner = self
            .store
            .device_account(hash, crate::clock::now_ms_signed())
            .await
            .map_err(AccountError::store)?;
        Ok((owner == Some(account.id)).then(|| hash.to_hex()))
    }

    /// A new device cookie for `account`, stored; `None` if it could not
    /// be (the login goes on without one).
    async fn new_device(&self, account: &Account) -> Option<Token> {
        let device = Token::generate();
        let stored = self
            .store
            .add_device(account.id, device.hash(), crate::clock::now_ms_signed())
            .await;
        match stored {
            Ok(()) => Some(device),
            Err(e) => {
                tracing::warn!(error = %e, "a device cookie could not be stored");
                None
            }
        }
    }
}
