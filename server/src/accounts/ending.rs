//! Credentials that end take their connections with them: when an API
//! token is revoked, a browser session logged out, a password changed or
//! an account closed, every live connection that signed in with one of
//! the ended credentials is told `auth/revoked` and closed, on every node.
//!
//! The account service knows which credentials ended (the store names
//! their hashes as it deletes them); who holds connections is not its
//! business, so it tells an [`EndConnections`] (the room directory, which
//! knows the connections here and announces the end to the other nodes).

use super::error::AccountError;
use super::store::Account;
use super::{Accounts, Password, Token, TokenHash};

/// Ends the connections made with credentials that have ended.
pub trait EndConnections: Send + Sync + std::fmt::Debug {
    /// Every connection, on every node, that signed in with a token or
    /// session whose hash is in `ended` is told `auth/revoked` and closed
    /// (its seeks cancelled as it closes).
    fn credentials_ended(&self, ended: &[TokenHash]);
}

/// Ends nothing: for an account service without connections (tests,
/// tools).
#[derive(Debug, Default)]
pub struct NoConnections;

impl EndConnections for NoConnections {
    fn credentials_ended(&self, _ended: &[TokenHash]) {}
}

impl Accounts {
    /// Ends the browser session `session`, if it is one (logout), and
    /// the connections made with it.
    pub async fn end_session(&self, session: &str) -> Result<(), AccountError> {
        let Some(session) = Token::parse(session) else {
            return Ok(());
        };
        let hash = session.hash();
        self.store
            .end_session(hash, crate::clock::now_ms_signed())
            .await
            .map_err(AccountError::store)?;
        self.connections.credentials_ended(&[hash]);
        Ok(())
    }

    /// Revokes the account's token `id`, and ends the connections made
    /// with it.
    pub async fn revoke_token(&self, account: &Account, id: i64) -> Result<(), AccountError> {
        match self.store.revoke_token(account.id, id).await {
            Ok(Some(hash)) => {
                self.connections.credentials_ended(&[hash]);
                Ok(())
            }
            Ok(None) => Err(AccountError::NoSuchToken),
            Err(e) => Err(AccountError::store(e)),
        }
    }

    /// Sets `account`'s password to `new` (the old one checked by the
    /// caller), ending its browser sessions but `keep` (the cookie of the
    /// session that asked, if one did) and, with `revoke_tokens`, its API
    /// tokens, with their connections. How many credentials ended.
    pub async fn change_password(
        &self,
        account: &Account,
        new: Password,
        keep: Option<&str>,
        revoke_tokens: bool,
    ) -> Result<usize, AccountError> {
        new.check_strength().map_err(AccountError::BadPassword)?;
        let hash = self
            .hash(move || new.hash())
            .await?
            .map_err(AccountError::Hashing)?;
        let keep = keep.and_then(Token::parse).map(|t| t.hash());
        let ended = self
            .store
            .change_password(account.id, &hash, keep, revoke_tokens)
            .await
            .map_err(AccountError::store)?;
        self.connections.credentials_ended(&ended);
        tracing::info!(account = %account.name, ended = ended.len(), revoke_tokens, "password changed");
        Ok(ended.len())
    }

    /// Ends every credential of `account` (its tokens, sessions and
    /// device cookies) and every connection made with one, on every
    /// node: what closing an account calls. How many tokens and sessions
    /// ended.
    pub async fn end_all_credentials(&self, account: &Account) -> Result<usize, AccountError> {
        let ended = self
            .store
            .end_credentials(account.id)
            .await
            .map_err(AccountError::store)?;
        self.connections.credentials_ended(&ended);
        tracing::info!(account = %account.name, ended = ended.len(), "every credential ended");
        Ok(ended.len())
    }
}
