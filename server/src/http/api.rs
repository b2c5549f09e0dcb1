//! The account API on the game port: JSON requests and answers under
//! `/api/` (accounts, login and logout, API tokens, players' pages).
//!
//! A request may carry a JSON body of at most [`MAX_API_BODY_BYTES`]
//! (`Content-Length` only; a chunked body is refused), read whole before
//! it is answered, so the connection can be kept alive after it. Errors
//! are `{"code": "area/reason", "message": ...}` with a fitting status.
//!
//! Authentication: `Authorization: Bearer TOKEN` (an API token), the
//! `parlor_session` cookie (a browser session), or for `POST /api/tokens`
//! HTTP Basic with the account's name and password. A state-changing
//! request that presents the cookie must come from the server's own
//! origin or an allowed one (see [`origin_allowed`]): the cookie alone
//! must not let another site's page act as the player.

use std::net::IpAddr;

use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};

use super::head::Head;
use super::response::{send, write, KEEP_ALIVE_IDLE};
use crate::accounts::service::SESSION_LIFETIME;
use crate::accounts::store::Account;
use crate::accounts::{AccountKind, Accounts, AuthError, Password};

/// Largest request body: a name, a password of at most 1024 bytes and a
/// label fit in well under this; anything larger is not an account
/// request.
pub const MAX_API_BODY_BYTES: usize = 4 * 1024;

/// Most time a request's body may take to arrive after its head: a body
/// is a few hundred bytes, sent with the head.
pub const API_BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The browser session cookie's name.
pub const SESSION_COOKIE: &str = "parlor_session";

/// Where accounts are made.
pub const ACCOUNTS_PATH: &str = "/api/accounts";
/// Where a browser logs in.
pub const LOGIN_PATH: &str = "/api/login";
/// Where a browser logs out.
pub const LOGOUT_PATH: &str = "/api/logout";
/// Where API tokens are made and listed.
pub const TOKENS_PATH: &str = "/api/tokens";
/// Where a player's public page is: `/api/players/NAME`.
pub const PLAYERS_PREFIX: &str = "/api/players/";

/// The account endpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiRoute {
    /// `POST /api/accounts`.
    Register,
    /// `POST /api/login`.
    Login,
    /// `POST /api/logout`.
    Logout,
    /// `POST /api/tokens`.
    CreateToken,
    /// `GET /api/tokens`.
    ListTokens,
    /// `DELETE /api/tokens/ID`.
    RevokeToken(i64),
    /// `GET /api/players/NAME`.
    Player(String),
    /// `GET /api/players/NAME/history?pool=P` (a missing or unknown pool
    /// is answered with its error).
    PlayerHistory(Result<super::player::HistoryQuery, AuthError>),
    /// The ratings: ledger, head, leaderboards (a malformed query is
    /// answered with its error).
    Ratings(Result<super::ratings::RatingsRoute, AuthError>),
    /// Tournaments.
    Tournaments(super::tournaments::TournamentRoute),
    /// The bot ladders.
    Ladder(super::ladder::LadderRoute),
    /// A path of the API with a method it does not take.
    MethodNotAllowed(&'static str),
    /// Under `/api/tokens/` or `/api/players/` but malformed.
    NotFound,
}

/// The account endpoint `method` `target` asks for, if it is one (other
/// paths, including `/api/replay/`, are the plain routes').
pub fn route(method: &str, target: &str) -> Option<ApiRoute> {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let query = target
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or_default())
        .unwrap_or_default();
    if let Some(r) = super::ratings::route(path, query) {
        return Some(if method == "GET" {
            ApiRoute::Ratings(r)
        } else {
            ApiRoute::MethodNotAllowed("GET")
        });
    }
    if let Some(r) = super::tournaments::route(method, path) {
        return Some(match r {
            Ok(Some(r)) => ApiRoute::Tournaments(r),
            Ok(None) => ApiRoute::NotFound,
            Err(allowed) => ApiRoute::MethodNotAllowed(allowed),
        });
    }
    if let Some(r) = super::ladder::route(method, path) {
        return Some(r.map_or_else(ApiRoute::MethodNotAllowed, |r| {
            r.map_or(ApiRoute::NotFound, ApiRoute::Ladder)
        }));
    }
    let only = |m: &'static str, r: ApiRoute| {
        Some(if method == m {
            r
        } else {
            ApiRoute::MethodNotAllowed(m)
        })
    };
    match path {
        ACCOUNTS_PATH => only("POST", ApiRoute::Register),
        LOGIN_PATH => only("POST", ApiRoute::Login),
        LOGOUT_PATH => only("POST", ApiRoute::Logout),
        TOKENS_PATH => Some(match method {
            "POST" => ApiRoute::CreateToken,
            "GET" => ApiRoute::ListTokens,
            _ => ApiRoute::MethodNotAllowed("GET, POST"),
        }),
        _ => {
            if let Some(id) = path.strip_prefix("/api/tokens/") {
                let Ok(id) = id.parse::<i64>() else {
                    return Some(ApiRoute::NotFound);
                };
                only("DELETE", ApiRoute::RevokeToken(id))
            } else if let Some(name) = path.strip_prefix(PLAYERS_PREFIX) {
                if let Some(history) = super::player::history_route(name, query) {
                    return only("GET", ApiRoute::PlayerHistory(history));
                }
                if name.is_empty() || name.contains('/') {
                    return Some(ApiRoute::NotFound);
                }
                only("GET", ApiRoute::Player(name.to_owned()))
            } else {
                None
            }
        }
    }
}

/// What answering an API request needs to know of its connection.
#[derive(Clone, Copy, Debug)]
pub struct ApiRequest<'a> {
    /// The accounts.
    pub accounts: &'a Accounts,
    /// The match log (for players' records).
    pub store: &'a crate::store::Store,
    /// The tournaments.
    pub tournaments: &'a crate::tournaments::Tournaments,
    /// The bot ladders.
    pub ladder: &'a crate::ladder::Ladder,
    /// The client's address.
    pub peer: IpAddr,
    /// Whether the request came over TLS: native (`--tls-cert`), or from a
    /// trusted proxy saying `X-Forwarded-Proto: https` (see `Peer`).
    pub secure: bool,
}

/// Whether a request presenting the session cookie with `origin` may act:
/// the server's own origin (`http(s)://` and the request's `Host`, as a
/// browser sends it), or one the operator allowed.
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

/// An answer: status, JSON body, extra header lines; or, for the
/// ratings ledger, newline-delimited JSON lines instead of the body.
struct Answer {
    status: u16,
    body: Value,
    headers: String,
    lines: Option<Vec<u8>>,
}

impl Answer {
    fn json(status: u16, body: Value) -> Self {
        Answer {
            status,
            body,
            headers: String::new(),
            lines: None,
        }
    }

    fn error(e: &AuthError) -> Self {
        let mut body = json!({"code": e.code, "message": e.message});
        let mut headers = String::new();
        if let Some(ms) = e.retry_after_ms {
            body["retry_after_ms"] = json!(ms);
            headers = format!("Retry-After: {}\r\n", ms.div_ceil(1000));
        }
        Answer {
            status: e.status,
            body,
            headers,
            lines: None,
        }
    }
}

fn bad(code: &'static str, message: &str) -> AuthError {
    AuthError::new(400, code, message)
}

/// Answers the API request `head` (routed to `route`) on `stream`; the
/// bytes read past its body if the connection stays open, else `None`.
pub async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    head: &Head,
    route: ApiRoute,
    req: ApiRequest<'_>,
    keep_alive: bool,
) -> Option<Vec<u8>> {
    let (answer, rest) = match super::body::read_body(stream, head).await {
        Ok((body, rest)) => (handle(head, route, &body, req).await, Some(rest)),
        Err(e) => (Answer::error(&e), None),
    };
    let keep_alive = keep_alive && rest.is_some();
    let Answer {
        status,
        body,
        headers,
        lines,
    } = answer;
    let content_type = if lines.is_some() {
        "application/x-ndjson"
    } else {
        "application/json"
    };
    let body = if let Some(lines) = lines {
        lines
    } else if status == 204 {
        Vec::new()
    } else {
        let mut b = serde_json::to_vec(&body).unwrap_or_default();
        b.push(b'\n');
        b
    };
    let connection = if keep_alive {
        format!("Keep-Alive: timeout={}\r\n", KEEP_ALIVE_IDLE.as_secs())
    } else {
        "Connection: close\r\n".to_owned()
    };
    let text = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n{headers}{connection}\r\n",
        super::body::reason(status),
        body.len()
    );
    if keep_alive {
        write(stream, text.as_bytes(), &body).await.then_some(rest?)
    } else {
        send(stream, text.as_bytes(), &body).await;
        None
    }
}

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

fn parse<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, AuthError> {
    serde_json::from_slice(body).map_err(|_| {
        bad(
            "http/bad_json",
            "the body is not the JSON object this endpoint takes",
        )
    })
}

fn cookie(secure: bool, value: &str, max_age: u64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "Set-Cookie: {SESSION_COOKIE}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{secure}\r\n"
    )
}

/// The account the request authenticates as, by bearer token, session
/// cookie or (when `basic` is allowed) HTTP Basic.
async fn who(head: &Head, req: ApiRequest<'_>, basic_ok: bool) -> Result<Account, AuthError> {
    if let Some(token) = bearer(head) {
        return req.accounts.by_token(token).await;
    }
    if basic_ok {
        if let Some((name, password)) = basic(head) {
            return req
                .accounts
                .login(&name, password, req.peer, req.secure)
                .await;
        }
    }
    if let Some(session) = session_cookie(head) {
        return req.accounts.by_session(session).await;
    }
    Err(AuthError::new(
        401,
        "auth/required",
        "authenticate with a token, a session or (for a new token) your name and password",
    ))
}

async fn handle(head: &Head, route: ApiRoute, body: &[u8], req: ApiRequest<'_>) -> Answer {
    match handle_inner(head, route, body, req).await {
        Ok(answer) => answer,
        Err(e) => Answer::error(&e),
    }
}

async fn handle_inner(
    head: &Head,
    route: ApiRoute,
    body: &[u8],
    req: ApiRequest<'_>,
) -> Result<Answer, AuthError> {
    let changes = match &route {
        ApiRoute::ListTokens
        | ApiRoute::Player(_)
        | ApiRoute::PlayerHistory(_)
        | ApiRoute::Ratings(_) => false,
        ApiRoute::Tournaments(t) => t.changes(),
        ApiRoute::Ladder(l) => l.changes(),
        _ => true,
    };
    if changes
        && session_cookie(head).is_some()
        && !origin_allowed(
            head.header("origin"),
            head.header("host"),
            req.secure,
            &req.accounts.settings().allow_origins,
        )
    {
        return Err(AuthError::new(
            403,
            "auth/bad_origin",
            "a request carrying the session cookie must come from this server's pages",
        ));
    }
    let accounts = req.accounts;
    match route {
        ApiRoute::Register => {
            let c: Credentials = parse(body)?;
            let kind = match c.kind.as_deref() {
                None => AccountKind::Human,
                Some(k) => AccountKind::parse(k)
                    .ok_or_else(|| bad("account/bad_kind", "kind is \"human\" or \"bot\""))?,
            };
            let account = accounts
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
        ApiRoute::Login => {
            let c: Credentials = parse(body)?;
            let account = accounts
                .login(&c.name, Password::new(c.password), req.peer, req.secure)
                .await?;
            let session = accounts.start_session(&account).await?;
            Ok(Answer {
                headers: cookie(req.secure, session.reveal(), SESSION_LIFETIME.as_secs()),
                ..Answer::json(200, json!({"name": account.name, "kind": account.kind}))
            })
        }
        ApiRoute::Logout => {
            if let Some(session) = session_cookie(head) {
                accounts.end_session(session).await?;
            }
            Ok(Answer {
                headers: cookie(req.secure, "", 0),
                ..Answer::json(204, Value::Null)
            })
        }
        ApiRoute::CreateToken => {
            let account = who(head, req, true).await?;
            let label: Label = if body.is_empty() {
                Label::default()
            } else {
                parse(body)?
            };
            let (token, id) = accounts.create_token(&account, &label.label).await?;
            tracing::info!(account = %account.name, id, "API token created");
            Ok(Answer::json(
                201,
                json!({"token": token.reveal(), "id": id}),
            ))
        }
        ApiRoute::ListTokens => {
            let account = who(head, req, false).await?;
            let tokens = accounts.tokens(&account).await?;
            Ok(Answer::json(200, json!({"tokens": tokens})))
        }
        ApiRoute::RevokeToken(id) => {
            let account = who(head, req, false).await?;
            accounts.revoke_token(&account, id).await?;
            tracing::info!(account = %account.name, id, "API token revoked");
            Ok(Answer::json(204, Value::Null))
        }
        ApiRoute::Player(name) => Ok(Answer::json(
            200,
            super::player::page(req.accounts, req.store, &name, crate::clock::now_ms()).await?,
        )),
        ApiRoute::PlayerHistory(query) => Ok(Answer::json(
            200,
            super::player::history(req.accounts, req.store, query?).await?,
        )),
        ApiRoute::Ratings(route) => {
            match super::ratings::answer(route?, req.store, crate::clock::now_ms()).await? {
                super::ratings::Reply::Json(body) => Ok(Answer::json(200, body)),
                super::ratings::Reply::Lines(lines) => Ok(Answer {
                    lines: Some(lines),
                    ..Answer::json(200, Value::Null)
                }),
            }
        }
        ApiRoute::Tournaments(t) => {
            // The list says what the caller entered, when it is signed in.
            let account = if t.changes() {
                Some(who(head, req, false).await?)
            } else if t == super::tournaments::TournamentRoute::List {
                who(head, req, false).await.ok()
            } else {
                None
            };
            let (status, body) =
                super::tournaments::answer(t, account, body, req.tournaments).await?;
            Ok(Answer::json(status, body))
        }
        ApiRoute::Ladder(l) => {
            let account = if l.changes() {
                Some(who(head, req, false).await?)
            } else {
                None
            };
            let ladder = req.ladder;
            let (status, body) =
                super::ladder::answer(l, account, ladder, crate::clock::now_ms()).await?;
            Ok(Answer::json(status, body))
        }
        ApiRoute::MethodNotAllowed(allowed) => Ok(Answer {
            headers: format!("Allow: {allowed}\r\n"),
            ..Answer::error(&AuthError::new(
                405,
                "http/method_not_allowed",
                format!("this path takes {allowed}"),
            ))
        }),
        ApiRoute::NotFound => Err(AuthError::new(404, "http/not_found", "no such path")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_paths_and_methods_are_routed() {
        assert_eq!(route("POST", "/api/accounts"), Some(ApiRoute::Register));
        assert_eq!(
            route("GET", "/api/accounts"),
            Some(ApiRoute::MethodNotAllowed("POST"))
        );
        assert_eq!(
            route("DELETE", "/api/tokens/12"),
            Some(ApiRoute::RevokeToken(12))
        );
        assert_eq!(route("DELETE", "/api/tokens/x"), Some(ApiRoute::NotFound));
        assert_eq!(
            route("GET", "/api/players/Alice?x"),
            Some(ApiRoute::Player("Alice".into()))
        );
        assert_eq!(
            route("GET", "/api/players/Alice/history?pool=nimrod"),
            Some(ApiRoute::PlayerHistory(Ok(
                super::super::player::HistoryQuery {
                    name: "Alice".into(),
                    pool: parlor_games::GameKind::Nimrod
                }
            )))
        );
        assert!(matches!(
            route("GET", "/api/players/Alice/history"),
            Some(ApiRoute::PlayerHistory(Err(e))) if e.status == 400
        ));
        assert_eq!(
            route("POST", "/api/players/Alice/history?pool=nimrod"),
            Some(ApiRoute::MethodNotAllowed("GET"))
        );
        for bad in [
            "/api/players//history?pool=nimrod",
            "/api/players/a/b/history",
        ] {
            assert!(matches!(
                route("GET", bad),
                Some(ApiRoute::PlayerHistory(Err(e))) if e.status == 404
            ));
        }
        assert_eq!(route("GET", "/api/replay/abc"), None);
        assert_eq!(route("GET", "/index.html"), None);
    }

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
