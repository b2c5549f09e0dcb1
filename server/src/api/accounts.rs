//! The account endpoints: making an account, logging a browser in and
//! out, and making, listing and revoking API tokens. Each takes the
//! request's body (JSON, at most `MAX_API_BODY_BYTES`) and answers JSON;
//! the rules (rate limits, passwords only over TLS) are the account
//! service's.

use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::{cookie, device_cookie, device_set_cookie, session_cookie, signed_in, who};
use super::error::ApiError;
use super::serve::{Answer, ApiRequest};
use crate::accounts::service::SESSION_LIFETIME;
use crate::accounts::{AccountKind, Password, SignedIn};
use crate::http::Head;

#[derive(Deserialize)]
struct Credentials {
    name: String,
    password: String,
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Deserialize, Default)]
struct Label {
    #[serde(default)]
    label: String,
}

pub(super) fn parse<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|_| ApiError::BadJson)
}

/// `POST /api/accounts`: `201 {"name", "kind"}`.
pub(super) async fn register(body: &[u8], req: ApiRequest<'_>) -> Result<Answer, ApiError> {
    let c: Credentials = parse(body)?;
    let kind = match c.kind.as_deref() {
        None => AccountKind::Human,
        Some(k) => AccountKind::parse(k).ok_or(ApiError::BadKind)?,
    };
    let account = req
        .accounts
        .register(
            &c.name,
            Password::new(c.password),
            kind,
            req.peer,
            req.secure,
        )
        .await?;
    Ok(Answer::json(
        201,
        json!({"name": account.name, "kind": account.kind}),
    ))
}

/// `POST /api/login`: `200 {"name", "kind"}`, the session cookie and,
/// unless the request presented a valid one, a new device cookie.
pub(super) async fn login(
    head: &Head,
    body: &[u8],
    req: ApiRequest<'_>,
) -> Result<Answer, ApiError> {
    let c: Credentials = parse(body)?;
    let accounts = req.accounts;
    let SignedIn { account, device } = accounts
        .login(
            &c.name,
            Password::new(c.password),
            req.peer,
            req.secure,
            device_cookie(head),
        )
        .await?;
    let session = accounts.start_session(&account).await?;
    let mut headers = cookie(req.secure, session.reveal(), SESSION_LIFETIME.as_secs());
    headers.push_str(&device_set_cookie(req.secure, device.as_ref()));
    Ok(Answer {
        headers,
        ..Answer::json(200, json!({"name": account.name, "kind": account.kind}))
    })
}

/// `POST /api/logout`: `204`, the session ended (its connections told
/// `auth/revoked` and closed) and the cookie cleared.
pub(super) async fn logout(head: &Head, req: ApiRequest<'_>) -> Result<Answer, ApiError> {
    if let Some(session) = session_cookie(head) {
        req.accounts.end_session(session).await?;
    }
    Ok(Answer {
        headers: cookie(req.secure, "", 0),
        ..Answer::json(204, Value::Null)
    })
}

/// `POST /api/tokens`: `201 {"token", "id"}`, the token shown this once
/// (and, for an HTTP Basic login without a valid device cookie, a new
/// one).
pub(super) async fn create_token(
    head: &Head,
    body: &[u8],
    req: ApiRequest<'_>,
) -> Result<Answer, ApiError> {
    let SignedIn { account, device } = signed_in(head, req, true).await?;
    let label: Label = if body.is_empty() {
        Label::default()
    } else {
        parse(body)?
    };
    let (token, id) = req.accounts.create_token(&account, &label.label).await?;
    tracing::info!(account = %account.name, id, "API token created");
    Ok(Answer {
        headers: device_set_cookie(req.secure, device.as_ref()),
        ..Answer::json(201, json!({"token": token.reveal(), "id": id}))
    })
}

/// `GET /api/tokens`: `200 {"tokens"}`.
pub(super) async fn list_tokens(head: &Head, req: ApiRequest<'_>) -> Result<Answer, ApiError> {
    let account = who(head, req, false).await?;
    let tokens = req.accounts.tokens(&account).await?;
    Ok(Answer::json(200, json!({"tokens": tokens})))
}

/// `DELETE /api/tokens/ID`: `204`; the connections made with the token
/// are told `auth/revoked` and closed.
pub(super) async fn revoke_token(
    head: &Head,
    id: i64,
    req: ApiRequest<'_>,
) -> Result<Answer, ApiError> {
    let account = who(head, req, false).await?;
    req.accounts.revoke_token(&account, id).await?;
    tracing::info!(account = %account.name, id, "API token revoked");
    Ok(Answer::json(204, Value::Null))
}
