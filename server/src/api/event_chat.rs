//! The event chat API: a tournament page's conversation (see
//! `chat::event` for its rules).
//!
//! - `GET /api/tournaments/ID/chat?after=N`: `{"lines": [...], "open"}`:
//!   the messages after id `N` (oldest first), or without `after` the
//!   latest, at most `EVENT_CHAT_PAGE` either way; lines a block keeps
//!   from the signed-in reader are left out. `open`: whether the event
//!   still takes messages. Anyone may read, guests included.
//! - `POST /api/tournaments/ID/chat` (a signed-in account): `{"text"}` or
//!   `{"phrase"}`; `201` and the line as kept. Refused `auth/required`
//!   (401) for a guest, `chat/bad_text` (400), `chat/muted` (403, with
//!   `until_ms`), `chat/rate_limited` (429, with `retry_after_ms`),
//!   `chat/closed` (409) once the event is over, `tournament/not_found`
//!   (404).

use parlor_protocol::{Phrase, TournamentStatus};
use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::who;
use super::error::{ApiError, SignIn};
use super::query::param;
use super::serve::ApiRequest;
use super::tournaments::{valid_id, TOURNAMENTS_PATH};
use crate::chat::event::{EventChat, EventChatError, Said, Speaker};
use crate::http::Head;

/// What follows an event's path for its chat:
/// `/api/tournaments/ID/chat`.
pub const EVENT_CHAT_SUFFIX: &str = "/chat";

/// An event chat endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventChatRoute {
    /// `GET /api/tournaments/ID/chat?after=N`: the event, and `after`
    /// (`Err`: not a message id).
    Read(String, Result<Option<u64>, ()>),
    /// `POST /api/tournaments/ID/chat`.
    Say(String),
}

impl EventChatRoute {
    /// Whether it changes something.
    pub fn changes(&self) -> bool {
        matches!(self, EventChatRoute::Say(_))
    }
}

/// The endpoint `method` `path?query` asks for: `None` if the path is not
/// an event's chat; `Err(allowed)` for a method it does not take;
/// `Ok(None)` for a malformed event id.
pub fn route(
    method: &str,
    path: &str,
    query: &str,
) -> Option<Result<Option<EventChatRoute>, &'static str>> {
    let id = path
        .strip_prefix(TOURNAMENTS_PATH)?
        .strip_prefix('/')?
        .strip_suffix(EVENT_CHAT_SUFFIX)?;
    if id.contains('/') {
        return None;
    }
    if !valid_id(id) {
        return Some(Ok(None));
    }
    let id = id.to_owned();
    Some(match method {
        "GET" => {
            let after = match param(query, "after") {
                None => Ok(None),
                Some(n) => n.parse::<u64>().map(Some).map_err(|_| ()),
            };
            Ok(Some(EventChatRoute::Read(id, after)))
        }
        "POST" => Ok(Some(EventChatRoute::Say(id))),
        _ => Err("GET, POST"),
    })
}

/// A message as the client sent it (a phrase as text, so that an unknown
/// one is refused as a chat's, not as malformed JSON).
#[derive(Deserialize)]
struct SayAsk {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    phrase: Option<String>,
}

impl SayAsk {
    fn said(self) -> Result<Said, EventChatError> {
        match (self.text, self.phrase) {
            (Some(text), None) => Ok(Said::Text(text)),
            (None, Some(p)) => serde_json::from_value::<Phrase>(Value::String(p))
                .map(Said::Phrase)
                .map_err(|_| {
                    let names: Vec<String> = Phrase::ALL
                        .iter()
                        .filter_map(|p| serde_json::to_value(p).ok())
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect();
                    EventChatError::BadText(format!("phrase is one of {}", names.join(", ")))
                }),
            _ => Err(EventChatError::BadText(
                "say either a text or a phrase".into(),
            )),
        }
    }
}

/// Answers `route` (the request `head` with `body`) at `now_ms`: status
/// and JSON.
pub async fn answer(
    route: EventChatRoute,
    head: &Head,
    body: &[u8],
    req: ApiRequest<'_>,
    now_ms: u64,
) -> Result<(u16, Value), ApiError> {
    let chat = EventChat::new(req.store.beside());
    match route {
        EventChatRoute::Read(event, after) => {
            let after = after.map_err(|()| EventChatError::BadQuery)?;
            // Credentials that fail read as a guest's: the lines are public.
            let reader = who(head, req, false).await.ok();
            let info = req.tournaments.info(&event).await?;
            let lines = chat
                .read(&event, reader.as_ref().map(|a| a.name.as_str()), after)
                .await
                .map_err(EventChatError::from)?;
            Ok((200, json!({ "lines": lines, "open": open(info.status) })))
        }
        EventChatRoute::Say(event) => {
            let account = who(head, req, false).await.map_err(|e| match e {
                ApiError::SignIn(_) => ApiError::SignIn(SignIn::EventChat),
                other => other,
            })?;
            let ask: SayAsk = serde_json::from_slice(body).map_err(|_| ApiError::BadJson)?;
            let said = ask.said()?;
            let info = req.tournaments.info(&event).await?;
            if !open(info.status) {
                return Err(EventChatError::Closed.into());
            }
            let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
            let speaker = Speaker {
                name: &account.name,
                muted_until_ms: account.standing.muted_at(now),
            };
            let line = chat.say(&info.id, speaker, said, now).await?;
            Ok((201, json!(line)))
        }
    }
}

/// Whether an event with `status` takes messages: until it is over.
fn open(status: TournamentStatus) -> bool {
    matches!(
        status,
        TournamentStatus::Upcoming | TournamentStatus::Running
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_methods_and_queries() {
        use EventChatRoute::*;
        let path = "/api/tournaments/ab12/chat";
        assert_eq!(
            route("GET", path, ""),
            Some(Ok(Some(Read("ab12".into(), Ok(None)))))
        );
        assert_eq!(
            route("GET", path, "after=7"),
            Some(Ok(Some(Read("ab12".into(), Ok(Some(7))))))
        );
        assert_eq!(
            route("GET", path, "after=-1"),
            Some(Ok(Some(Read("ab12".into(), Err(())))))
        );
        assert_eq!(route("POST", path, ""), Some(Ok(Some(Say("ab12".into())))));
        assert_eq!(route("PUT", path, ""), Some(Err("GET, POST")));
        assert_eq!(
            route("GET", "/api/tournaments/a.b/chat", ""),
            Some(Ok(None))
        );
        assert_eq!(route("GET", "/api/tournaments/ab12", ""), None);
        assert_eq!(route("GET", "/api/tournaments/ab12/join", ""), None);
        assert_eq!(route("GET", "/api/tournaments/a/b/chat", ""), None);
    }

    #[test]
    fn a_body_says_a_text_or_a_known_phrase() {
        let ask = |v: Value| serde_json::from_value::<SayAsk>(v).map(SayAsk::said);
        assert!(matches!(ask(json!({"text": "hi"})), Ok(Ok(Said::Text(_)))));
        assert!(matches!(
            ask(json!({"phrase": "good_luck"})),
            Ok(Ok(Said::Phrase(Phrase::GoodLuck)))
        ));
        for bad in [
            json!({"phrase": "hello"}),
            json!({}),
            json!({"text": "a", "phrase": "thanks"}),
        ] {
            assert!(matches!(ask(bad), Ok(Err(EventChatError::BadText(_)))));
        }
    }
}
