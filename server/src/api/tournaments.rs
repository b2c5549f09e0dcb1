//! The tournaments API: list, create, show, join, leave.
//!
//! - `GET /api/tournaments`: `{"upcoming": [...], "running": [...],
//!   "finished": [...]}`, each a list of summaries, newest first.
//! - `POST /api/tournaments` (authenticated): the event to create
//!   (`NewTournament`); `201 {"id"}`.
//! - `GET /api/tournaments/ID`: its page (`TournamentInfo`).
//! - `POST /api/tournaments/ID/join` and `/leave` (authenticated): the
//!   page after the change.

use parlor_protocol::NewTournament;
use serde_json::{json, Value};

use super::error::{ApiError, SignIn};
use crate::accounts::store::Account;
use crate::tournaments::Tournaments;

/// Where tournaments are listed and created.
pub const TOURNAMENTS_PATH: &str = "/api/tournaments";

/// A tournaments endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TournamentRoute {
    /// `GET /api/tournaments`.
    List,
    /// `POST /api/tournaments`.
    Create,
    /// `GET /api/tournaments/ID`.
    Show(String),
    /// `POST /api/tournaments/ID/join`.
    Join(String),
    /// `POST /api/tournaments/ID/leave`.
    Leave(String),
}

impl TournamentRoute {
    /// Whether it acts for an account (and so needs one).
    pub fn changes(&self) -> bool {
        !matches!(self, TournamentRoute::List | TournamentRoute::Show(_))
    }
}

/// An id as events have them: a dozen lowercase hex digits.
pub(super) fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 32 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The endpoint `method` `path` asks for: `None` if the path is not under
/// `/api/tournaments`; `Err(allowed)` for a method the path does not take;
/// `Ok(None)` for a malformed path below it.
pub fn route(method: &str, path: &str) -> Option<Result<Option<TournamentRoute>, &'static str>> {
    let rest = path.strip_prefix(TOURNAMENTS_PATH)?;
    let only = |m: &'static str, r: TournamentRoute| {
        if method == m {
            Ok(Some(r))
        } else {
            Err(m)
        }
    };
    if rest.is_empty() {
        return Some(match method {
            "GET" => Ok(Some(TournamentRoute::List)),
            "POST" => Ok(Some(TournamentRoute::Create)),
            _ => Err("GET, POST"),
        });
    }
    let rest = rest.strip_prefix('/')?;
    let mut parts = rest.splitn(2, '/');
    let id = parts.next().unwrap_or_default();
    if !valid_id(id) {
        return Some(Ok(None));
    }
    let id = id.to_owned();
    Some(match parts.next() {
        None => only("GET", TournamentRoute::Show(id)),
        Some("join") => only("POST", TournamentRoute::Join(id)),
        Some("leave") => only("POST", TournamentRoute::Leave(id)),
        Some(_) => Ok(None),
    })
}

/// Answers `route` for `account` (present when the route changes
/// something) with the request's `body`, from the client address `peer`:
/// status and JSON.
pub async fn answer(
    route: TournamentRoute,
    account: Option<Account>,
    body: &[u8],
    events: &Tournaments,
    peer: std::net::IpAddr,
) -> Result<(u16, Value), ApiError> {
    let viewer = account.as_ref().map(|a| a.name.clone());
    let account = || account.clone().ok_or(ApiError::SignIn(SignIn::Tournaments));
    let page = |info| serde_json::to_value(info).unwrap_or(Value::Null);
    match route {
        TournamentRoute::List => {
            let mut out = serde_json::Map::new();
            for (status, list) in events.list(viewer.as_deref()).await? {
                out.insert(status.as_str().to_owned(), json!(list));
            }
            Ok((200, Value::Object(out)))
        }
        TournamentRoute::Create => {
            let by = account()?;
            let req: NewTournament =
                serde_json::from_slice(body).map_err(|e| ApiError::BadTournament(e.to_string()))?;
            let id = events.create(req, &by.name, Some(peer)).await?;
            Ok((201, json!({"id": id})))
        }
        TournamentRoute::Show(id) => Ok((200, page(events.info(&id).await?))),
        TournamentRoute::Join(id) => {
            let by = account()?;
            events.join(&id, &by.name, by.kind).await?;
            Ok((200, page(events.info(&id).await?)))
        }
        TournamentRoute::Leave(id) => {
            let by = account()?;
            events.leave(&id, &by.name).await?;
            Ok((200, page(events.info(&id).await?)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_methods() {
        use TournamentRoute::*;
        assert_eq!(route("GET", "/api/tournaments"), Some(Ok(Some(List))));
        assert_eq!(route("POST", "/api/tournaments"), Some(Ok(Some(Create))));
        assert_eq!(route("PUT", "/api/tournaments"), Some(Err("GET, POST")));
        assert_eq!(
            route("GET", "/api/tournaments/ab12"),
            Some(Ok(Some(Show("ab12".into()))))
        );
        assert_eq!(
            route("POST", "/api/tournaments/ab12/join"),
            Some(Ok(Some(Join("ab12".into()))))
        );
        assert_eq!(
            route("GET", "/api/tournaments/ab12/leave"),
            Some(Err("POST"))
        );
        assert_eq!(route("GET", "/api/tournaments/a.b"), Some(Ok(None)));
        assert_eq!(route("GET", "/api/tournaments/ab/x"), Some(Ok(None)));
        assert_eq!(route("GET", "/api/tournamentsx"), None);
        assert_eq!(route("GET", "/api/players/x"), None);
    }
}
