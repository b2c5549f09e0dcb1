//! The follows API (any signed-in account, for itself).
//!
//! - `GET /api/follows`: `{"follows": [{"player", "at_ms", "online",
//!   "playing": [game entries]}]}`, by name: whether each is connected
//!   now (on any node of a cluster), and the unfinished games it sits in
//!   that have started (to watch, or to know it is busy).
//! - `POST /api/follows/NAME`: `201 {"player", "following": true}`
//!   (following again is the same answer). Refused `follow/bad_request`
//!   (400) for an unknown player, oneself, or past
//!   `MAX_FOLLOWS_PER_ACCOUNT`.
//! - `DELETE /api/follows/NAME`: `204`, whether or not it was followed.

use parlor_protocol::RoomStatus;
use serde_json::{json, Value};

use super::error::ApiError;
use super::serve::ApiRequest;
use crate::accounts::name_key;
use crate::accounts::store::Account;
use crate::follows::{FollowError, Follows};

/// Where an account's follows are listed.
pub const FOLLOWS_PATH: &str = "/api/follows";

/// The most games of one followed player the list shows: a player is
/// rarely in more at once, and correspondence players' lists stay short.
const GAMES_SHOWN: usize = 10;

/// A follows endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FollowRoute {
    /// `GET /api/follows`.
    List,
    /// `POST /api/follows/NAME`.
    Follow(String),
    /// `DELETE /api/follows/NAME`.
    Unfollow(String),
}

impl FollowRoute {
    /// Whether it changes something.
    pub fn changes(&self) -> bool {
        !matches!(self, FollowRoute::List)
    }
}

/// The endpoint `method` `path` asks for: `None` if the path is not under
/// `/api/follows`; `Err(allowed)` for a method the path does not take;
/// `Ok(None)` for a malformed path below it.
pub fn route(method: &str, path: &str) -> Option<Result<Option<FollowRoute>, &'static str>> {
    let rest = path.strip_prefix(FOLLOWS_PATH)?;
    if rest.is_empty() {
        return Some(if method == "GET" {
            Ok(Some(FollowRoute::List))
        } else {
            Err("GET")
        });
    }
    let name = rest.strip_prefix('/')?;
    if name.is_empty() || name.contains('/') {
        return Some(Ok(None));
    }
    let name = name.to_owned();
    Some(match method {
        "POST" => Ok(Some(FollowRoute::Follow(name))),
        "DELETE" => Ok(Some(FollowRoute::Unfollow(name))),
        _ => Err("POST, DELETE"),
    })
}

/// Answers `route` for `account` at `now_ms`: status and JSON.
pub async fn answer(
    route: FollowRoute,
    account: Account,
    req: ApiRequest<'_>,
    now_ms: u64,
) -> Result<(u16, Value), ApiError> {
    let follows = Follows::new(req.store.beside());
    match route {
        FollowRoute::List => {
            let list = follows
                .list(&account.name)
                .await
                .map_err(FollowError::from)?;
            let keys: Vec<String> = list.iter().map(|f| name_key(&f.player)).collect();
            let online = req
                .matchmaker
                .online_among(&keys)
                .await
                .map_err(FollowError::from)?;
            let mut out = Vec::with_capacity(list.len());
            for (f, key) in list.into_iter().zip(keys) {
                let playing: Vec<Value> = req
                    .store
                    .games_of(&key, GAMES_SHOWN)
                    .await
                    .map_err(FollowError::from)?
                    .into_iter()
                    .map(crate::store::AccountGame::into_entry)
                    .filter(|g| g.status == RoomStatus::Playing)
                    .map(|g| {
                        json!({
                            "room": g.room, "game": g.game, "players": g.players,
                            "rated": g.rated, "clock": g.clock,
                        })
                    })
                    .collect();
                out.push(json!({
                    "player": f.player,
                    "at_ms": f.at_ms,
                    "online": online.contains(&key),
                    "playing": playing,
                }));
            }
            Ok((200, json!({ "follows": out })))
        }
        FollowRoute::Follow(name) => {
            let player = req
                .accounts
                .store()
                .by_name(&name)
                .await
                .map_err(FollowError::from)?
                .ok_or_else(|| FollowError::Refused(format!("no account is named {name:?}")))?;
            let now_ms = i64::try_from(now_ms).unwrap_or(i64::MAX);
            follows.follow(&account.name, &player.name, now_ms).await?;
            Ok((201, json!({ "player": player.name, "following": true })))
        }
        FollowRoute::Unfollow(name) => {
            follows
                .unfollow(&account.name, &name)
                .await
                .map_err(FollowError::from)?;
            Ok((204, Value::Null))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_methods() {
        use FollowRoute::*;
        assert_eq!(route("GET", "/api/follows"), Some(Ok(Some(List))));
        assert_eq!(route("POST", "/api/follows"), Some(Err("GET")));
        assert_eq!(
            route("POST", "/api/follows/Bob"),
            Some(Ok(Some(Follow("Bob".into()))))
        );
        assert_eq!(
            route("DELETE", "/api/follows/Bob"),
            Some(Ok(Some(Unfollow("Bob".into()))))
        );
        assert_eq!(route("GET", "/api/follows/Bob"), Some(Err("POST, DELETE")));
        assert_eq!(route("POST", "/api/follows/"), Some(Ok(None)));
        assert_eq!(route("POST", "/api/follows/a/b"), Some(Ok(None)));
        assert_eq!(route("GET", "/api/followsx"), None);
    }
}
