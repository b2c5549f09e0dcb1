//! The ladder's public page over HTTP (any server URL form).

use parlor_games::GameKind;
use parlor_protocol::LadderInfo;
use serde_json::Value;

use crate::api;

/// Largest page read: a few hundred entrants and games of about 200
/// bytes each.
pub const MAX_PAGE_BYTES: usize = 1024 * 1024;

/// `game`'s ladder page as JSON, every field kept.
pub async fn page_json(url: &str, game: GameKind) -> Result<Value, String> {
    let a = api::get(url, &format!("/api/ladder/{}", game.name()), MAX_PAGE_BYTES).await?;
    if a.status != 200 {
        return Err(a.refusal());
    }
    serde_json::from_slice(&a.body).map_err(|e| format!("the {game} ladder is not readable: {e}"))
}

/// `game`'s ladder page.
pub async fn page(url: &str, game: GameKind) -> Result<LadderInfo, String> {
    let v = page_json(url, game).await?;
    serde_json::from_value(v).map_err(|e| format!("the {game} ladder is not readable: {e}"))
}
