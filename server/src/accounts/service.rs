//! What the HTTP API and the WebSocket ask of accounts: register, log in,
//! check a token or a session, manage tokens; with the rules around them
//! (rate limits, passwords only over TLS or loopback, Argon2 on blocking
//! threads under a cap). Every refusal is an [`AccountError`], one
//! variant per reason, without a status or a wire code. Nothing here logs a password, a token or a cookie.

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::attempts::Attempts;
use super::ending::EndConnections;
use super::error::{AccountError, Throttled};
use super::store::{Account, AccountStore, CreateError, TokenInfo, MAX_TOKEN_LABEL_CHARS};
use super::{AccountKind, AccountName, Password, Token, TokenHash};
use crate::limits::{
    Limits, LOGIN_FAILURES_PER_ADDRESS, LOGIN_FAILURES_PER_DEVICE, LOGIN_FAILURES_PER_NAME,
    LOGIN_FAILURE_WINDOW, MAX_CONCURRENT_HASHES, MAX_QUEUED_HASHES,
};

/// How long a browser session lasts after its login: a month, as common
/// sites keep one, after which the player logs in again.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// The window account creations are counted in per address.
const CREATION_WINDOW: Duration = Duration::from_secs(60 * 60);

/// The account settings an operator chooses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountSettings {
    /// Accept passwords over plain HTTP from other machines
    /// (`--insecure-passwords`): only on a network the operator trusts.
    pub insecure_passwords: bool,
    /// Origins besides the server's own whose pages may use a player's
    /// session cookie (`--allow-origin`, e.g. `https://play.example`).
    pub allow_origins: Vec<String>,
}

/// Whether a password may be sent by `peer` on a connection that is
/// `secure` (TLS, or a trusted TLS-terminating proxy): always over TLS;
/// otherwise only from this machine, unless the operator allowed it.
pub fn password_allowed(secure: bool, peer: IpAddr, insecure_passwords: bool) -> bool {
    let loopback = match peer {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    };
    secure || loopback || insecure_passwords
}

/// What a WebSocket upgrade presented to authenticate with. Its `Debug`
/// never shows the secret.
#[derive(Clone)]
pub enum Credential {
    /// `Authorization: Bearer TOKEN`.
    Bearer(String),
    /// The `parlor_session` cookie.
    Session(String),
}

impl Credential {
    /// The hash the store keeps of the token or session presented, if it
    /// has a token's form: what the connection is ended by when it ends.
    pub fn hash(&self) -> Option<TokenHash> {
        match self {
            Credential::Bearer(s) | Credential::Session(s) => Token::parse(s).map(|t| t.hash()),
        }
    }
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credential::Bearer(_) => f.write_str("Bearer(..)"),
            Credential::Session(_) => f.write_str("Session(..)"),
        }
    }
}

/// The account service; one per server, shared by its connections.
#[derive(Debug)]
pub struct Accounts {
    pub(super) store: AccountStore,
    settings: AccountSettings,
    hashing: Arc<Semaphore>,
    queued: AtomicUsize,
    pub(super) failed_by_address: Attempts<IpAddr>,
    pub(super) failed_by_name: Attempts<String>,
    /// Failed logins per known device (its cookie's hash in hex).
    pub(super) failed_by_device: Attempts<String>,
    created_by_address: Attempts<IpAddr>,
    /// Who ends the connections of credentials that end.
    pub(super) connections: Arc<dyn EndConnections>,
}

impl Accounts {
    /// The service over `store`; `connections` ends the connections made
    /// with credentials that end.
    pub fn new(
        store: AccountStore,
        settings: AccountSettings,
        limits: &Limits,
        connections: Arc<dyn EndConnections>,
    ) -> Self {
        Accounts {
            store,
            settings,
            hashing: Arc::new(Semaphore::new(MAX_CONCURRENT_HASHES)),
            queued: AtomicUsize::new(0),
            failed_by_address: Attempts::new(LOGIN_FAILURE_WINDOW, LOGIN_FAILURES_PER_ADDRESS),
            failed_by_name: Attempts::new(LOGIN_FAILURE_WINDOW, LOGIN_FAILURES_PER_NAME),
            failed_by_device: Attempts::new(LOGIN_FAILURE_WINDOW, LOGIN_FAILURES_PER_DEVICE),
            connections,
            created_by_address: Attempts::new(
                CREATION_WINDOW,
                u32::try_from(limits.accounts_per_address_hour).unwrap_or(u32::MAX),
            ),
        }
    }

    /// The operator's settings.
    pub fn settings(&self) -> &AccountSettings {
        &self.settings
    }

    /// The store.
    pub fn store(&self) -> &AccountStore {
        &self.store
    }

    /// Runs `work` (an Argon2 hash or check) on a blocking thread once a
    /// hashing slot is free; `server/busy` if too many wait already.
    pub(super) async fn hash<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, AccountError> {
        let busy = || AccountError::Busy;
        if self.queued.fetch_add(1, Ordering::AcqRel) >= MAX_QUEUED_HASHES {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            return Err(busy());
        }
        let permit = Arc::clone(&self.hashing).acquire_owned().await;
        self.queued.fetch_sub(1, Ordering::AcqRel);
        let permit = permit.map_err(|_| busy())?;
        let out = tokio::task::spawn_blocking(move || {
            let out = work();
            drop(permit);
            out
        })
        .await
        .map_err(|_| busy())?;
        Ok(out)
    }

    pub(super) fn check_password_channel(
        &self,
        secure: bool,
        peer: IpAddr,
    ) -> Result<(), AccountError> {
        if password_allowed(secure, peer, self.settings.insecure_passwords) {
            Ok(())
        } else {
            Err(AccountError::Insecure)
        }
    }

    /// Registers `name` with `password`.
    pub async fn register(
        &self,
        name: &str,
        password: Password,
        kind: AccountKind,
        peer: IpAddr,
        secure: bool,
    ) -> Result<Account, AccountError> {
        self.check_password_channel(secure, peer)?;
        let name = AccountName::new(name).map_err(AccountError::BadName)?;
        password
            .check_strength()
            .map_err(AccountError::BadPassword)?;
        self.created_by_address
            .check(&peer, Instant::now())
            .map_err(|wait| AccountError::RateLimited {
                what: Throttled::Creations,
                wait,
            })?;
        let hash = self
            .hash(move || password.hash())
            .await?
            .map_err(AccountError::Hashing)?;
        let created_ms = crate::clock::now_ms_signed();
        let id = match self.store.create(&name, kind, &hash, created_ms).await {
            Ok(id) => id,
            Err(CreateError::Taken) => return Err(AccountError::NameTaken(name.to_string())),
            Err(CreateError::Store(e)) => return Err(AccountError::store(e)),
        };
        self.created_by_address.record(peer, Instant::now());
        tracing::info!(account = %name, kind = kind.as_str(), "account created");
        Ok(Account {
            id,
            name: name.as_str().to_owned(),
            kind,
            password: hash,
            created_ms,
            builtin: false,
            standing: super::Standing::default(),
        })
    }

    /// The account `credential` names.
    pub async fn by_credential(&self, credential: &Credential) -> Result<Account, AccountError> {
        match credential {
            Credential::Bearer(token) => self.by_token(token).await,
            Credential::Session(session) => self.by_session(session).await,
        }
    }

    /// Whether `name` is a registered account's (any case); a failed
    /// lookup counts as yes, so that a guest is never shown under an
    /// account's name.
    pub async fn is_taken(&self, name: &str) -> bool {
        if AccountName::new(name).is_err() {
            // Not an account's form: no account can have it.
            return false;
        }
        !matches!(self.store.by_name(name).await, Ok(None))
    }

    /// The account of the API token `token` (as presented).
    pub async fn by_token(&self, token: &str) -> Result<Account, AccountError> {
        let token = Token::parse(token).ok_or(AccountError::InvalidToken)?;
        self.store
            .by_token(token.hash(), crate::clock::now_ms_signed())
            .await
            .map_err(AccountError::store)?
            .ok_or(AccountError::InvalidToken)
            .and_then(unless_closed)
    }

    /// The account of the browser session `session` (the cookie's value).
    pub async fn by_session(&self, session: &str) -> Result<Account, AccountError> {
        let session = Token::parse(session).ok_or(AccountError::InvalidToken)?;
        self.store
            .by_session(session.hash(), crate::clock::now_ms_signed())
            .await
            .map_err(AccountError::store)?
            .ok_or(AccountError::InvalidToken)
            .and_then(unless_closed)
    }

    /// Starts a browser session for `account`: the cookie's value.
    pub async fn start_session(&self, account: &Account) -> Result<Token, AccountError> {
        let session = Token::generate();
        let lifetime = i64::try_from(SESSION_LIFETIME.as_millis()).unwrap_or(i64::MAX);
        self.store
            .add_session(
                account.id,
                session.hash(),
                crate::clock::now_ms_signed().saturating_add(lifetime),
            )
            .await
            .map_err(AccountError::store)?;
        Ok(session)
    }

    /// A new API token for `account` labelled `label`: the token (shown
    /// once) and its id.
    pub async fn create_token(
        &self,
        account: &Account,
        label: &str,
    ) -> Result<(Token, i64), AccountError> {
        if label.chars().count() > MAX_TOKEN_LABEL_CHARS || label.chars().any(char::is_control) {
            return Err(AccountError::BadLabel);
        }
        let token = Token::generate();
        let id = self
            .store
            .add_token(
                account.id,
                token.hash(),
                label,
                crate::clock::now_ms_signed(),
            )
            .await
            .map_err(AccountError::store)?
            .ok_or(AccountError::TooManyTokens)?;
        Ok((token, id))
    }

    /// The account's tokens.
    pub async fn tokens(&self, account: &Account) -> Result<Vec<TokenInfo>, AccountError> {
        self.store
            .tokens(account.id)
            .await
            .map_err(AccountError::store)
    }

    /// The account named `name`, for its public page.
    pub async fn player(&self, name: &str) -> Result<Account, AccountError> {
        self.store
            .by_name(name)
            .await
            .map_err(AccountError::store)?
            .ok_or(AccountError::NoSuchPlayer)
    }
}

/// `account` unless a moderator closed it: closing ends its credentials
/// at once, and this refuses any that a race let through (and every
/// login by password).
pub(super) fn unless_closed(account: Account) -> Result<Account, AccountError> {
    if account.standing.closed() {
        Err(AccountError::Closed)
    } else {
        Ok(account)
    }
}

/// A hash of a random password nobody knows, with the current
/// parameters: checked against when a login names no account, so that
/// such a login takes as long as one with a wrong password.
pub(super) const DECOY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$q0Yt1bSHw9sVv6qYBq3b3iN4Jx1p0cQm7m3pN8m1a0Q";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::PasswordHash;

    #[test]
    fn passwords_travel_only_over_tls_or_loopback_unless_allowed() {
        let lan: IpAddr = [192, 168, 1, 7].into();
        let local: IpAddr = [127, 0, 0, 1].into();
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap_or(local);
        assert!(!password_allowed(false, lan, false));
        assert!(password_allowed(true, lan, false));
        assert!(password_allowed(false, lan, true));
        assert!(password_allowed(false, local, false));
        assert!(password_allowed(
            false,
            std::net::Ipv6Addr::LOCALHOST.into(),
            false
        ));
        assert!(password_allowed(false, mapped, false));
        assert!(!password_allowed(
            false,
            "::ffff:10.0.0.1".parse().unwrap_or(lan),
            false
        ));
    }

    #[test]
    fn the_decoy_hash_parses_and_matches_no_likely_password() {
        let decoy = PasswordHash::from_stored(DECOY_HASH.to_owned());
        assert!(argon2::PasswordHash::new(DECOY_HASH).is_ok());
        assert!(!Password::new("password".into()).verify(&decoy));
    }
}
