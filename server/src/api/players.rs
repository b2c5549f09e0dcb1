//! A player's public page (`GET /api/players/NAME`): who they are, their
//! record per game, their ratings and their last rated games, and what
//! moderation did to the account (closed, marked, the public part of its
//! moderation log: no moderator's name, no free text); and their
//! rating's history in one pool (`GET /api/players/NAME/history?pool=P`),
//! game by game, for the web page's plot.

use parlor_competition::{LedgerLine, LedgerPlayer};
use parlor_games::GameKind;
use serde_json::{json, Value};

use super::error::{ApiError, Unread};
use super::query::{game, param, QueryError};
use crate::accounts::Accounts;
use crate::store::Store;

/// What follows a player's name for their history: `/api/players/NAME/history`.
pub const HISTORY_SUFFIX: &str = "/history";

/// Most points a history has: the newest games, as many as a plot can
/// show apart on a page (older ones are in the public ledger).
pub const HISTORY_POINTS: usize = 200;

/// Rated games (of every pool) read for a history: the pool's games are
/// found among the player's newest this many, which bounds the read while
/// leaving room for games in the other three pools.
pub const HISTORY_SCAN: usize = 4 * HISTORY_POINTS;

/// The page of the player called `name` (any case).
pub async fn page(
    accounts: &Accounts,
    store: &Store,
    name: &str,
    now_ms: u64,
) -> Result<Value, ApiError> {
    let account = accounts.player(name).await?;
    let key = crate::accounts::name_key(&account.name);
    let played = store.played_by(&key).await.map_err(storage)?;
    let games = crate::accounts::record::tally(&played);
    let (ratings, rated_games) =
        super::ratings::of_player(store, &key, &account.name, now_ms).await?;
    let history = crate::moderation::ModLog::new(store.beside())
        .public(&account.name)
        .await
        .map_err(storage)?;
    Ok(json!({
        "name": account.name,
        "kind": account.kind,
        "created": account.created_ms,
        "games": games,
        "ratings": ratings,
        "rated_games": rated_games,
        "moderation": {
            "closed": account.standing.closed(),
            "mark": account.standing.mark,
            "history": history,
        },
    }))
}

fn storage(e: crate::store::StoreError) -> ApiError {
    ApiError::Unreadable {
        what: Unread::Record,
        source: e,
    }
}

/// A history request: whose, and which pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryQuery {
    /// The player's name, as asked (any case).
    pub name: String,
    /// The pool.
    pub pool: GameKind,
}

/// The history `path` (what follows `/api/players/`) with `query` asks
/// for: `None` if the path is not a history's; `Some(None)` for an empty
/// or malformed name (no such path); `Err` for a missing or unknown pool.
pub fn history_route(path: &str, query: &str) -> Option<Option<Result<HistoryQuery, QueryError>>> {
    let name = path.strip_suffix(HISTORY_SUFFIX)?;
    if name.is_empty() || name.contains('/') {
        return Some(None);
    }
    Some(Some(history_query(name, query)))
}

fn history_query(name: &str, query: &str) -> Result<HistoryQuery, QueryError> {
    let pool = param(query, "pool").ok_or(QueryError::NoPool)?;
    Ok(HistoryQuery {
        name: name.to_owned(),
        pool: game(pool)?,
    })
}

/// The player's rating in the pool after each of their rated games there,
/// oldest first, at most [`HISTORY_POINTS`]:
/// `{"name", "pool", "start": {"rating", "rd"} | null, "points": [{"n",
/// "at_ms", "rating", "rd", "change", "room", "place", "players",
/// "result", "opponents", "partners"}], "truncated"}`. `start` is the
/// rating entering the first point's game; `truncated` says older games
/// may have been left out.
pub async fn history(
    accounts: &Accounts,
    store: &Store,
    query: HistoryQuery,
) -> Result<Value, ApiError> {
    let account = accounts.player(&query.name).await?;
    let key = crate::accounts::name_key(&account.name);
    let lines = store
        .rated_lines_of(&key, HISTORY_SCAN)
        .await
        .map_err(storage)?;
    let scanned_all = lines.len() < HISTORY_SCAN;
    // Newest first as read; kept newest first until the cut.
    let mut points: Vec<(Value, Value)> = lines
        .iter()
        .filter(|l| l.pool == query.pool.name())
        .filter_map(|l| point(l, &parlor_protocol::account_key(&account.name)))
        .collect();
    let truncated = !scanned_all || points.len() > HISTORY_POINTS;
    points.truncate(HISTORY_POINTS);
    points.reverse();
    let start = points.first().map(|(_, s)| s.clone());
    Ok(json!({
        "name": account.name,
        "pool": query.pool.name(),
        "start": start,
        "points": points.into_iter().map(|(p, _)| p).collect::<Vec<_>>(),
        "truncated": truncated,
    }))
}

/// How a player's match ended for them, from every player's place.
fn result(mine: u8, places: &[u8]) -> &'static str {
    if places.iter().all(|&p| p == mine) {
        "drew"
    } else if places.iter().all(|&p| p >= mine) {
        "won"
    } else {
        "lost"
    }
}

/// The player's point in a ledger line, and the rating they entered it
/// with; `None` if they are not in it.
fn point(line: &LedgerLine, key: &str) -> Option<(Value, Value)> {
    let me = line
        .players
        .iter()
        .find(|p| parlor_protocol::account_key(&p.name) == key)?;
    let partner = |p: &&LedgerPlayer| p.seat != me.seat && me.team.is_some() && p.team == me.team;
    let places: Vec<u8> = line.players.iter().map(|p| p.place).collect();
    let point = json!({
        "n": line.n,
        "at_ms": line.at_ms,
        "rating": me.after.rating,
        "rd": me.after.rd,
        "change": me.after.rating - me.before.rating,
        "room": line.room,
        "place": me.place,
        "players": line.players.len(),
        "result": result(me.place, &places),
        "opponents": line.players.iter()
            .filter(|p| p.seat != me.seat && !partner(p))
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>(),
        "partners": line.players.iter().filter(partner).map(|p| p.name.as_str()).collect::<Vec<_>>(),
    });
    Some((
        point,
        json!({"rating": me.before.rating, "rd": me.before.rd}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_read_from_every_place() {
        assert_eq!(result(1, &[1, 2]), "won");
        assert_eq!(result(2, &[1, 2]), "lost");
        assert_eq!(result(1, &[1, 1]), "drew");
        // Partners share a place: the winning side won.
        assert_eq!(result(1, &[1, 2, 1, 2]), "won");
        // Second of three is not a win.
        assert_eq!(result(2, &[1, 2, 3]), "lost");
    }

    #[test]
    fn a_history_names_its_pool() {
        let q = history_route("Alice/history", "pool=cribbage");
        assert_eq!(
            q,
            Some(Some(Ok(HistoryQuery {
                name: "Alice".into(),
                pool: GameKind::Cribbage
            })))
        );
        assert_eq!(history_route("Alice", "pool=cribbage"), None);
        let refused = |path, query| match history_route(path, query) {
            Some(Some(Err(e))) => Some(ApiError::from(e).status_and_code()),
            _ => None,
        };
        assert_eq!(
            refused("a/history", ""),
            Some((400, parlor_protocol::ErrorCode::RatingsBadQuery))
        );
        assert_eq!(
            refused("a/history", "pool=chess"),
            Some((404, parlor_protocol::ErrorCode::RatingsUnknownPool))
        );
        // An empty name is no path at all (answered 404 http/not_found).
        assert_eq!(history_route("/history", "pool=nimrod"), Some(None));
    }
}
