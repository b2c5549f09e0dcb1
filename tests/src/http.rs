//! Talking HTTP to a test server: one request per connection, and the
//! account helpers built on it (register, tokens).

use std::net::SocketAddr;

use base64::Engine;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::PATIENCE;

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The header lines.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`null` if it is not).
    pub body: Value,
    /// The body as text.
    pub text: String,
}

impl Answer {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The error code in the body.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    /// The session cookie's value set by this answer.
    pub fn session(&self) -> String {
        let set = self.header("set-cookie").expect("a cookie is set");
        let pair = set.split(';').next().unwrap();
        pair.strip_prefix("parlor_session=").unwrap().to_owned()
    }
}

/// Sends one request (closing the connection after) and reads the answer.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Option<Value>,
) -> Answer {
    let stream = TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    request_on(stream, addr, method, path, headers, body).await
}

/// [`request`] over a connection already open (e.g. from a chosen
/// loopback address).
pub async fn request_on(
    mut stream: TcpStream,
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Option<Value>,
) -> Answer {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut text = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (n, v) in headers {
        text.push_str(&format!("{n}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(&body);
    stream.write_all(text.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut all))
        .await
        .expect("the server did not close after answering")
        .unwrap();
    let end = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(all[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    let body = serde_json::from_slice(&all[end + 4..]).unwrap_or(Value::Null);
    let text = String::from_utf8_lossy(&all[end + 4..]).into_owned();
    Answer {
        status,
        headers,
        body,
        text,
    }
}

/// Registers an account with the password `correct horse`.
pub async fn register(addr: SocketAddr, name: &str, kind: &str) -> Answer {
    request(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(json!({"name": name, "password": "correct horse", "kind": kind})),
    )
    .await
}

/// Logs in.
pub async fn login(addr: SocketAddr, name: &str, password: &str) -> Answer {
    request(
        addr,
        "POST",
        "/api/login",
        &[],
        Some(json!({"name": name, "password": password})),
    )
    .await
}

/// An HTTP Basic header.
pub fn basic(name: &str, password: &str) -> (&'static str, String) {
    let b = base64::engine::general_purpose::STANDARD.encode(format!("{name}:{password}"));
    ("Authorization", format!("Basic {b}"))
}

/// A bearer-token header.
pub fn bearer(token: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {token}"))
}

/// Registers a bot account `name` and makes it an API token: the token and its id.
pub async fn account_with_token(addr: SocketAddr, name: &str) -> (String, i64) {
    account_of_kind_with_token(addr, name, "bot").await
}

/// Registers an account `name` of `kind` (`"bot"` or `"human"`) and makes
/// it an API token: the token and its id.
pub async fn account_of_kind_with_token(addr: SocketAddr, name: &str, kind: &str) -> (String, i64) {
    assert_eq!(register(addr, name, kind).await.status, 201);
    let made = request(
        addr,
        "POST",
        "/api/tokens",
        &[basic(name, "correct horse")],
        None,
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    (
        made.body["token"].as_str().unwrap().to_owned(),
        made.body["id"].as_i64().unwrap(),
    )
}
