//! The reports API.
//!
//! - `POST /api/reports` (any signed-in account): `{"player", "reason":
//!   "cheat"|"abuse"|"boost"|"other", "room"?, "text", "event"?,
//!   "message"?}`; `201 {"id"}`. `event` and `message` name a message of
//!   a tournament's chat, said by `player`: the server quotes it at the
//!   head of the report's text, as it was kept (so the moderators read
//!   what was said, not the reporter's copy of it).
//!   Refused `report/bad_request` (400), `report/too_many` (429, with
//!   `retry_after_ms`), `report/duplicate` (409).
//! - `GET /api/mod/reports?status=open|all&after=ID&before=ID`
//!   (moderators): `{"reports": [...]}`, open ones oldest first after
//!   `after`, or all newest first before `before`.
//! - `POST /api/mod/reports/ID/resolve` (moderators): `{"action":
//!   "dismissed"|"actioned", "reason", "text"}`; `200 {"id", "resolution"}`,
//!   the resolution appended to the moderation log. An unknown or
//!   resolved id is `404 mod/report_not_found`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::error::ApiError;
use super::query::param;
use super::serve::ApiRequest;
use crate::accounts::store::Account;
use crate::moderation::{moderator, ModError, ModReason, MAX_MOD_TEXT_CHARS};
use crate::reports::{ReportAsk, ReportStatus, Reports, Resolution};

/// Where players file reports.
pub const REPORTS_PATH: &str = "/api/reports";

/// Where moderators read the queue.
pub const MOD_REPORTS_PATH: &str = "/api/mod/reports";

/// A reports endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportRoute {
    /// `POST /api/reports`.
    File,
    /// `GET /api/mod/reports` (a malformed query: why).
    Queue(Result<QueueQuery, String>),
    /// `POST /api/mod/reports/ID/resolve`.
    Resolve(i64),
}

impl ReportRoute {
    /// Whether it changes something.
    pub fn changes(&self) -> bool {
        !matches!(self, ReportRoute::Queue(_))
    }
}

/// Which page of the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueQuery {
    /// Open ones or all.
    pub status: ReportStatus,
    /// The cursor: `after` for open ones, `before` for all.
    pub cursor: Option<i64>,
}

/// The endpoint `method` `path?query` asks for: `None` if the path is
/// none of the reports'; `Err(allowed)` for a method the path does not
/// take; `Ok(None)` for a malformed path below `/api/mod/reports/`.
pub fn route(
    method: &str,
    path: &str,
    query: &str,
) -> Option<Result<Option<ReportRoute>, &'static str>> {
    let only = |m: &'static str, r: ReportRoute| if method == m { Ok(Some(r)) } else { Err(m) };
    if path == REPORTS_PATH {
        return Some(only("POST", ReportRoute::File));
    }
    let rest = path.strip_prefix(MOD_REPORTS_PATH)?;
    if rest.is_empty() {
        return Some(only("GET", ReportRoute::Queue(queue_query(query))));
    }
    let rest = rest.strip_prefix('/')?;
    Some(match rest.split_once('/') {
        Some((id, "resolve")) => match id.parse::<i64>() {
            Ok(id) if id > 0 => only("POST", ReportRoute::Resolve(id)),
            _ => Ok(None),
        },
        _ => Ok(None),
    })
}

/// The queue's query: `status` (`open`, the default, or `all`) and its
/// cursor.
fn queue_query(query: &str) -> Result<QueueQuery, String> {
    let status = match param(query, "status") {
        None | Some("open") => ReportStatus::Open,
        Some("all") => ReportStatus::All,
        Some(_) => return Err("status is \"open\" or \"all\"".into()),
    };
    let name = match status {
        ReportStatus::Open => "after",
        ReportStatus::All => "before",
    };
    let cursor = match param(query, name) {
        None => None,
        Some(v) => Some(
            v.parse::<i64>()
                .map_err(|_| format!("{name} is a report id"))?,
        ),
    };
    Ok(QueueQuery { status, cursor })
}

/// A resolution as the moderator sent it (words, checked here).
#[derive(Deserialize)]
struct ResolveAsk {
    action: String,
    reason: String,
    #[serde(default)]
    text: String,
}

/// Answers `route` for `account` at `now_ms`: status and JSON.
pub async fn answer(
    route: ReportRoute,
    account: Account,
    body: &[u8],
    req: ApiRequest<'_>,
    now_ms: u64,
) -> Result<(u16, Value), ApiError> {
    let reports = Reports::new(req.store.beside());
    let now_ms = i64::try_from(now_ms).unwrap_or(i64::MAX);
    match route {
        ReportRoute::File => {
            let ask: ReportAsk = serde_json::from_slice(body).map_err(|_| {
                ModError::BadReport(
                    "the body is {\"player\", \"reason\", \"room\"?, \"text\"}".into(),
                )
            })?;
            let mut checked = ask.check(&account.name)?;
            let player = req
                .accounts
                .store()
                .by_name(&ask.player)
                .await
                .map_err(ModError::from)?
                .ok_or_else(|| {
                    ModError::BadReport(format!("no account is named {:?}", ask.player))
                })?;
            if let Some(quote) = quoted(&ask, &player.name, req).await? {
                checked.text = if checked.text.is_empty() {
                    quote
                } else {
                    format!("{quote}\n{}", checked.text)
                };
            }
            let id = reports
                .file(&account.name, &player.name, checked, now_ms)
                .await?;
            Ok((201, json!({ "id": id })))
        }
        ReportRoute::Queue(query) => {
            moderator(account)?;
            let query = query.map_err(ModError::BadRequest)?;
            let list = reports
                .list(query.status, query.cursor)
                .await
                .map_err(ModError::from)?;
            Ok((200, json!({ "reports": list })))
        }
        ReportRoute::Resolve(id) => {
            let account = moderator(account)?;
            let ask: ResolveAsk = serde_json::from_slice(body).map_err(|_| {
                ModError::BadRequest("the body is {\"action\", \"reason\", \"text\"}".into())
            })?;
            let resolution = Resolution::parse(&ask.action).ok_or_else(|| {
                ModError::BadRequest("action is \"dismissed\" or \"actioned\"".into())
            })?;
            let reason = ModReason::parse(&ask.reason).ok_or_else(|| {
                ModError::BadRequest(format!(
                    "reason is one of {}",
                    ModReason::ALL.map(ModReason::as_str).join(", ")
                ))
            })?;
            if ask.text.chars().count() > MAX_MOD_TEXT_CHARS {
                return Err(ModError::BadRequest(format!(
                    "text has at most {MAX_MOD_TEXT_CHARS} characters"
                ))
                .into());
            }
            reports
                .resolve(id, &account.name, (resolution, reason, ask.text), now_ms)
                .await?;
            Ok((200, json!({ "id": id, "resolution": resolution })))
        }
    }
}

/// The event chat's message a report names (`event` and `message`),
/// quoted for the moderators; `None` if it names none. Refused unless
/// both are given and the message is there, said by `player`.
async fn quoted(
    ask: &ReportAsk,
    player: &str,
    req: ApiRequest<'_>,
) -> Result<Option<String>, ModError> {
    let (event, id) = match (&ask.event, ask.message) {
        (None, None) => return Ok(None),
        (Some(event), Some(id)) => (event, id),
        _ => {
            return Err(ModError::BadReport(
                "event and message name a message of an event's chat together".into(),
            ))
        }
    };
    let chat = crate::chat::EventChat::new(req.store.beside());
    let Some((line, speaker_key)) = chat.line(event, id).await? else {
        return Err(ModError::BadReport(format!(
            "event {event:?} has no chat message {id}"
        )));
    };
    if speaker_key != crate::accounts::name_key(player) {
        return Err(ModError::BadReport(format!(
            "message {id} of that chat was said by {}, not {player}",
            line.name
        )));
    }
    Ok(Some(format!(
        "[event {event} chat, message {id} at {} ms] {}: {}",
        line.at_ms, line.name, line.text
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_methods_and_queries() {
        use ReportRoute::*;
        assert_eq!(route("POST", "/api/reports", ""), Some(Ok(Some(File))));
        assert_eq!(route("GET", "/api/reports", ""), Some(Err("POST")));
        assert_eq!(
            route("GET", "/api/mod/reports", ""),
            Some(Ok(Some(Queue(Ok(QueueQuery {
                status: ReportStatus::Open,
                cursor: None
            })))))
        );
        assert_eq!(
            route("GET", "/api/mod/reports", "status=all&before=9"),
            Some(Ok(Some(Queue(Ok(QueueQuery {
                status: ReportStatus::All,
                cursor: Some(9)
            })))))
        );
        assert!(matches!(
            route("GET", "/api/mod/reports", "status=closed"),
            Some(Ok(Some(Queue(Err(_)))))
        ));
        assert!(matches!(
            route("GET", "/api/mod/reports", "after=x"),
            Some(Ok(Some(Queue(Err(_)))))
        ));
        assert_eq!(
            route("POST", "/api/mod/reports/12/resolve", ""),
            Some(Ok(Some(Resolve(12))))
        );
        assert_eq!(
            route("GET", "/api/mod/reports/12/resolve", ""),
            Some(Err("POST"))
        );
        assert_eq!(
            route("POST", "/api/mod/reports/x/resolve", ""),
            Some(Ok(None))
        );
        assert_eq!(route("POST", "/api/mod/reports/12", ""), Some(Ok(None)));
        assert_eq!(route("GET", "/api/mod/reportsx", ""), None);
        assert_eq!(route("GET", "/api/mod/log", ""), None);
    }
}
