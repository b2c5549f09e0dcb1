//! A player's public page (`GET /api/players/NAME`): who they are, their
//! record per game, their ratings and their last rated games.

use serde_json::{json, Value};

use crate::accounts::{Accounts, AuthError};
use crate::store::Store;

/// The page of the player called `name` (any case).
pub async fn page(
    accounts: &Accounts,
    store: &Store,
    name: &str,
    now_ms: u64,
) -> Result<Value, AuthError> {
    let account = accounts.player(name).await?;
    let key = crate::accounts::name_key(&account.name);
    let played = store.played_by(&key).await.map_err(|e| {
        AuthError::new(
            503,
            "server/storage",
            format!("the record could not be read: {e}"),
        )
    })?;
    let games = crate::accounts::record::tally(&played);
    let (ratings, rated_games) =
        super::ratings::of_player(store, &key, &account.name, now_ms).await?;
    Ok(json!({
        "name": account.name,
        "kind": account.kind,
        "created": account.created_ms,
        "games": games,
        "ratings": ratings,
        "rated_games": rated_games,
    }))
}
