//! Checking a WebSocket upgrade request before the handshake, so that a
//! bad one is answered as RFC 6455 (section 4.2) asks rather than closed
//! without a word or, with an empty key, accepted.

use super::head::Head;

/// The only WebSocket version there is (RFC 6455).
pub const WEBSOCKET_VERSION: &str = "13";

/// Length of a `Sec-WebSocket-Key`: 16 bytes in base64, padding included.
const KEY_CHARS: usize = 24;

/// What is wrong with an upgrade request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadUpgrade {
    /// Not a `GET`.
    Method,
    /// Older than HTTP/1.1.
    HttpVersion,
    /// `Connection` does not list `Upgrade`.
    NoConnectionUpgrade,
    /// `Sec-WebSocket-Version` missing, repeated or not 13: answered
    /// `426 Upgrade Required` with the version the server speaks.
    WebSocketVersion,
    /// `Sec-WebSocket-Key` missing, repeated, or not 16 bytes in base64.
    Key,
    /// The upgrade carries the session cookie but comes from another
    /// site's page (its `Origin` is neither the server's nor an allowed
    /// one): answered `403 Forbidden`, `auth/bad_origin`.
    ForeignOrigin,
}

impl BadUpgrade {
    /// The status line's code and reason.
    pub fn status(self) -> &'static str {
        match self {
            BadUpgrade::WebSocketVersion => "426 Upgrade Required",
            BadUpgrade::ForeignOrigin => "403 Forbidden",
            _ => "400 Bad Request",
        }
    }

    /// Why, for people.
    pub fn reason(self) -> &'static str {
        match self {
            BadUpgrade::Method => "a WebSocket upgrade must be a GET request\n",
            BadUpgrade::HttpVersion => "a WebSocket upgrade needs HTTP/1.1 or later\n",
            BadUpgrade::NoConnectionUpgrade => {
                "a WebSocket upgrade must say `Connection: Upgrade`\n"
            }
            BadUpgrade::WebSocketVersion => "this server speaks WebSocket version 13 only\n",
            BadUpgrade::Key => {
                "a WebSocket upgrade needs one Sec-WebSocket-Key: 16 bytes in base64\n"
            }
            BadUpgrade::ForeignOrigin => {
                "auth/bad_origin: the session cookie may be used only from this server's pages\n"
            }
        }
    }
}

/// Whether `head` (which asks to upgrade to WebSocket) is an upgrade the
/// handshake can answer.
pub fn check(head: &Head) -> Result<(), BadUpgrade> {
    if head.method != "GET" {
        return Err(BadUpgrade::Method);
    }
    if head.minor < 1 {
        return Err(BadUpgrade::HttpVersion);
    }
    if !head.lists("connection", "upgrade") {
        return Err(BadUpgrade::NoConnectionUpgrade);
    }
    if head.count("sec-websocket-version") != 1
        || head.header("sec-websocket-version").map(str::trim) != Some(WEBSOCKET_VERSION)
    {
        return Err(BadUpgrade::WebSocketVersion);
    }
    match head.header("sec-websocket-key") {
        Some(key) if head.count("sec-websocket-key") == 1 && is_key(key.trim()) => Ok(()),
        _ => Err(BadUpgrade::Key),
    }
}

/// Whether `key` is 16 bytes in base64: 22 characters of the alphabet,
/// then the padding.
fn is_key(key: &str) -> bool {
    let Some(data) = key.strip_suffix("==") else {
        return false;
    };
    key.len() == KEY_CHARS
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use super::*;

    const GOOD_KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";

    fn head(method: &str, version: &str, extra: &[(&str, &str)]) -> Head {
        let mut text = format!(
            "{method} / HTTP/{version}\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
        );
        for (name, value) in extra {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        text.push_str("\r\n");
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut req = httparse::Request::new(&mut headers);
        let Ok(httparse::Status::Complete(len)) = req.parse(text.as_bytes()) else {
            panic!("{text}");
        };
        Head {
            method: method.to_owned(),
            target: "/".to_owned(),
            minor: req.version.unwrap_or_default(),
            upgrade: true,
            headers: req
                .headers
                .iter()
                .map(|h| {
                    (
                        h.name.to_owned(),
                        String::from_utf8_lossy(h.value).into_owned(),
                    )
                })
                .collect(),
            bytes: text.clone().into_bytes(),
            len,
        }
    }

    fn with(key: Option<&str>, version: Option<&str>) -> Head {
        let mut extra = Vec::new();
        if let Some(k) = key {
            extra.push(("Sec-WebSocket-Key", k));
        }
        if let Some(v) = version {
            extra.push(("Sec-WebSocket-Version", v));
        }
        head("GET", "1.1", &extra)
    }

    #[test]
    fn a_proper_upgrade_passes() {
        assert_eq!(check(&with(Some(GOOD_KEY), Some("13"))), Ok(()));
    }

    #[test]
    fn each_fault_is_told_apart() {
        let good = [
            ("Sec-WebSocket-Key", GOOD_KEY),
            ("Sec-WebSocket-Version", "13"),
        ];
        assert_eq!(check(&head("POST", "1.1", &good)), Err(BadUpgrade::Method));
        assert_eq!(
            check(&head("GET", "1.0", &good)),
            Err(BadUpgrade::HttpVersion)
        );
        assert_eq!(
            check(&with(Some(GOOD_KEY), None)),
            Err(BadUpgrade::WebSocketVersion)
        );
        assert_eq!(
            check(&with(Some(GOOD_KEY), Some("8"))),
            Err(BadUpgrade::WebSocketVersion)
        );
        for key in [
            None,
            Some(""),
            Some("short=="),
            Some("dGhlIHNhbXBsZSBub25jZQ"),
            Some("dGhlIHNhbXBsZSBub25j*Q=="),
        ] {
            assert_eq!(
                check(&with(key, Some("13"))),
                Err(BadUpgrade::Key),
                "{key:?}"
            );
        }
        let mut twice = with(Some(GOOD_KEY), Some("13"));
        twice
            .headers
            .push(("Sec-WebSocket-Key".into(), GOOD_KEY.into()));
        assert_eq!(check(&twice), Err(BadUpgrade::Key));
        let mut no_connection = with(Some(GOOD_KEY), Some("13"));
        no_connection
            .headers
            .retain(|(n, _)| !n.eq_ignore_ascii_case("connection"));
        assert_eq!(check(&no_connection), Err(BadUpgrade::NoConnectionUpgrade));
        assert_eq!(
            BadUpgrade::WebSocketVersion.status(),
            "426 Upgrade Required"
        );
        assert_eq!(BadUpgrade::Key.status(), "400 Bad Request");
    }
}
