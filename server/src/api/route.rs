//! The route table: which answer a request other than a WebSocket
//! upgrade gets. Every `/api/...` path (the replay's and the OpenAPI
//! document's included), the health check and the metrics are matched
//! here, each area's paths by its own module (ratings, players,
//! tournaments and their chat, ladder, reports, blocks); every other path is handed to
//! `http::route`, the web client's files. Every route is described in
//! `docs/api/openapi.json`, which the e2e test `openapi` holds to it.
//!
//! A new endpoint is a new [`Endpoint`] (or [`Plain`]) variant, matched
//! in [`route`] and answered in `serve` (or `ops`); the compiler then
//! points at every place that must know of it.

use parlor_protocol::RoomId;

use super::blocks::{self, BlockRoute};
use super::event_chat::{self, EventChatRoute};
use super::fairplay::FAIRPLAY_PATH;
use super::follows::{self, FollowRoute};
use super::ladder::{self, LadderRoute};
use super::logs::{self, LogsQuery, LOGS_PATH};
use super::moderation::{self, ModRoute};
use super::openapi::OPENAPI_PATH;
use super::players::{self, HistoryQuery};
use super::query::QueryError;
use super::ratings::{self, RatingsRoute};
use super::reports::{self, ReportRoute};
use super::tournaments::{self, TournamentRoute};
use crate::http::{self, path_of, Method};

/// Where accounts are made.
pub const ACCOUNTS_PATH: &str = "/api/accounts";
/// Where a browser logs in.
pub const LOGIN_PATH: &str = "/api/login";
/// Where a browser logs out.
pub const LOGOUT_PATH: &str = "/api/logout";
/// Where a player changes their password.
pub const PASSWORD_PATH: &str = "/api/password";
/// Where API tokens are made and listed.
pub const TOKENS_PATH: &str = "/api/tokens";
/// Where one API token is revoked: `/api/tokens/ID`.
pub const TOKEN_PREFIX: &str = "/api/tokens/";
/// Where a player's public page is: `/api/players/NAME`.
pub const PLAYERS_PREFIX: &str = "/api/players/";
/// Where a finished match's positions are served: `/api/replay/ROOM`.
pub const REPLAY_PREFIX: &str = "/api/replay/";
/// Where a node says whether it can serve (for load balancers).
pub const HEALTH_PATH: &str = "/healthz";
/// Where a node's metrics are, as Prometheus text.
pub const METRICS_PATH: &str = "/metrics";

/// Where a request goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// A JSON endpoint: its body is read whole, its refusals are JSON.
    Json(Endpoint),
    /// An answer in plain form (`GET` or `HEAD`, no body read).
    Plain(Plain),
}

/// The JSON endpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// `POST /api/accounts`.
    Register,
    /// `POST /api/login`.
    Login,
    /// `POST /api/logout`.
    Logout,
    /// `POST /api/password`.
    ChangePassword,
    /// `POST /api/tokens`.
    CreateToken,
    /// `GET /api/tokens`.
    ListTokens,
    /// `DELETE /api/tokens/ID`.
    RevokeToken(i64),
    /// `GET /api/players/NAME`.
    Player(String),
    /// `GET /api/players/NAME/history?pool=P` (a missing or unknown pool
    /// is answered with its error).
    PlayerHistory(Result<HistoryQuery, QueryError>),
    /// The ratings: ledger, head, leaderboards (a malformed query is
    /// answered with its error).
    Ratings(Result<RatingsRoute, QueryError>),
    /// `GET /api/logs?rooms=...` (a malformed query is answered with its
    /// error).
    Logs(Result<LogsQuery, QueryError>),
    /// Tournaments.
    Tournaments(TournamentRoute),
    /// A tournament page's chat.
    EventChat(EventChatRoute),
    /// The bot ladders.
    Ladder(LadderRoute),
    /// Reports, and the moderators' queue of them.
    Reports(ReportRoute),
    /// An account's blocks.
    Blocks(BlockRoute),
    /// The players an account follows.
    Follows(FollowRoute),
    /// `GET /api/mod/fairplay?QUERY` (moderators only; the query, read
    /// once the caller is known to moderate).
    FairPlay(String),
    /// The moderators' actions and log.
    Mod(ModRoute),
    /// A path of the API with a method it does not take.
    MethodNotAllowed(&'static str),
    /// Under `/api/tokens/`, `/api/players/`, `/api/tournaments/`,
    /// `/api/ladder/`, `/api/mod/reports/` or `/api/blocks/` but
    /// malformed.
    NotFound,
}

impl Endpoint {
    /// Whether it may change something (and so must not be sent by
    /// another site's page with the session cookie).
    pub fn changes(&self) -> bool {
        match self {
            Endpoint::ListTokens
            | Endpoint::Player(_)
            | Endpoint::PlayerHistory(_)
            | Endpoint::Ratings(_)
            | Endpoint::Logs(_)
            | Endpoint::FairPlay(_) => false,
            Endpoint::Tournaments(t) => t.changes(),
            Endpoint::EventChat(c) => c.changes(),
            Endpoint::Ladder(l) => l.changes(),
            Endpoint::Reports(r) => r.changes(),
            Endpoint::Blocks(b) => b.changes(),
            Endpoint::Follows(f) => f.changes(),
            Endpoint::Mod(m) => m.changes(),
            _ => true,
        }
    }
}

/// The answers in plain form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plain {
    /// A finished match's positions, for the replay screen.
    Replay(RoomId),
    /// Whether the node can serve: 200, or 503 and why.
    Health,
    /// The node's metrics.
    Metrics,
    /// The OpenAPI document of this API.
    OpenApi,
    /// What the wire answers by itself: a file of the web client, or a
    /// plain 404 or 405.
    Wire(http::Route),
}

impl Plain {
    /// Whether it is served on the separate operations listener
    /// (`--metrics-bind`), which serves only the health check and
    /// metrics.
    pub fn is_ops(&self) -> bool {
        matches!(self, Plain::Health | Plain::Metrics)
    }
}

/// The route for `method` on `target` (a request target: path, then
/// perhaps `?query`).
pub fn route(method: &str, target: &str) -> Route {
    match endpoint(method, target) {
        Some(endpoint) => Route::Json(endpoint),
        None => Route::Plain(plain(Method::parse(method), target)),
    }
}

/// The plain answer `method` on `target` gets: ours, or the wire's.
fn plain(method: Method, target: &str) -> Plain {
    let path = path_of(target);
    let found = if path == HEALTH_PATH {
        Plain::Health
    } else if path == METRICS_PATH {
        Plain::Metrics
    } else if path == OPENAPI_PATH {
        Plain::OpenApi
    } else if let Some(id) = path.strip_prefix(REPLAY_PREFIX) {
        match RoomId::new(id) {
            Some(id) => Plain::Replay(id),
            None => return Plain::Wire(http::Route::NotFound),
        }
    } else {
        return Plain::Wire(http::route(method, target));
    };
    if method.reads() {
        found
    } else {
        Plain::Wire(http::Route::MethodNotAllowed)
    }
}

/// The JSON endpoint `method` `target` asks for, if it is one.
fn endpoint(method: &str, target: &str) -> Option<Endpoint> {
    let path = path_of(target);
    let query = target
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or_default())
        .unwrap_or_default();
    if let Some(r) = ratings::route(path, query) {
        return Some(if method == "GET" {
            Endpoint::Ratings(r)
        } else {
            Endpoint::MethodNotAllowed("GET")
        });
    }
    // Before any other `/api/mod/` path: the reports' own.
    if let Some(r) = reports::route(method, path, query) {
        return Some(r.map_or_else(Endpoint::MethodNotAllowed, |r| {
            r.map_or(Endpoint::NotFound, Endpoint::Reports)
        }));
    }
    if let Some(r) = blocks::route(method, path) {
        return Some(r.map_or_else(Endpoint::MethodNotAllowed, |r| {
            r.map_or(Endpoint::NotFound, Endpoint::Blocks)
        }));
    }
    if let Some(r) = follows::route(method, path) {
        return Some(r.map_or_else(Endpoint::MethodNotAllowed, |r| {
            r.map_or(Endpoint::NotFound, Endpoint::Follows)
        }));
    }
    // Before the tournaments' other paths (which answer the rest of
    // `/api/tournaments/ID/` as not found).
    if let Some(r) = event_chat::route(method, path, query) {
        return Some(r.map_or_else(Endpoint::MethodNotAllowed, |r| {
            r.map_or(Endpoint::NotFound, Endpoint::EventChat)
        }));
    }
    if let Some(r) = tournaments::route(method, path) {
        return Some(match r {
            Ok(Some(r)) => Endpoint::Tournaments(r),
            Ok(None) => Endpoint::NotFound,
            Err(allowed) => Endpoint::MethodNotAllowed(allowed),
        });
    }
    if let Some(r) = ladder::route(method, path) {
        return Some(r.map_or_else(Endpoint::MethodNotAllowed, |r| {
            r.map_or(Endpoint::NotFound, Endpoint::Ladder)
        }));
    }
    let only = |m: &'static str, r: Endpoint| {
        Some(if method == m {
            r
        } else {
            Endpoint::MethodNotAllowed(m)
        })
    };
    // Before the moderators' other paths (which answer the rest of
    // `/api/mod/` as not found).
    if path == FAIRPLAY_PATH {
        return only("GET", Endpoint::FairPlay(query.to_owned()));
    }
    if let Some(r) = moderation::route(method, path, query) {
        return Some(r.map_or_else(Endpoint::MethodNotAllowed, |r| {
            r.map_or(Endpoint::NotFound, Endpoint::Mod)
        }));
    }
    match path {
        ACCOUNTS_PATH => only("POST", Endpoint::Register),
        LOGS_PATH => only("GET", Endpoint::Logs(logs::query(query))),
        LOGIN_PATH => only("POST", Endpoint::Login),
        LOGOUT_PATH => only("POST", Endpoint::Logout),
        PASSWORD_PATH => only("POST", Endpoint::ChangePassword),
        TOKENS_PATH => Some(match method {
            "POST" => Endpoint::CreateToken,
            "GET" => Endpoint::ListTokens,
            _ => Endpoint::MethodNotAllowed("GET, POST"),
        }),
        _ => {
            if let Some(id) = path.strip_prefix(TOKEN_PREFIX) {
                let Ok(id) = id.parse::<i64>() else {
                    return Some(Endpoint::NotFound);
                };
                only("DELETE", Endpoint::RevokeToken(id))
            } else if let Some(name) = path.strip_prefix(PLAYERS_PREFIX) {
                if let Some(history) = players::history_route(name, query) {
                    return only(
                        "GET",
                        history.map_or(Endpoint::NotFound, Endpoint::PlayerHistory),
                    );
                }
                if name.is_empty() || name.contains('/') {
                    return Some(Endpoint::NotFound);
                }
                only("GET", Endpoint::Player(name.to_owned()))
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(method: &str, target: &str) -> Option<Endpoint> {
        match route(method, target) {
            Route::Json(e) => Some(e),
            Route::Plain(_) => None,
        }
    }

    fn plain(method: &str, target: &str) -> Option<Plain> {
        match route(method, target) {
            Route::Json(_) => None,
            Route::Plain(p) => Some(p),
        }
    }

    #[test]
    fn api_paths_and_methods_are_routed() {
        assert_eq!(json("POST", "/api/accounts"), Some(Endpoint::Register));
        assert_eq!(
            json("GET", "/api/accounts"),
            Some(Endpoint::MethodNotAllowed("POST"))
        );
        assert_eq!(
            json("DELETE", "/api/tokens/12"),
            Some(Endpoint::RevokeToken(12))
        );
        assert_eq!(json("DELETE", "/api/tokens/x"), Some(Endpoint::NotFound));
        assert_eq!(
            json("GET", "/api/players/Alice?x"),
            Some(Endpoint::Player("Alice".into()))
        );
        assert_eq!(
            json("GET", "/api/players/Alice/history?pool=nimrod"),
            Some(Endpoint::PlayerHistory(Ok(HistoryQuery {
                name: "Alice".into(),
                pool: parlor_games::GameKind::Nimrod
            })))
        );
        assert_eq!(
            json("GET", "/api/players/Alice/history"),
            Some(Endpoint::PlayerHistory(Err(QueryError::NoPool)))
        );
        assert_eq!(
            json("POST", "/api/players/Alice/history?pool=nimrod"),
            Some(Endpoint::MethodNotAllowed("GET"))
        );
        for bad in [
            "/api/players//history?pool=nimrod",
            "/api/players/a/b/history",
        ] {
            assert_eq!(json("GET", bad), Some(Endpoint::NotFound), "{bad}");
            assert_eq!(
                json("POST", bad),
                Some(Endpoint::MethodNotAllowed("GET")),
                "{bad}"
            );
        }
        assert_eq!(
            json("GET", "/api/mod/fairplay?game=nimrod&min=5"),
            Some(Endpoint::FairPlay("game=nimrod&min=5".into()))
        );
        assert_eq!(
            json("POST", "/api/mod/fairplay"),
            Some(Endpoint::MethodNotAllowed("GET"))
        );
        assert_eq!(json("GET", "/api/replay/abc"), None);
        assert_eq!(json("GET", "/index.html"), None);
    }

    #[test]
    fn the_replay_has_its_path() {
        assert_eq!(
            plain("GET", "/api/replay/3c32571558e3"),
            Some(Plain::Replay(
                RoomId::new("3c32571558e3").unwrap_or_else(|| panic!())
            ))
        );
        let not_found = Some(Plain::Wire(http::Route::NotFound));
        assert_eq!(plain("GET", "/api/replay/a%20b"), not_found);
        assert_eq!(plain("GET", "/api/replay/"), not_found);
        assert_eq!(plain("GET", "/api/nothing"), not_found);
        assert_eq!(plain("HEAD", "/api/openapi.json"), Some(Plain::OpenApi));
        assert_eq!(
            plain("POST", "/api/openapi.json"),
            Some(Plain::Wire(http::Route::MethodNotAllowed))
        );
        assert!(matches!(
            plain("HEAD", "/"),
            Some(Plain::Wire(http::Route::Asset(_)))
        ));
    }

    #[test]
    fn health_and_metrics_have_their_paths() {
        assert_eq!(plain("GET", "/healthz"), Some(Plain::Health));
        assert_eq!(plain("HEAD", "/healthz?verbose"), Some(Plain::Health));
        assert_eq!(plain("GET", "/metrics"), Some(Plain::Metrics));
        assert_eq!(
            plain("POST", "/metrics"),
            Some(Plain::Wire(http::Route::MethodNotAllowed))
        );
        assert_eq!(
            plain("GET", "/metrics/"),
            Some(Plain::Wire(http::Route::NotFound))
        );
        assert_eq!(
            plain("GET", "/healthz/x"),
            Some(Plain::Wire(http::Route::NotFound))
        );
    }
}
