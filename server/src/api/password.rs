//! `POST /api/password`: a player changes their password. The old
//! password is always checked, under the login failure limits: as HTTP
//! Basic's (name and old password), or, with the session cookie, as the
//! body's `old_password`. An API token alone cannot change it, so a
//! leaked bot token cannot take the account over. Every other browser
//! session ends (all of them under Basic), and with `"revoke_tokens":
//! true` every API token; the connections made with what ended are told
//! `auth/revoked` and closed.

use serde::Deserialize;
use serde_json::json;

use super::accounts::parse;
use super::auth::{basic, device_cookie, session_cookie};
use super::error::{ApiError, SignIn};
use super::serve::{Answer, ApiRequest};
use crate::accounts::{AccountError, Password};
use crate::http::Head;

/// The body.
#[derive(Deserialize)]
struct Change {
    /// The current password (with the session cookie; under HTTP Basic
    /// the header carries it).
    #[serde(default)]
    old_password: Option<String>,
    /// The new one.
    new_password: String,
    /// Whether every API token ends too.
    #[serde(default)]
    revoke_tokens: bool,
}

/// `POST /api/password` `{"old_password", "new_password",
/// "revoke_tokens"}`: `200 {"ended"}`, how many sessions and tokens ended.
pub(super) async fn change(
    head: &Head,
    body: &[u8],
    req: ApiRequest<'_>,
) -> Result<Answer, ApiError> {
    let change: Change = parse(body)?;
    let accounts = req.accounts;
    let device = device_cookie(head);
    let (account, keep) = if let Some((name, old)) = basic(head) {
        let (account, _) = accounts
            .check_login(&name, old, req.peer, req.secure, device)
            .await?;
        (account, None)
    } else if let Some(session) = session_cookie(head) {
        let account = accounts.by_session(session).await?;
        let old = change.old_password.ok_or(ApiError::BadJson)?;
        let (checked, _) = accounts
            .check_login(
                &account.name,
                Password::new(old),
                req.peer,
                req.secure,
                device,
            )
            .await?;
        if checked.id != account.id {
            // Renamed between the two reads: not the session's account.
            return Err(AccountError::BadCredentials.into());
        }
        (account, Some(session))
    } else {
        return Err(ApiError::SignIn(SignIn::Credentials));
    };
    let ended = accounts
        .change_password(
            &account,
            Password::new(change.new_password),
            keep,
            change.revoke_tokens,
        )
        .await?;
    Ok(Answer::json(200, json!({"ended": ended})))
}
