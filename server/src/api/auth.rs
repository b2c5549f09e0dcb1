//! Who a request is: the credentials it presents (`Authorization:
//! Bearer TOKEN`, the `parlor_session` cookie, or for `POST /api/tokens`
//! HTTP Basic with the account's name and password), and whether a
//! request presenting the cookie comes from a page allowed to use it.
//! The WebSocket upgrade reads its credentials here too.

use base64::Engine;

use super::error::{ApiError, SignIn};
use super::serve::ApiRequest;
use crate::accounts::store::Account;
use crate::accounts::Password;
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
    head.headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("cookie"))
        .flat_map(|(_, v)| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim())
}

/// The bearer token in `head`'s `Authorization`, if any.
pub fn bearer(head: &Head) -> Option<&str> {
    let value = head.header("authorization")?;
    let (scheme, rest) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
}

/// Name and password from `head`'s `Authorization: Basic`, if any.
fn basic(head: &Head) -> Option<(String, Password)> {
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
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "Set-Cookie: {SESSION_COOKIE}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{secure}\r\n"
    )
}

/// The account the request authenticates as, by bearer token, session
/// cookie or (when `basic_ok`) HTTP Basic.
pub async fn who(head: &Head, req: ApiRequest<'_>, basic_ok: bool) -> Result<Account, ApiError> {
    if let Some(token) = bearer(head) {
        return Ok(req.accounts.by_token(token).await?);
    }
    if basic_ok {
        if let Some((name, password)) = basic(head) {
            return Ok(req
                .accounts
                .login(&name, password, req.peer, req.secure)
                .await?);
        }
    }
    if let Some(session) = session_cookie(head) {
        return Ok(req.accounts.by_session(session).await?);
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
