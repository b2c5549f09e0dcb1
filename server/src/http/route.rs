//! Which answer a plain HTTP request gets.

use super::assets::{Asset, ASSETS};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// One of the web client's embedded files.
    Asset(&'static Asset),
    /// No such path.
    NotFound,
    /// The path exists but not for this method.
    MethodNotAllowed,
}

/// The route for `method` on `target` (a request target: path, then
/// perhaps `?query`, which no route uses).
pub fn route(method: Method, target: &str) -> Route {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let path = if path == "/" { "/index.html" } else { path };
    let Some(asset) = ASSETS.iter().find(|a| a.path == path) else {
        return Route::NotFound;
    };
    match method {
        Method::Get | Method::Head => Route::Asset(asset),
        Method::Other => Route::MethodNotAllowed,
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
    }

    #[test]
    fn unknown_paths_and_methods_are_told_apart() {
        assert_eq!(route(Method::Get, "/../Cargo.toml"), Route::NotFound);
        assert_eq!(route(Method::Get, "/index.html/"), Route::NotFound);
        assert_eq!(route(Method::Other, "/"), Route::MethodNotAllowed);
        assert_eq!(Method::parse("get"), Method::Other);
    }
}
