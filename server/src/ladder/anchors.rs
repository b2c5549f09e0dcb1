//! The anchors: each game's built-in strategies as bot accounts of their
//! own, named `GAME-STRATEGY` (a reserved name nobody can register),
//! with no password and no tokens, entered in their game's ladder and
//! played by the server. They are made at every start if missing; nodes
//! starting together insert them if absent, so none collide.

use parlor_games::GameKind;

use super::Ladder;
use crate::accounts::{name_key, AccountName};
use crate::clock::now_ms;
use crate::store::StoreError;

/// Every anchor of `game`: its account name and strategy.
pub fn anchors(game: GameKind) -> impl Iterator<Item = (AccountName, &'static str)> {
    game.strategies()
        .iter()
        .map(move |s| (AccountName::builtin(game, s), *s))
}

/// The strategy of `game`'s anchor named `name` (any case), if it is one.
pub fn anchor_strategy(game: GameKind, name: &str) -> Option<&'static str> {
    let key = name_key(name);
    anchors(game).find(|(n, _)| n.key() == key).map(|(_, s)| s)
}

impl Ladder {
    /// Makes every game's anchors and ladder unless they exist.
    pub(super) async fn ensure_anchors(&self) -> Result<(), StoreError> {
        let now = now_ms();
        for game in GameKind::ALL {
            self.store.ensure_ladder(*game).await?;
            for (name, _) in anchors(*game) {
                self.accounts
                    .ensure_builtin(&name, i64::try_from(now).unwrap_or(i64::MAX))
                    .await?;
                self.store
                    .enter(*game, &name.key(), name.as_str(), true, now)
                    .await?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_strategy_is_an_anchor_named_after_its_game() {
        let names: Vec<String> = anchors(GameKind::Nimrod)
            .map(|(n, _)| n.as_str().to_owned())
            .collect();
        assert!(names.contains(&"nimrod-optimal".to_owned()), "{names:?}");
        assert_eq!(names.len(), GameKind::Nimrod.strategies().len());
        assert_eq!(
            anchor_strategy(GameKind::Nimrod, "Nimrod-Optimal"),
            Some("optimal")
        );
        assert_eq!(anchor_strategy(GameKind::Cribbage, "nimrod-optimal"), None);
        assert_eq!(anchor_strategy(GameKind::Nimrod, "optimal"), None);
    }
}
