//! The blocks API (any signed-in account, for itself).
//!
//! - `GET /api/blocks`: `{"blocks": [{"player", "at_ms"}]}`, by name.
//! - `POST /api/blocks/NAME`: `201 {"player", "blocked": true}` (blocking
//!   again is the same answer). Refused `block/bad_request` (400) for an
//!   unknown player, oneself, or past `MAX_BLOCKS_PER_ACCOUNT`.
//! - `DELETE /api/blocks/NAME`: `204`, whether or not it was blocked.

use serde_json::{json, Value};

use super::error::ApiError;
use super::serve::ApiRequest;
use crate::accounts::store::Account;
use crate::blocks::Blocks;
use crate::moderation::ModError;

/// Where an account's blocks are listed.
pub const BLOCKS_PATH: &str = "/api/blocks";

/// A blocks endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockRoute {
    /// `GET /api/blocks`.
    List,
    /// `POST /api/blocks/NAME`.
    Block(String),
    /// `DELETE /api/blocks/NAME`.
    Unblock(String),
}

impl BlockRoute {
    /// Whether it changes something.
    pub fn changes(&self) -> bool {
        !matches!(self, BlockRoute::List)
    }
}

/// The endpoint `method` `path` asks for: `None` if the path is not under
/// `/api/blocks`; `Err(allowed)` for a method the path does not take;
/// `Ok(None)` for a malformed path below it.
pub fn route(method: &str, path: &str) -> Option<Result<Option<BlockRoute>, &'static str>> {
    let rest = path.strip_prefix(BLOCKS_PATH)?;
    if rest.is_empty() {
        return Some(if method == "GET" {
            Ok(Some(BlockRoute::List))
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
        "POST" => Ok(Some(BlockRoute::Block(name))),
        "DELETE" => Ok(Some(BlockRoute::Unblock(name))),
        _ => Err("POST, DELETE"),
    })
}

/// Answers `route` for `account` at `now_ms`: status and JSON.
pub async fn answer(
    route: BlockRoute,
    account: Account,
    req: ApiRequest<'_>,
    now_ms: u64,
) -> Result<(u16, Value), ApiError> {
    let blocks = Blocks::new(req.store.beside());
    match route {
        BlockRoute::List => {
            let list = blocks.list(&account.name).await.map_err(ModError::from)?;
            Ok((200, json!({ "blocks": list })))
        }
        BlockRoute::Block(name) => {
            let player = req
                .accounts
                .store()
                .by_name(&name)
                .await
                .map_err(ModError::from)?
                .ok_or_else(|| ModError::BadBlock(format!("no account is named {name:?}")))?;
            let now_ms = i64::try_from(now_ms).unwrap_or(i64::MAX);
            blocks
                .block(&account.name, &player.name, now_ms)
                .await
                .map_err(ModError::from)?;
            Ok((201, json!({ "player": player.name, "blocked": true })))
        }
        BlockRoute::Unblock(name) => {
            blocks
                .unblock(&account.name, &name)
                .await
                .map_err(ModError::from)?;
            Ok((204, Value::Null))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_methods() {
        use BlockRoute::*;
        assert_eq!(route("GET", "/api/blocks"), Some(Ok(Some(List))));
        assert_eq!(route("POST", "/api/blocks"), Some(Err("GET")));
        assert_eq!(
            route("POST", "/api/blocks/Bob"),
            Some(Ok(Some(Block("Bob".into()))))
        );
        assert_eq!(
            route("DELETE", "/api/blocks/Bob"),
            Some(Ok(Some(Unblock("Bob".into()))))
        );
        assert_eq!(route("GET", "/api/blocks/Bob"), Some(Err("POST, DELETE")));
        assert_eq!(route("POST", "/api/blocks/"), Some(Ok(None)));
        assert_eq!(route("POST", "/api/blocks/a/b"), Some(Ok(None)));
        assert_eq!(route("GET", "/api/blocksx"), None);
    }
}
