//! The ratings API: the public ledger (newline-delimited JSON, paged),
//! its head, leaderboards per game, and each player's ratings and rated
//! games for their page. Everything here is public and read-only.

use std::collections::BTreeMap;

use parlor_competition::ledger::DAY_MS;
use parlor_competition::{Glicko2, LedgerLine};
use parlor_games::GameKind;
use parlor_protocol::{
    provisional, Leaderboard, LeaderboardRow, LedgerHead, PoolRating, RatedGame, PROVISIONAL_RD,
};

use super::error::{ApiError, Unread};
use super::query::{game, param, QueryError};
use crate::accounts::AccountKind;
use crate::store::{Store, StoreError, StoredRating, LEDGER_PAGE};

/// Where the ledger is served.
pub const LEDGER_PATH: &str = "/api/ratings/ledger";
/// Where the ledger's head is served.
pub const HEAD_PATH: &str = "/api/ratings/head";
/// Where a game's leaderboard is: `/api/leaderboard/GAME`.
pub const LEADERBOARD_PREFIX: &str = "/api/leaderboard/";

/// The largest `after` the ledger takes: both stores keep line numbers
/// as signed 64-bit integers, so a larger one names no line (and reached
/// the store as a failure of its own, not as a malformed query).
pub const MAX_LEDGER_AFTER: u64 = i64::MAX.unsigned_abs();

/// Rows a leaderboard shows unless asked for another number.
pub const LEADERBOARD_DEFAULT: usize = 50;
/// Most rows a leaderboard shows: a page people read, not an export (the
/// ledger is the export).
pub const LEADERBOARD_MAX: usize = 200;
/// Rows read for a leaderboard before the idle are left out: ratings
/// settled when stored but provisional now (long idle) are skipped, and
/// this many leave room for them while bounding the read.
pub const LEADERBOARD_SCAN: usize = 4 * LEADERBOARD_MAX;

/// Rated games a player's page lists, newest first.
pub const RECENT_RATED_GAMES: usize = 20;

/// A ratings endpoint, with its query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RatingsRoute {
    /// `GET /api/ratings/ledger[?after=N][&pool=P]`.
    Ledger {
        /// Lines after this number.
        after: u64,
        /// Only this pool's lines.
        pool: Option<GameKind>,
    },
    /// `GET /api/ratings/head`.
    Head,
    /// `GET /api/leaderboard/GAME[?kind=human|bot][&limit=N]`.
    Leaderboard {
        /// The pool.
        game: GameKind,
        /// Only accounts of this kind.
        kind: Option<AccountKind>,
        /// How many rows.
        limit: usize,
    },
}

/// The ratings endpoint `path` with `query` asks for: `None` if the path
/// is not one; `Err` for a malformed query.
pub fn route(path: &str, query: &str) -> Option<Result<RatingsRoute, QueryError>> {
    if path == LEDGER_PATH {
        return Some((|| {
            let after = match param(query, "after") {
                None => 0,
                Some(v) => v
                    .parse()
                    .ok()
                    .filter(|a| *a <= MAX_LEDGER_AFTER)
                    .ok_or(QueryError::After)?,
            };
            let pool = param(query, "pool").map(game).transpose()?;
            Ok(RatingsRoute::Ledger { after, pool })
        })());
    }
    if path == HEAD_PATH {
        return Some(Ok(RatingsRoute::Head));
    }
    let name = path.strip_prefix(LEADERBOARD_PREFIX)?;
    Some((|| {
        let game = game(name)?;
        let kind = param(query, "kind")
            .map(|k| AccountKind::parse(k).ok_or(QueryError::Kind))
            .transpose()?;
        let limit = match param(query, "limit") {
            None => LEADERBOARD_DEFAULT,
            Some(v) => v
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=LEADERBOARD_MAX).contains(n))
                .ok_or(QueryError::Limit)?,
        };
        Ok(RatingsRoute::Leaderboard { game, kind, limit })
    })())
}

fn storage(e: StoreError) -> ApiError {
    ApiError::Unreadable {
        what: Unread::Ratings,
        source: e,
    }
}

/// What a ratings endpoint answers.
#[derive(Debug)]
pub enum Reply {
    /// A JSON value.
    Json(serde_json::Value),
    /// Newline-delimited JSON lines.
    Lines(Vec<u8>),
}

/// Answers a ratings request.
pub async fn answer(route: RatingsRoute, store: &Store, now_ms: u64) -> Result<Reply, ApiError> {
    match route {
        RatingsRoute::Ledger { after, pool } => {
            let lines = store
                .ledger(after, pool.map(|g| g.name().to_owned()), LEDGER_PAGE)
                .await
                .map_err(storage)?;
            let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
            for line in lines {
                out.extend_from_slice(line.as_bytes());
                out.push(b'\n');
            }
            Ok(Reply::Lines(out))
        }
        RatingsRoute::Head => {
            let head = store.ledger_head().await.map_err(storage)?;
            let (n, hash) =
                head.unwrap_or_else(|| (0, parlor_competition::ledger::GENESIS.to_owned()));
            Ok(Reply::Json(json(&LedgerHead { n, hash })))
        }
        RatingsRoute::Leaderboard { game, kind, limit } => {
            // Stored deviations only grow while idle, so the rows with a
            // settled rating now are among those settled when stored.
            let rows = store
                .leaderboard(
                    game.name(),
                    kind.map(AccountKind::as_str),
                    PROVISIONAL_RD,
                    LEADERBOARD_SCAN,
                )
                .await
                .map_err(storage)?;
            let players = rows
                .into_iter()
                .filter(|r| !provisional(current(r.rating, now_ms).rd))
                .take(limit)
                .enumerate()
                .map(|(i, r)| LeaderboardRow {
                    rank: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    name: r.name,
                    kind: r.kind,
                    rating: r.rating.rating.rating,
                    rd: current(r.rating, now_ms).rd,
                    games: r.rating.games,
                })
                .collect();
            Ok(Reply::Json(json(&Leaderboard {
                game: game.name().to_owned(),
                players,
            })))
        }
    }
}

/// A stored rating as it stands at `now_ms`: its deviation widened for
/// each whole day since it last changed, as the next match would see it.
fn current(stored: StoredRating, now_ms: u64) -> parlor_competition::Rating {
    Glicko2::PARLOR.idle(
        stored.rating,
        now_ms.saturating_sub(stored.last_ms) / DAY_MS,
    )
}

fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    // Plain structs of numbers and strings always serialise.
    serde_json::to_value(v).unwrap_or_default()
}

/// A player's ratings per pool and last rated games, for their page.
pub async fn of_player(
    store: &Store,
    account_key: &str,
    name: &str,
    now_ms: u64,
) -> Result<(serde_json::Value, serde_json::Value), ApiError> {
    let ratings: BTreeMap<String, PoolRating> = store
        .ratings_of(account_key)
        .await
        .map_err(storage)?
        .into_iter()
        .map(|(pool, r)| {
            let now = current(r, now_ms);
            (
                pool,
                PoolRating {
                    rating: now.rating,
                    rd: now.rd,
                    vol: now.vol,
                    games: r.games,
                    provisional: provisional(now.rd),
                },
            )
        })
        .collect();
    let lines = store
        .rated_lines_of(account_key, RECENT_RATED_GAMES)
        .await
        .map_err(storage)?;
    let games: Vec<RatedGame> = lines.iter().filter_map(|l| rated_game(l, name)).collect();
    Ok((json(&ratings), json(&games)))
}

/// `name`'s part in a ledger line.
fn rated_game(line: &LedgerLine, name: &str) -> Option<RatedGame> {
    let key = parlor_protocol::account_key(name);
    let me = line
        .players
        .iter()
        .find(|p| parlor_protocol::account_key(&p.name) == key)?;
    Some(RatedGame {
        n: line.n,
        at_ms: line.at_ms,
        pool: line.pool.clone(),
        room: line.room.clone(),
        place: me.place,
        players: u8::try_from(line.players.len()).unwrap_or(u8::MAX),
        opponents: line
            .players
            .iter()
            .filter(|p| p.seat != me.seat)
            .map(|p| p.name.clone())
            .collect(),
        before: me.before.rating,
        after: me.after.rating,
        rd: me.after.rd,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HTTP status a refused query is answered with.
    fn status(e: QueryError) -> u16 {
        ApiError::from(e).status_and_code().0
    }

    #[test]
    fn routes_and_their_queries() {
        assert_eq!(
            route(LEDGER_PATH, "after=17&pool=nimrod").map(|r| r.ok()),
            Some(Some(RatingsRoute::Ledger {
                after: 17,
                pool: Some(GameKind::Nimrod)
            }))
        );
        assert_eq!(
            route(LEDGER_PATH, "").map(|r| r.ok()),
            Some(Some(RatingsRoute::Ledger {
                after: 0,
                pool: None
            }))
        );
        assert!(matches!(route(LEDGER_PATH, "after=x"), Some(Err(e)) if status(e) == 400));
        // Past the stores' line numbers: a bad query, not a store failure.
        let most = format!("after={MAX_LEDGER_AFTER}");
        assert!(matches!(route(LEDGER_PATH, &most), Some(Ok(_))));
        let past = format!("after={}", MAX_LEDGER_AFTER + 1);
        assert!(matches!(route(LEDGER_PATH, &past), Some(Err(e)) if status(e) == 400));
        assert!(matches!(route(LEDGER_PATH, "pool=chess"), Some(Err(e)) if status(e) == 404));
        assert_eq!(
            route("/api/leaderboard/cribbage", "kind=bot&limit=5").map(|r| r.ok()),
            Some(Some(RatingsRoute::Leaderboard {
                game: GameKind::Cribbage,
                kind: Some(AccountKind::Bot),
                limit: 5
            }))
        );
        assert!(matches!(
            route("/api/leaderboard/cribbage", "limit=100000"),
            Some(Err(e)) if status(e) == 400
        ));
        assert!(matches!(
            route("/api/leaderboard/cribbage", "kind=alien"),
            Some(Err(e)) if status(e) == 400
        ));
        assert_eq!(route("/api/ratings/other", ""), None);
        assert_eq!(
            route(HEAD_PATH, "").map(|r| r.ok()),
            Some(Some(RatingsRoute::Head))
        );
    }
}
