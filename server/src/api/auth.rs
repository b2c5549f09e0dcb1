//! Who a request is: the credentials it presents (`Authorization:
//! Bearer TOKEN`, the `parlor_session` cookie, or for `POST /api/tokens`
//! and `POST /api/password` HTTP Basic with the account's name and
//! password, beside which a `parlor_device` cookie counts), and whether a
//! request presenting the cookie comes from a page allowed to use it.
//! The WebSocket upgrade reads its credentials here too.

use base64::Engine;

use super::error::{ApiError, SignIn};
use super::serve::ApiRequest;
use crate::accounts::device::{DEVICE_COOKIE, DEVICE_LIFETIME};
use crate::accounts::store::Account;
use crate::accounts::{Password, SignedIn, Token};
use crate::http::Head;

/// The browser session cookie's name.
pub const SESSION_COOKIE: &str = "parlor_session";

/// Whether a request presenting the session cookie with `origin` may act:
/// the server's own origin (`http(s)://` and the request's `Host`, as a
/// browser sends it), or one the operator allowed. The cookie alone must
/// not let another site's page act as the player.
pub fn origin_allowed(
    origin: Option<&str>,
    host: Option<&str>,
    secure: bool,
    allowed: &[String],
) -> bool {
    let Some(origin) = origin else {
        return false;
    };
    let scheme = if secure { "https" } else { "http" };
    let own = host.is_some_and(|h| origin.eq_ignore_ascii_case(&format!("{scheme}://{h}")));
    own || allowed.iter().any(|a| a.eq_ignore_ascii_case(origin))
}

/// The session cookie's value in `head`, if it carries one.
pub fn session_cookie(head: &Head) -> Option<&str> {
    cookie_value(head, SESSION_COOKIE)
}

/// The device cookie's value in `head`, if it carries one.
pub fn device_cookie(head: &Head) -> Option<&str> {
    cookie_value(head, DEVICE_COOKIE)
}

/// The value of the cookie `name` in `head`, if it carries one.
fn cookie_value<'h>(head: &'h Head, name: &str) -> Option<&'h str> {
    head.headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("cookie"))
        .flat_map(|(_, v)| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value.trim())
}

/// The bearer token in `head`'s `Authorization`, if any.
pub fn bearer(head: &Head) -> Option<&str> {
    let value = head.header("authorization")?;
    let (scheme, rest) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
}

/// Name and password from `head`'s `Authorization: Basic`, if any.
pub(super) fn basic(head: &Head) -> Option<(String, Password)> {
    let value = head.header("authorization")?;
    let (scheme, rest) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(rest.trim())
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (name, password) = text.split_once(':')?;
    Some((name.to_owned(), Password::new(password.to_owned())))
}

/// The `Set-Cookie` header line setting the session cookie to `value`
/// for `max_age` seconds (0 clears it); `Secure` under TLS.
pub fn cookie(secure: bool, value: &str, max_age: u64) -> String {
    set_cookie(SESSION_COOKIE, secure, value, max_age)
}

/// The `Set-Cookie` header line giving a login's new device cookie
/// `device`, for [`DEVICE_LIFETIME`]; `None`: no line.
pub fn device_set_cookie(secure: bool, device: Option<&Token>) -> String {
    device.map_or_else(String::new, |d| {
        set_cookie(DEVICE_COOKIE, secure, d.reveal(), DEVICE_LIFETIME.as_secs())
    })
}

/// The `Set-Cookie` header line setting cookie `name` to `value` for
/// `max_age` seconds: never readable by scripts, never sent by another
/// site's requests, and over TLS only when the server is on TLS.
fn set_cookie(name: &str, secure: bool, value: &str, max_age: u64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "Set-Cookie: {name}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{secure}\r\n"
    )
}

/// The account the request authenticates as, by bearer token, session
/// cookie or (when `basic_ok`) HTTP Basic.
pub async fn who(head: &Head, req: ApiRequest<'_>, basic_ok: bool) -> Result<Account, ApiError> {
    Ok(signed_in(head, req, basic_ok).await?.account)
}

/// [`who`], with the new device cookie an HTTP Basic login without a
/// valid one is given.
pub async fn signed_in(
    head: &Head,
    req: ApiRequest<'_>,
    basic_ok: bool,
) -> Result<SignedIn, ApiError> {
    let account = |account| SignedIn {
        account,
        device: None,
    };
    if let Some(token) = bearer(head) {
        return Ok(account(req.accounts.by_token(token).await?));
    }
    if basic_ok {
        if let Some((name, password)) = basic(head) {
            return Ok(req
                .accounts
                .login(&name, password, req.peer, req.secure, device_cookie(head))
                .await?);
        }
    }
    if let Some(session) = session_cookie(head) {
        return Ok(account(req.accounts.by_session(session).await?));
    }
    Err(ApiError::SignIn(SignIn::Credentials))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_request_must_come_from_the_own_or_an_allowed_origin() {
        let allowed = vec!["https://play.example".to_owned()];
        assert!(origin_allowed(
            Some("http://h:7878"),
            Some("h:7878"),
            false,
            &[]
        ));
        assert!(!origin_allowed(
            Some("https://h:7878"),
            Some("h:7878"),
            false,
            &[]
        ));
        assert!(origin_allowed(
            Some("https://h:7878"),
            Some("h:7878"),
            true,
            &[]
        ));
        assert!(!origin_allowed(
            Some("http://evil.example"),
            Some("h:7878"),
            false,
            &[]
        ));
        assert!(origin_allowed(
            Some("https://play.example"),
            Some("h"),
            false,
            &allowed
        ));
        assert!(!origin_allowed(None, Some("h"), false, &allowed));
    }
}
