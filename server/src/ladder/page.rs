//! A ladder's public page and the list of ladders: the entrants best
//! first with their ratings and ladder records, the games being played
//! and the latest results.

use parlor_competition::Glicko2;
use parlor_games::GameKind;
use parlor_protocol::{provisional, LadderEntrantInfo, LadderInfo, LadderSummary};

use super::{Ladder, LADDER_RECENT_GAMES, PRESENCE_TICKS};
use crate::accounts::name_key;
use crate::schedule::EventError;

impl Ladder {
    /// `game`'s ladder page at `now_ms`.
    pub async fn info(&self, game: GameKind, now_ms: u64) -> Result<LadderInfo, EventError> {
        let store = |e: crate::store::StoreError| EventError::store(&e);
        let entries = self.store.entries().await.map_err(store)?;
        let playing = self.store.playing(game).await.map_err(store)?;
        let recent = self
            .store
            .recent(game, LADDER_RECENT_GAMES)
            .await
            .map_err(store)?;
        let presence = self
            .settings
            .tick
            .saturating_mul(PRESENCE_TICKS)
            .as_millis();
        let mut out = Vec::new();
        for e in entries.iter().filter(|e| e.game == game.name()) {
            let rating = self
                .log
                .rating(game.name(), &e.key)
                .await
                .map_err(store)?
                .map_or(Glicko2::PARLOR.initial, |r| r.rating);
            let [games, wins, losses, draws] = e.record;
            out.push(LadderEntrantInfo {
                name: e.name.clone(),
                rating: rating.rating,
                rd: rating.rd,
                provisional: provisional(rating.rd),
                games,
                wins,
                losses,
                draws,
                connected: e.builtin || u128::from(now_ms.saturating_sub(e.seen_ms)) <= presence,
                playing: u32::try_from(
                    playing
                        .iter()
                        .filter(|g| g.seats.iter().any(|s| name_key(s) == e.key))
                        .count(),
                )
                .unwrap_or(u32::MAX),
                builtin: e.builtin,
            });
        }
        out.sort_by(|a, b| b.rating.total_cmp(&a.rating).then(a.name.cmp(&b.name)));
        Ok(LadderInfo {
            game,
            running: self.settings.enabled,
            entrants: out,
            playing: playing.iter().map(|g| g.info()).collect(),
            recent: recent.iter().map(|g| g.info()).collect(),
            max_games: self.settings.max_games,
            daily_cap: self.settings.daily_cap,
        })
    }

    /// Every game's ladder: its entrants and games being played.
    pub async fn list(&self) -> Result<Vec<LadderSummary>, EventError> {
        let counts = self
            .store
            .counts()
            .await
            .map_err(|e| EventError::store(&e))?;
        Ok(GameKind::ALL
            .iter()
            .map(|game| {
                let (entrants, playing) = counts
                    .iter()
                    .find(|(g, _, _)| g == game.name())
                    .map_or((0, 0), |(_, e, p)| (*e, *p));
                LadderSummary {
                    game: *game,
                    entrants,
                    playing,
                }
            })
            .collect())
    }
}
