//! The bot ladder's API.
//!
//! - `GET /api/ladder`: every game's ladder, `[{"game", "entrants",
//!   "playing"}]`.
//! - `GET /api/ladder/GAME`: the game's ladder page (`LadderInfo`); an
//!   unknown game is `404 ladder/unknown_game`.
//! - `POST /api/ladder/GAME/join` and `/leave` (authenticated, a bot
//!   account): `{"game", "entered"}`.

use serde_json::{json, Value};

use super::error::{ApiError, SignIn};
use crate::accounts::store::Account;
use crate::ladder::{game_named, Ladder};

/// Where the ladders are listed.
pub const LADDER_PATH: &str = "/api/ladder";

/// A ladder endpoint (the game as given: checked when answered, so that
/// an unknown one gets the ladder's own code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LadderRoute {
    /// `GET /api/ladder`.
    List,
    /// `GET /api/ladder/GAME`.
    Show(String),
    /// `POST /api/ladder/GAME/join`.
    Join(String),
    /// `POST /api/ladder/GAME/leave`.
    Leave(String),
}

impl LadderRoute {
    /// Whether it acts for an account (and so needs one).
    pub fn changes(&self) -> bool {
        matches!(self, LadderRoute::Join(_) | LadderRoute::Leave(_))
    }
}

/// The endpoint `method` `path` asks for: `None` if the path is not under
/// `/api/ladder`; `Err(allowed)` for a method the path does not take;
/// `Ok(None)` for a malformed path below it.
pub fn route(method: &str, path: &str) -> Option<Result<Option<LadderRoute>, &'static str>> {
    let rest = path.strip_prefix(LADDER_PATH)?;
    let only = |m: &'static str, r: LadderRoute| if method == m { Ok(Some(r)) } else { Err(m) };
    if rest.is_empty() {
        return Some(only("GET", LadderRoute::List));
    }
    let rest = rest.strip_prefix('/')?;
    let mut parts = rest.splitn(2, '/');
    let game = parts.next().unwrap_or_default().to_owned();
    if game.is_empty() {
        return Some(Ok(None));
    }
    Some(match parts.next() {
        None => only("GET", LadderRoute::Show(game)),
        Some("join") => only("POST", LadderRoute::Join(game)),
        Some("leave") => only("POST", LadderRoute::Leave(game)),
        Some(_) => Ok(None),
    })
}

/// Answers `route` for `account` (present when the route changes
/// something) at `now_ms`: status and JSON.
pub async fn answer(
    route: LadderRoute,
    account: Option<Account>,
    ladder: &Ladder,
    now_ms: u64,
) -> Result<(u16, Value), ApiError> {
    let account = || account.clone().ok_or(ApiError::SignIn(SignIn::Ladder));
    match route {
        LadderRoute::List => Ok((200, json!(ladder.list().await?))),
        LadderRoute::Show(game) => {
            let game = game_named(&game)?;
            let info = ladder.info(game, now_ms).await?;
            Ok((200, serde_json::to_value(info).unwrap_or(Value::Null)))
        }
        LadderRoute::Join(game) => {
            let by = account()?;
            let game = game_named(&game)?;
            ladder.join(game, &by).await?;
            Ok((200, json!({"game": game, "entered": true})))
        }
        LadderRoute::Leave(game) => {
            let by = account()?;
            let game = game_named(&game)?;
            ladder.leave(game, &by).await?;
            Ok((200, json!({"game": game, "entered": false})))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_methods() {
        use LadderRoute::*;
        assert_eq!(route("GET", "/api/ladder"), Some(Ok(Some(List))));
        assert_eq!(route("POST", "/api/ladder"), Some(Err("GET")));
        assert_eq!(
            route("GET", "/api/ladder/nimrod"),
            Some(Ok(Some(Show("nimrod".into()))))
        );
        assert_eq!(
            route("POST", "/api/ladder/nimrod/join"),
            Some(Ok(Some(Join("nimrod".into()))))
        );
        assert_eq!(
            route("POST", "/api/ladder/nimrod/leave"),
            Some(Ok(Some(Leave("nimrod".into()))))
        );
        assert_eq!(route("GET", "/api/ladder/nimrod/join"), Some(Err("POST")));
        assert_eq!(route("GET", "/api/ladder/nimrod/x"), Some(Ok(None)));
        assert_eq!(route("GET", "/api/ladder/"), Some(Ok(None)));
        assert_eq!(route("GET", "/api/ladders"), None);
    }
}
