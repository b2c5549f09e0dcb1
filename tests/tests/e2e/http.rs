//! Plain HTTP on the game port: the web client's files, refusals,
//! connections kept alive, and the WebSocket upgrade beside them (bad
//! upgrades answered as RFC 6455 asks).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_server::http::{
    ContentType, ASSETS, KEEP_ALIVE_IDLE, MAX_HEAD_BYTES, MAX_REQUESTS_PER_CONNECTION,
};
use parlor_tests::{nimrod_pair, play_out_nimrod, start_server, Raw, PATIENCE};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An HTTP answer read to the end of the connection.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` as it is and reads the answer until the server closes.
async fn exchange(addr: SocketAddr, request: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut all))
        .await
        .expect("the server did not close after answering")
        .unwrap();
    let (answer, _) = parse(&all);
    answer
}

/// The answer at the start of `all`, and how many bytes its head took.
fn parse(all: &[u8]) -> (Answer, usize) {
    let end = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {:?}", String::from_utf8_lossy(all)));
    let head = String::from_utf8(all[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    (
        Answer {
            status,
            headers,
            body: all[end + 4..].to_vec(),
        },
        end + 4,
    )
}

/// `GET path` on a connection of its own, which the client closes.
async fn get(addr: SocketAddr, path: &str) -> Answer {
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: */*\r\nConnection: close\r\n\r\n");
    exchange(addr, req.as_bytes()).await
}

/// One client connection kept alive across requests.
struct KeptAlive {
    stream: TcpStream,
    /// Read beyond the last answer.
    buf: Vec<u8>,
}

impl KeptAlive {
    async fn connect(addr: SocketAddr) -> KeptAlive {
        KeptAlive {
            stream: TcpStream::connect(addr).await.unwrap(),
            buf: Vec::new(),
        }
    }

    async fn send(&mut self, request: &str) {
        self.stream.write_all(request.as_bytes()).await.unwrap();
    }

    /// The next answer, read by its `Content-Length` (the connection
    /// stays open); `None` if the server closed instead.
    async fn answer(&mut self, head_only: bool) -> Option<Answer> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let (mut answer, head_len) = parse(&self.buf[..end + 4]);
                let length: usize = if head_only {
                    0
                } else {
                    answer.header("content-length").unwrap().parse().unwrap()
                };
                while self.buf.len() < head_len + length {
                    let n = tokio::time::timeout(PATIENCE, self.stream.read(&mut chunk))
                        .await
                        .expect("the body did not come")
                        .unwrap();
                    assert!(n > 0, "closed within a body");
                    self.buf.extend_from_slice(&chunk[..n]);
                }
                answer.body = self.buf[head_len..head_len + length].to_vec();
                self.buf.drain(..head_len + length);
                return Some(answer);
            }
            let n = tokio::time::timeout(PATIENCE, self.stream.read(&mut chunk))
                .await
                .expect("no answer")
                .unwrap_or(0);
            if n == 0 {
                assert!(self.buf.is_empty(), "closed within a head");
                return None;
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    async fn get(&mut self, path: &str) -> Option<Answer> {
        self.send(&format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"))
            .await;
        self.answer(false).await
    }
}

#[tokio::test]
async fn the_page_is_served_at_the_root_with_strict_headers() {
    let server = start_server(None).await;
    let page = get(server.addr(), "/").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(
        page.header("content-length"),
        Some(page.body.len().to_string().as_str())
    );
    let index = ASSETS.iter().find(|a| a.path == "/index.html").unwrap();
    assert_eq!(page.body, index.body);
    assert!(String::from_utf8_lossy(&page.body).contains("<script type=\"module\""));
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(csp.contains("connect-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe"), "{csp}");
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn every_embedded_file_is_served_with_its_type() {
    let server = start_server(None).await;
    for asset in ASSETS {
        let got = get(server.addr(), asset.path).await;
        assert_eq!(got.status, 200, "{}", asset.path);
        assert_eq!(got.body, asset.body, "{}", asset.path);
        assert_eq!(got.header("content-type"), Some(asset.content_type.mime()));
    }
    assert!(ASSETS
        .iter()
        .any(|a| a.content_type == ContentType::JavaScript));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn page_loads_do_not_use_up_an_address_connection_budget() {
    let server = start_server(None).await;
    // More embedded files than the default burst of connections an
    // address may open, one connection each, as a browser reloading the
    // page a few times would fetch them ...
    let burst = parlor_server::limits::Limits::default()
        .admission
        .map_or(64.0, |p| p.burst);
    let fetches = (burst as usize) * 2;
    for i in 0..fetches {
        let asset = &ASSETS[i % ASSETS.len()];
        let got = get(server.addr(), asset.path).await;
        assert_eq!(got.status, 200, "fetch {i} of {}", asset.path);
    }
    // ... and the same address still gets its WebSocket.
    let mut c = Raw::greeted(&server.url(), "after-the-page").await;
    c.send(&parlor_protocol::ClientMsg::Ping { id: Some(1) })
        .await;
    c.expect(|m| matches!(m, parlor_protocol::ServerMsg::Pong { .. }).then_some(()))
        .await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn head_answers_without_a_body() {
    let server = start_server(None).await;
    let addr = server.addr();
    let full = get(addr, "/").await;
    let head = exchange(
        addr,
        format!("HEAD / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-length"), full.header("content-length"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn unknown_paths_are_404_and_other_methods_405() {
    let server = start_server(None).await;
    let addr = server.addr();
    for path in ["/nope", "/../Cargo.toml", "/js/", "/index.html/x"] {
        assert_eq!(get(addr, path).await.status, 404, "{path}");
    }
    let post = exchange(
        addr,
        format!("POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 5\r\n\r\nhello").as_bytes(),
    )
    .await;
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_oversized_or_garbled_head_is_refused() {
    let server = start_server(None).await;
    let addr = server.addr();
    let mut big = format!("GET / HTTP/1.1\r\nHost: {addr}\r\n").into_bytes();
    while big.len() <= MAX_HEAD_BYTES {
        big.extend_from_slice(b"X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
    }
    big.extend_from_slice(b"\r\n");
    assert_eq!(exchange(addr, &big).await.status, 431);
    assert_eq!(exchange(addr, b"NOT HTTP AT ALL\r\n\r\n").await.status, 400);
    // The server still serves after both.
    assert_eq!(get(addr, "/").await.status, 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_websocket_still_upgrades_on_the_same_port() {
    let server = start_server(None).await;
    assert_eq!(get(server.addr(), "/").await.status, 200);
    let mut alice = Raw::greeted(&server.url(), "alice").await;
    let room = alice.create("nimrod", json!({"piles": [2, 3]}), None).await;
    let update = alice.join(&room, 0).await;
    assert_eq!(update.seq, 0);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_silent_connection_is_dropped_and_shutdown_is_not_held_up_by_one() {
    let server = start_server(None).await;
    let mut idle = TcpStream::connect(server.addr()).await.unwrap();
    // The server stops although a connection has sent no head yet.
    server.stop().await.unwrap();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(PATIENCE, idle.read(&mut buf))
        .await
        .unwrap()
        .unwrap_or(0);
    assert_eq!(n, 0);
}

#[tokio::test]
async fn a_finished_match_replays_as_the_positions_it_went_through() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (a, b, room, first) = nimrod_pair(&server.url(), [3, 5]).await;
    // While the match is on, its deal is secret: no replay yet.
    let early = get(addr, &format!("/api/replay/{room}")).await;
    assert_eq!(early.status, 409);
    let mut players = [a, b];
    let last = play_out_nimrod(&mut players, &room, first).await;
    assert!(last.outcome.is_some());
    let got = get(addr, &format!("/api/replay/{room}")).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_slice(&got.body).unwrap();
    let views = body["views"].as_array().unwrap();
    // One view before the first step and one after each.
    assert_eq!(views.len() as u64, last.seq + 1);
    assert_eq!(views[0]["piles"], json!([3, 5]));
    assert_eq!(views.last().unwrap()["piles"], json!([0, 0]));
    assert_eq!(body["truncated"], json!(false));
    assert_eq!(get(addr, "/api/replay/000000000000").await.status, 404);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_page_and_its_files_load_over_one_connection_kept_alive() {
    let server = start_server(None).await;
    let mut conn = KeptAlive::connect(server.addr()).await;
    // The page, then every file it is made of, one after the other.
    for asset in ASSETS {
        let got = conn.get(asset.path).await.expect("closed mid-page");
        assert_eq!(got.status, 200, "{}", asset.path);
        assert_eq!(got.body, asset.body, "{}", asset.path);
        assert_eq!(got.header("connection"), None, "{}", asset.path);
        assert!(got.header("keep-alive").is_some(), "{}", asset.path);
    }
    // Other answers keep it too: a 404, the health check, a HEAD.
    assert_eq!(conn.get("/nope").await.map(|a| a.status), Some(404));
    assert_eq!(conn.get("/healthz").await.map(|a| a.status), Some(200));
    conn.send("HEAD /style.css HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    assert_eq!(conn.answer(true).await.map(|a| a.status), Some(200));
    // Two requests sent at once are answered in order.
    conn.send(
        "GET /favicon.svg HTTP/1.1\r\nHost: x\r\n\r\nGET /js/net.js HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .await;
    for path in ["/favicon.svg", "/js/net.js"] {
        let got = conn.answer(false).await.expect("closed mid-pipeline");
        let asset = ASSETS.iter().find(|a| a.path == path).unwrap();
        assert_eq!(got.body, asset.body, "{path}");
    }
    // A client saying it is done gets `Connection: close`, and the close.
    conn.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await;
    let last = conn.answer(false).await.expect("no last answer");
    assert_eq!(last.status, 200);
    assert_eq!(last.header("connection"), Some("close"));
    assert!(conn.answer(false).await.is_none(), "still open after close");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_kept_connection_is_closed_after_its_request_bound() {
    let server = start_server(None).await;
    let mut conn = KeptAlive::connect(server.addr()).await;
    for i in 1..=MAX_REQUESTS_PER_CONNECTION {
        let got = conn.get("/favicon.svg").await.expect("closed early");
        assert_eq!(got.status, 200);
        let closing = got.header("connection") == Some("close");
        assert_eq!(closing, i == MAX_REQUESTS_PER_CONNECTION, "request {i}");
    }
    assert!(conn.get("/favicon.svg").await.is_none());
    // HTTP/1.0 closes after one answer unless it asks to keep alive.
    let mut old = KeptAlive::connect(server.addr()).await;
    old.send("GET / HTTP/1.0\r\n\r\n").await;
    let got = old.answer(false).await.unwrap();
    assert_eq!(got.header("connection"), Some("close"));
    assert!(old.answer(false).await.is_none());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_idle_kept_connection_is_closed_after_its_idle_time() {
    let server = start_server(None).await;
    let mut conn = KeptAlive::connect(server.addr()).await;
    assert_eq!(conn.get("/").await.map(|a| a.status), Some(200));
    let since = tokio::time::Instant::now();
    let mut byte = [0u8; 1];
    let n = tokio::time::timeout(KEEP_ALIVE_IDLE + PATIENCE, conn.stream.read(&mut byte))
        .await
        .expect("an idle connection was kept")
        .unwrap_or(0);
    assert_eq!(n, 0);
    assert!(
        since.elapsed() + Duration::from_millis(500) >= KEEP_ALIVE_IDLE,
        "closed after {:?}",
        since.elapsed()
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_kept_connection_may_go_on_to_its_websocket() {
    let server = start_server(None).await;
    let mut conn = KeptAlive::connect(server.addr()).await;
    assert_eq!(conn.get("/").await.map(|a| a.status), Some(200));
    conn.send(
        "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .await;
    let switched = conn
        .answer(true)
        .await
        .expect("closed instead of upgrading");
    assert_eq!(switched.status, 101);
    assert_eq!(
        switched.header("sec-websocket-accept"),
        Some("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_kept_connection_going_on_to_its_websocket_counts_against_its_address_again() {
    // Two connections per address, and no refill to speak of.
    let server = parlor_tests::start_server_with(parlor_server::Config {
        limits: parlor_server::limits::Limits {
            admission: Some(parlor_server::admission::AdmissionPolicy {
                per_second: 0.001,
                burst: 2.0,
                flood_cooldown: Duration::from_secs(1),
            }),
            ..parlor_server::limits::Limits::default()
        },
        ..parlor_server::Config::default()
    })
    .await;
    // A page load gives its place back ...
    let mut page = KeptAlive::connect(server.addr()).await;
    assert_eq!(page.get("/").await.map(|a| a.status), Some(200));
    // ... which two WebSockets then take.
    let _b = Raw::greeted(&server.url(), "b").await;
    let _c = Raw::greeted(&server.url(), "c").await;
    // Going on to a WebSocket on the page's connection needs a place too.
    page.send(
        "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .await;
    let refused = page.answer(false).await.expect("closed without an answer");
    assert_eq!(refused.status, 429);
    server.stop().await.unwrap();
}

/// An upgrade request to `/` with `lines` (each ending in CRLF) and
/// `method`/`version` on its request line.
fn upgrade(method: &str, version: &str, lines: &str) -> Vec<u8> {
    format!(
        "{method} / HTTP/{version}\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n{lines}\r\n"
    )
    .into_bytes()
}

#[tokio::test]
async fn bad_websocket_upgrades_are_answered_400_or_426() {
    let server = start_server(None).await;
    let addr = server.addr();
    const KEY: &str = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    const V13: &str = "Sec-WebSocket-Version: 13\r\n";
    let cases: [(&str, Vec<u8>, u16); 7] = [
        ("no key", upgrade("GET", "1.1", V13), 400),
        (
            "an empty key",
            upgrade("GET", "1.1", &format!("Sec-WebSocket-Key: \r\n{V13}")),
            400,
        ),
        (
            "a key of 3 bytes",
            upgrade("GET", "1.1", &format!("Sec-WebSocket-Key: YWJj\r\n{V13}")),
            400,
        ),
        ("no version", upgrade("GET", "1.1", KEY), 426),
        (
            "version 8",
            upgrade("GET", "1.1", &format!("{KEY}Sec-WebSocket-Version: 8\r\n")),
            426,
        ),
        ("POST", upgrade("POST", "1.1", &format!("{KEY}{V13}")), 400),
        (
            "HTTP/1.0",
            upgrade("GET", "1.0", &format!("{KEY}{V13}")),
            400,
        ),
    ];
    for (what, request, want) in cases {
        let got = exchange(addr, &request).await;
        assert_eq!(got.status, want, "{what}");
        assert!(!got.body.is_empty(), "{what}: no reason given");
        assert_eq!(got.header("connection"), Some("close"), "{what}");
        if want == 426 {
            assert_eq!(got.header("sec-websocket-version"), Some("13"), "{what}");
        }
        assert!(got.header("sec-websocket-accept").is_none(), "{what}");
    }
    // A sound upgrade still goes through.
    let mut c = Raw::greeted(&server.url(), "after-them").await;
    c.send(&parlor_protocol::ClientMsg::Ping { id: Some(1) })
        .await;
    c.expect(|m| matches!(m, parlor_protocol::ServerMsg::Pong { .. }).then_some(()))
        .await;
    server.stop().await.unwrap();
}
