//! The moderators' view of a pool (`GET /api/mod/fairplay`): the
//! accounts whose engine agreement is improbable for a human
//! ([`super::stats`]), and the booster signal ([`super::boosting`]).

use serde::Serialize;

use super::boosting::{boosters, early_results, Booster};
use super::stats::{improbable, ALPHA};
use super::store::FairPlayStore;
use crate::store::{Store, StoreError};

/// An account whose agreement is improbable for a human.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flagged {
    /// The account's name.
    pub name: String,
    /// Decisions with a real choice, over its counted matches.
    pub choices: u64,
    /// Of those, the ones agreeing with the engine.
    pub agreed: u64,
    /// `agreed / choices`.
    pub rate: f64,
    /// The population rate it was tested against.
    pub p0: f64,
    /// `P(X >= agreed | choices, p0)`.
    pub p_value: f64,
    /// Matches counted.
    pub games: u64,
    /// Its counted matches with a choice, newest first (at most
    /// [`super::store::ROOMS_LISTED`]), as rooms ...
    pub rooms: Vec<String>,
    /// ... and as links to their replays.
    pub links: Vec<String>,
    /// Its moderation mark, if it has one already.
    pub mark: Option<String>,
}

/// What the view answers for a pool.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// The pool (the game's name).
    pub game: String,
    /// The fewest choices an account needed to be tested.
    pub min: u64,
    /// The significance used.
    pub alpha: f64,
    /// Matches counted in the pool, one per human account in each.
    pub counted: u64,
    /// Accounts tested (with at least `min` choices).
    pub tested: usize,
    /// The improbable ones, most improbable first.
    pub flagged: Vec<Flagged>,
    /// The booster signal.
    pub boosting: Vec<Booster>,
}

/// The review of `pool`, testing accounts with at least `min` choices.
pub async fn review(store: &Store, pool: &str, min: u64) -> Result<Review, StoreError> {
    let counts = FairPlayStore::new(store.beside());
    let all = counts.pool(pool).await?;
    let tested = all.iter().filter(|a| a.choices >= min.max(1)).count();
    let mut flagged = Vec::new();
    for t in improbable(&all, min) {
        let rooms = counts.rooms(pool, &t.counts.account_key).await?;
        flagged.push(Flagged {
            name: t.counts.name,
            choices: t.counts.choices,
            agreed: t.counts.agreed,
            rate: t.rate,
            p0: t.p0,
            p_value: t.p_value,
            games: t.counts.games,
            links: rooms.iter().map(|r| format!("/#/replay/{r}")).collect(),
            rooms,
            mark: t.counts.mark,
        });
    }
    let boosting = boosters(&early_results(store, pool).await?);
    Ok(Review {
        game: pool.to_owned(),
        min,
        alpha: ALPHA,
        counted: all.iter().map(|a| a.games).sum(),
        tested,
        flagged,
        boosting,
    })
}
