//! Which answer a plain HTTP request gets.

use parlor_protocol::RoomId;

use super::assets::{Asset, ASSETS};

/// Where a finished match's positions are served: `/api/replay/ROOM`.
pub const REPLAY_PREFIX: &str = "/api/replay/";

/// Where a node says whether it can serve (for load balancers).
pub const HEALTH_PATH: &str = "/healthz";

/// Where a node's metrics are, as Prometheus text.
pub const METRICS_PATH: &str = "/metrics";

/// The request methods the routes tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`: a `GET` answered without its body.
    Head,
    /// Anything else; no route takes it.
    Other,
}

impl Method {
    /// The method named `name` (HTTP methods are case-sensitive).
    pub fn parse(name: &str) -> Method {
        match name {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            _ => Method::Other,
        }
    }
}

/// Every answer a plain HTTP request can get. A new endpoint (a health
/// check, metrics) is a new variant here, matched in [`route`] and
/// answered in `response::answer`; the compiler then points at every
/// place that must know of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// One of the web client's embedded files.
    Asset(&'static Asset),
    /// A finished match's positions, for the replay screen.
    Replay(RoomId),
    /// Whether the node can serve: 200, or 503 and why.
    Health,
    /// The node's metrics.
    Metrics,
    /// No such path.
    NotFound,
    /// The path exists but not for this method.
    MethodNotAllowed,
}

/// Whether `route` is served on the separate operations listener
/// (`--metrics-bind`), which serves only the health check and metrics.
pub fn is_ops(route: &Route) -> bool {
    matches!(route, Route::Health | Route::Metrics)
}

/// The route for `method` on `target` (a request target: path, then
/// perhaps `?query`, which no route uses).
pub fn route(method: Method, target: &str) -> Route {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let path = if path == "/" { "/index.html" } else { path };
    let found = if path == HEALTH_PATH {
        Some(Route::Health)
    } else if path == METRICS_PATH {
        Some(Route::Metrics)
    } else if let Some(id) = path.strip_prefix(REPLAY_PREFIX) {
        RoomId::new(id).map(Route::Replay)
    } else {
        ASSETS.iter().find(|a| a.path == path).map(Route::Asset)
    };
    match (found, method) {
        (None, _) => Route::NotFound,
        (Some(route), Method::Get | Method::Head) => route,
        (Some(_), Method::Other) => Route::MethodNotAllowed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_page_and_queries_are_ignored() {
        let Route::Asset(page) = route(Method::Get, "/?room=abc") else {
            panic!("no page at /");
        };
        assert_eq!(page.path, "/index.html");
        assert_eq!(route(Method::Head, "/"), Route::Asset(page));
        assert_eq!(
            route(Method::Get, "/api/replay/3c32571558e3"),
            Route::Replay(RoomId::new("3c32571558e3").unwrap_or_else(|| panic!()))
        );
        assert_eq!(route(Method::Get, "/api/replay/a%20b"), Route::NotFound);
        assert_eq!(route(Method::Get, "/api/replay/"), Route::NotFound);
    }

    #[test]
    fn health_and_metrics_have_their_paths() {
        assert_eq!(route(Method::Get, "/healthz"), Route::Health);
        assert_eq!(route(Method::Head, "/healthz?verbose"), Route::Health);
        assert_eq!(route(Method::Get, "/metrics"), Route::Metrics);
        assert_eq!(route(Method::Other, "/metrics"), Route::MethodNotAllowed);
        assert_eq!(route(Method::Get, "/metrics/"), Route::NotFound);
        assert_eq!(route(Method::Get, "/healthz/x"), Route::NotFound);
    }

    #[test]
    fn unknown_paths_and_methods_are_told_apart() {
        assert_eq!(route(Method::Get, "/../Cargo.toml"), Route::NotFound);
        assert_eq!(route(Method::Get, "/index.html/"), Route::NotFound);
        assert_eq!(route(Method::Other, "/"), Route::MethodNotAllowed);
        assert_eq!(Method::parse("get"), Method::Other);
    }
}
