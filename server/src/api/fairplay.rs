//! `GET /api/mod/fairplay?game=G&min=N` (moderators only): the fair-play
//! review of game G's rating pool (see `fair_play::review`): the accounts
//! whose engine agreement over at least N choice positions (default
//! [`DEFAULT_MIN_CHOICES`]) is improbable for a human, and the booster
//! signal.
//!
//! Refusals, in order: signed out `401 auth/required`; not a moderator
//! `403 mod/forbidden`; `game` missing `400 mod/bad_request`, or no game
//! of that name `404 ratings/unknown_pool`; `min` not a number from 1 to
//! [`MAX_MIN_CHOICES`] `400 mod/bad_request`. The query is read only
//! after the caller is known to moderate, so others learn nothing of it.

use serde_json::Value;

use super::error::ApiError;
use super::query::{game, param};
use crate::accounts::store::Account;
use crate::fair_play::review::{review, DEFAULT_MIN_CHOICES};
use crate::moderation::{moderator, ModError};
use crate::store::{Store, StoreError};

/// Where the review is.
pub const FAIRPLAY_PATH: &str = "/api/mod/fairplay";

/// The largest `min` taken: a record of a million choice positions is
/// beyond any account's; a larger number is a typo.
pub const MAX_MIN_CHOICES: u64 = 1_000_000;

/// What a review asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FairPlayQuery {
    /// The pool: the game's name.
    pub game: String,
    /// The fewest choices an account needs to be tested.
    pub min: u64,
}

/// The review `query` asks for.
pub fn query(query: &str) -> Result<FairPlayQuery, ApiError> {
    let name = param(query, "game")
        .filter(|g| !g.is_empty())
        .ok_or_else(|| {
            ModError::BadRequest(format!(
                "game is the pool's game: {}",
                parlor_games::GameKind::ALL
                    .iter()
                    .map(|g| g.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let game = game(name)?;
    let min = match param(query, "min") {
        None => DEFAULT_MIN_CHOICES,
        Some(text) => text
            .parse::<u64>()
            .ok()
            .filter(|n| (1..=MAX_MIN_CHOICES).contains(n))
            .ok_or_else(|| {
                ModError::BadRequest(format!("min is a number from 1 to {MAX_MIN_CHOICES}"))
            })?,
    };
    Ok(FairPlayQuery {
        game: game.name().to_owned(),
        min,
    })
}

/// The answer to `account` (signed in) asking `raw_query`.
pub async fn answer(account: Account, raw_query: &str, store: &Store) -> Result<Value, ApiError> {
    moderator(account)?;
    let q = query(raw_query)?;
    let r = review(store, &q.game, q.min)
        .await
        .map_err(ModError::Store)?;
    // Plain data (numbers, text, lists): it always serialises.
    serde_json::to_value(r).map_err(|e| ModError::Store(StoreError::Corrupt(e.to_string())).into())
}

#[cfg(test)]
mod tests {
    use super::super::query::QueryError;
    use super::*;

    #[test]
    fn the_query_names_a_game_and_perhaps_a_minimum() {
        assert_eq!(
            query("game=nimrod").ok(),
            Some(FairPlayQuery {
                game: "nimrod".into(),
                min: DEFAULT_MIN_CHOICES
            })
        );
        assert_eq!(query("game=cribbage&min=12").ok().map(|q| q.min), Some(12));
        assert!(matches!(
            query("game=chess"),
            Err(ApiError::Query(QueryError::UnknownPool))
        ));
        assert!(matches!(
            query("min=3"),
            Err(ApiError::Mod(ModError::BadRequest(m))) if m.contains("nimrod")
        ));
        for bad in ["0", "-1", "x", "1000001"] {
            assert!(
                matches!(
                    query(&format!("game=nimrod&min={bad}")),
                    Err(ApiError::Mod(ModError::BadRequest(_)))
                ),
                "{bad}"
            );
        }
    }
}
