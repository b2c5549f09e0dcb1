//! Answering a JSON endpoint: its body read whole (so the connection can
//! be kept alive after it), the cookie's origin checked, the endpoint's
//! handler run, and its answer or its [`ApiError`] written as JSON.

use std::net::IpAddr;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use super::auth::{origin_allowed, session_cookie, who};
use super::error::ApiError;
use super::route::Endpoint;
use super::tournaments::TournamentRoute;
use crate::accounts::Accounts;
use crate::http::{connection_header, deliver, read_body, reason, Head};

/// Largest request body: a name, a password of at most 1024 bytes and a
/// label fit in well under this; anything larger is not an account
/// request.
pub const MAX_API_BODY_BYTES: usize = 4 * 1024;

/// Most time a request's body may take to arrive after its head: a body
/// is a few hundred bytes, sent with the head.
pub const API_BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

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
    /// The rooms (for what moderation does to an account's matches).
    pub directory: &'a crate::directory::Directory,
    /// Who is connected (for the players an account follows).
    pub matchmaker: &'a crate::matchmaking::Matchmaker,
    /// The client's address.
    pub peer: IpAddr,
    /// Whether the request came over TLS: native (`--tls-cert`), or from a
    /// trusted proxy saying `X-Forwarded-Proto: https` (see `Peer`).
    pub secure: bool,
}

/// An answer: status, JSON body, extra header lines; or, for the
/// ratings ledger, newline-delimited JSON lines instead of the body.
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) body: Value,
    pub(super) headers: String,
    pub(super) lines: Option<Vec<u8>>,
}

impl Answer {
    /// `body` with `status`.
    pub(super) fn json(status: u16, body: Value) -> Self {
        Answer {
            status,
            body,
            headers: String::new(),
            lines: None,
        }
    }

    fn error(e: &ApiError) -> Self {
        Answer {
            status: e.status_and_code().0,
            body: e.body(),
            headers: e.headers(),
            lines: None,
        }
    }
}

/// Answers the API request `head` (routed to `endpoint`) on `stream`;
/// the bytes read past its body if the connection stays open, else
/// `None`.
pub async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    head: &Head,
    endpoint: Endpoint,
    req: ApiRequest<'_>,
    keep_alive: bool,
) -> Option<Vec<u8>> {
    let (answer, rest) = match read_body(stream, head, MAX_API_BODY_BYTES, API_BODY_TIMEOUT).await {
        Ok((body, rest)) => (handle(head, endpoint, &body, req).await, Some(rest)),
        Err(e) => (Answer::error(&e.into()), None),
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
    let text = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n{headers}{}\r\n",
        reason(status),
        body.len(),
        connection_header(keep_alive),
    );
    if deliver(stream, text.as_bytes(), &body, keep_alive).await {
        rest
    } else {
        None
    }
}

async fn handle(head: &Head, endpoint: Endpoint, body: &[u8], req: ApiRequest<'_>) -> Answer {
    match dispatch(head, endpoint, body, req).await {
        Ok(answer) => answer,
        Err(e) => Answer::error(&e),
    }
}

async fn dispatch(
    head: &Head,
    endpoint: Endpoint,
    body: &[u8],
    req: ApiRequest<'_>,
) -> Result<Answer, ApiError> {
    if endpoint.changes()
        && session_cookie(head).is_some()
        && !origin_allowed(
            head.header("origin"),
            head.header("host"),
            req.secure,
            &req.accounts.settings().allow_origins,
        )
    {
        return Err(ApiError::BadOrigin);
    }
    let now_ms = crate::clock::now_ms();
    match endpoint {
        Endpoint::Register => super::accounts::register(body, req).await,
        Endpoint::Login => super::accounts::login(head, body, req).await,
        Endpoint::Logout => super::accounts::logout(head, req).await,
        Endpoint::ChangePassword => super::password::change(head, body, req).await,
        Endpoint::CreateToken => super::accounts::create_token(head, body, req).await,
        Endpoint::ListTokens => super::accounts::list_tokens(head, req).await,
        Endpoint::RevokeToken(id) => super::accounts::revoke_token(head, id, req).await,
        Endpoint::Player(name) => Ok(Answer::json(
            200,
            super::players::page(req.accounts, req.store, &name, now_ms).await?,
        )),
        Endpoint::PlayerHistory(query) => Ok(Answer::json(
            200,
            super::players::history(req.accounts, req.store, query?).await?,
        )),
        Endpoint::Ratings(route) => {
            match super::ratings::answer(route?, req.store, now_ms).await? {
                super::ratings::Reply::Json(body) => Ok(Answer::json(200, body)),
                super::ratings::Reply::Lines(lines) => Ok(Answer {
                    lines: Some(lines),
                    ..Answer::json(200, Value::Null)
                }),
            }
        }
        Endpoint::Logs(q) => Ok(Answer {
            lines: Some(super::logs::answer(q?, req.store).await),
            ..Answer::json(200, Value::Null)
        }),
        Endpoint::Tournaments(t) => {
            // The list says what the caller entered, when it is signed in.
            let account = if t.changes() {
                let account = who(head, req, false).await?;
                if matches!(t, TournamentRoute::Join(_)) {
                    super::moderation::refuse_banned(req, &account, now_ms).await?;
                }
                Some(account)
            } else if t == TournamentRoute::List {
                who(head, req, false).await.ok()
            } else {
                None
            };
            let (status, body) =
                super::tournaments::answer(t, account, body, req.tournaments, req.peer).await?;
            Ok(Answer::json(status, body))
        }
        Endpoint::EventChat(c) => {
            let (status, body) = super::event_chat::answer(c, head, body, req, now_ms).await?;
            Ok(Answer::json(status, body))
        }
        Endpoint::Ladder(l) => {
            let account = if l.changes() {
                let account = who(head, req, false).await?;
                if matches!(l, super::ladder::LadderRoute::Join(_)) {
                    super::moderation::refuse_banned(req, &account, now_ms).await?;
                }
                Some(account)
            } else {
                None
            };
            let ladder = req.ladder;
            let (status, body) = super::ladder::answer(l, account, ladder, now_ms).await?;
            Ok(Answer::json(status, body))
        }
        Endpoint::Reports(r) => {
            let account = who(head, req, false).await?;
            let (status, body) = super::reports::answer(r, account, body, req, now_ms).await?;
            Ok(Answer::json(status, body))
        }
        Endpoint::Blocks(b) => {
            let account = who(head, req, false).await?;
            let (status, body) = super::blocks::answer(b, account, req, now_ms).await?;
            Ok(Answer::json(status, body))
        }
        Endpoint::Follows(f) => {
            let account = who(head, req, false).await?;
            let (status, body) = super::follows::answer(f, account, req, now_ms).await?;
            Ok(Answer::json(status, body))
        }
        Endpoint::FairPlay(query) => {
            let account = who(head, req, false).await?;
            Ok(Answer::json(
                200,
                super::fairplay::answer(account, &query, req.store).await?,
            ))
        }
        Endpoint::Mod(m) => {
            let actor = who(head, req, false).await?;
            let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
            let body = super::moderation::answer(m, actor, body, req, now).await?;
            Ok(Answer::json(200, body))
        }
        Endpoint::MethodNotAllowed(allowed) => Err(ApiError::MethodNotAllowed(allowed)),
        Endpoint::NotFound => Err(ApiError::NotFound),
    }
}
