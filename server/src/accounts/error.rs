//! Why the account service refused: one variant per reason, worded for
//! people. No HTTP status and no wire code here: the API maps each
//! variant to both at its edge (`api::error`), and `hello` to the
//! WebSocket's code.

use std::time::Duration;

use super::store::MAX_TOKEN_LABEL_CHARS;
use super::{NameError, PasswordError};
use crate::store::StoreError;

/// What was tried too often to be tried again yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throttled {
    /// Accounts made from one address in the creation window.
    Creations,
    /// Failed logins from one address, or for one name.
    FailedLogins,
}

impl std::fmt::Display for Throttled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Throttled::Creations => "accounts created from your address",
            Throttled::FailedLogins => "failed logins",
        })
    }
}

/// Why an account request was refused.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// A password was sent in clear from another machine, and the
    /// operator did not allow that.
    #[error("passwords are accepted only over TLS (https) or from this machine")]
    Insecure,
    /// The name cannot be an account's.
    #[error("{0}")]
    BadName(NameError),
    /// The password is too short or too long.
    #[error("{0}")]
    BadPassword(PasswordError),
    /// The password could not be hashed (it cannot fail with valid
    /// parameters).
    #[error("{0}")]
    Hashing(PasswordError),
    /// Another account has the name (in any case).
    #[error("the name {0} is taken")]
    NameTaken(String),
    /// Tried too often: wait this long.
    #[error("too many {what}; try again later")]
    RateLimited {
        /// What was tried too often.
        what: Throttled,
        /// How long until the next try may succeed.
        wait: Duration,
    },
    /// No account has this name and password.
    #[error("no account has this name and password")]
    BadCredentials,
    /// A wrong, revoked or expired token or session.
    #[error("the token is not valid")]
    InvalidToken,
    /// A token's label is too long or holds control characters.
    #[error("a label has at most {MAX_TOKEN_LABEL_CHARS} printable characters")]
    BadLabel,
    /// The account holds as many tokens as it may.
    #[error("revoke a token before making another")]
    TooManyTokens,
    /// The account holds no token with that id.
    #[error("you hold no such token")]
    NoSuchToken,
    /// A moderator closed the account: it cannot sign in.
    #[error("this account was closed by a moderator; its player page says why")]
    Closed,
    /// No account has the name asked for.
    #[error("no player has this name")]
    NoSuchPlayer,
    /// Too many password checks wait for a hashing slot.
    #[error("the server is busy; try again shortly")]
    Busy,
    /// The account store failed (logged where it happened).
    #[error("accounts are unavailable; try again")]
    Store(#[source] StoreError),
}

impl AccountError {
    /// The store's failure `e`, logged (the person is told only that
    /// accounts are unavailable).
    pub(super) fn store(e: StoreError) -> Self {
        tracing::warn!(error = %e, "the account store failed");
        AccountError::Store(e)
    }
}
