//! Plain HTTP on the game port: the web client's files, refusals, and
//! the WebSocket upgrade still working beside them.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use parlor_server::http::{ContentType, ASSETS, MAX_HEAD_BYTES};
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
    let end = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {:?}", String::from_utf8_lossy(&all)));
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
    Answer {
        status,
        headers,
        body: all[end + 4..].to_vec(),
    }
}

async fn get(addr: SocketAddr, path: &str) -> Answer {
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: */*\r\n\r\n");
    exchange(addr, req.as_bytes()).await
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
    let mut c = Raw::greeted(&server.url(), "after the page").await;
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
        format!("HEAD / HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes(),
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
        format!("POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n").as_bytes(),
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
