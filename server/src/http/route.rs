//! Which of the web client's files a request asks for: the static part
//! of the routing, which `api`'s route table falls back to for every
//! path that is not one of its endpoints.

use super::assets::{Asset, ASSETS};

/// The request methods the plain routes tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`: a `GET` answered without its body.
    Head,
    /// Anything else; no plain route takes it.
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

    /// Whether a read-only path takes the method (`GET` or `HEAD`).
    pub fn reads(self) -> bool {
        matches!(self, Method::Get | Method::Head)
    }
}

/// What the wire answers by itself: a file, or a plain refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// One of the web client's embedded files.
    Asset(&'static Asset),
    /// No such path.
    NotFound,
    /// The path exists but not for this method (only `GET` and `HEAD`).
    MethodNotAllowed,
}

/// The path of a request `target` (what precedes `?query` or
/// `#fragment`).
pub fn path_of(target: &str) -> &str {
    target.split(['?', '#']).next().unwrap_or_default()
}

/// The file `method` on `target` asks for (the root is the page; a
/// query is ignored), or why not.
pub fn route(method: Method, target: &str) -> Route {
    let path = path_of(target);
    let path = if path == "/" { "/index.html" } else { path };
    match (ASSETS.iter().find(|a| a.path == path), method.reads()) {
        (None, _) => Route::NotFound,
        (Some(asset), true) => Route::Asset(asset),
        (Some(_), false) => Route::MethodNotAllowed,
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
