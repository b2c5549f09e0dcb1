//! The tournaments API over HTTP: the list and an event's page (public
//! GETs, any server URL form), and the calls that act as an account
//! (create, join, leave; a bearer token, over `ws://`/`http://` as the
//! account API is reached).

use parlor_protocol::{NewTournament, TournamentInfo, TournamentSummary};
use serde::Deserialize;
use serde_json::Value;

use crate::account::{self, Auth};
use crate::api;

/// Largest page read: 64 players (the server's limit) in a four-cycle
/// round robin play 252 rounds of 32 games, about 100 bytes each, twice
/// that with duplicate sets: under 2 MB.
pub const MAX_PAGE_BYTES: usize = 4 * 1024 * 1024;

/// Largest list read: three lists of at most 50 summaries of a few
/// hundred bytes.
const MAX_LIST_BYTES: usize = 256 * 1024;

/// `GET /api/tournaments`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Listing {
    /// Taking entries.
    #[serde(default)]
    pub upcoming: Vec<TournamentSummary>,
    /// Being played.
    #[serde(default)]
    pub running: Vec<TournamentSummary>,
    /// Over.
    #[serde(default)]
    pub finished: Vec<TournamentSummary>,
}

/// The path of event `id` (and of `what` below it, if given).
fn path(id: &str, what: Option<&str>) -> String {
    let base = format!("/api/tournaments/{}", api::escape(id));
    what.map_or_else(|| base.clone(), |w| format!("{base}/{w}"))
}

/// The events on the server at `url`, as JSON, every field kept.
pub async fn list_json(url: &str) -> Result<Value, String> {
    let a = api::get(url, "/api/tournaments", MAX_LIST_BYTES).await?;
    if a.status != 200 {
        return Err(a.refusal());
    }
    serde_json::from_slice(&a.body).map_err(|e| format!("the list of events is not readable: {e}"))
}

/// Event `id`'s page as JSON, every field kept.
pub async fn page_json(url: &str, id: &str) -> Result<Value, String> {
    let a = api::get(url, &path(id, None), MAX_PAGE_BYTES).await?;
    if a.status != 200 {
        return Err(a.refusal());
    }
    serde_json::from_slice(&a.body)
        .map_err(|e| format!("the page of event {id} is not readable: {e}"))
}

/// Event `id`'s page.
pub async fn page(url: &str, id: &str) -> Result<TournamentInfo, String> {
    let v = page_json(url, id).await?;
    serde_json::from_value(v).map_err(|e| format!("the page of event {id} is not readable: {e}"))
}

/// Creates `event` as the account of `token`; its id.
pub async fn create(url: &str, token: &str, event: &NewTournament) -> Result<String, String> {
    let body = serde_json::to_value(event).map_err(|e| e.to_string())?;
    let auth = Auth::Bearer(token.to_owned());
    let (status, v) = account::call(url, "POST", "/api/tournaments", &auth, Some(&body)).await?;
    if status != 201 {
        return Err(account::refusal(status, &v));
    }
    v["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "the server's answer has no id".into())
}

/// Whether to enter an event or to leave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `POST .../join`.
    Join,
    /// `POST .../leave`.
    Leave,
}

/// Enters event `id` or leaves it as the account of `token`.
pub async fn entry(url: &str, token: &str, id: &str, what: Entry) -> Result<(), String> {
    let word = match what {
        Entry::Join => "join",
        Entry::Leave => "leave",
    };
    let auth = Auth::Bearer(token.to_owned());
    let (status, v) = account::call(url, "POST", &path(id, Some(word)), &auth, None).await?;
    if status != 200 {
        return Err(account::refusal(status, &v));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_escaped_into_their_paths() {
        assert_eq!(path("ab12", None), "/api/tournaments/ab12");
        assert_eq!(path("ab12", Some("join")), "/api/tournaments/ab12/join");
        assert_eq!(path("a/b", None), "/api/tournaments/a%2Fb");
    }
}
