//! `--behind-proxy`: a trusted proxy's `X-Forwarded-For` decides the
//! address the per-address limits count against; anyone else's is
//! ignored.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_protocol::ErrorCode;
use parlor_server::http::Proxies;
use parlor_server::limits::Limits;
use parlor_server::Config;
use parlor_tests::{start_server_with, Raw};
use serde_json::json;

/// A server allowing one unfinished room per address, trusting `proxies`.
async fn server(proxies: &[&str]) -> parlor_tests::TestServer {
    start_server_with(Config {
        limits: Limits {
            rooms_per_address: 1,
            ..Limits::default()
        },
        proxies: Proxies::new(proxies.iter().map(|p| p.parse().unwrap()).collect()),
        ..Config::default()
    })
    .await
}

/// A client whose upgrade carries `X-Forwarded-For: forwarded`.
async fn via(url: &str, forwarded: &str) -> Raw {
    Raw::greeted_with_headers(url, &[("X-Forwarded-For", forwarded)], "p").await
}

/// Asks for a Nimrod room and expects the per-address refusal.
async fn refused(c: &mut Raw) {
    c.send_json(json!({"type": "create_room", "game": "nimrod"}))
        .await;
    c.expect_error(ErrorCode::RoomTooMany).await;
}

#[tokio::test]
async fn a_trusted_proxys_clients_count_by_their_forwarded_addresses() {
    let server = server(&["127.0.0.0/8"]).await;
    let url = server.url();
    let mut a = via(&url, "198.51.100.1").await;
    a.create("nimrod", json!(null), None).await;
    // Another client through the same proxy has a room of its own...
    let mut b = via(&url, "198.51.100.2").await;
    b.create("nimrod", json!(null), None).await;
    // ...and the first one's address has used its one.
    let mut again = via(&url, "203.0.113.50, 198.51.100.1").await;
    refused(&mut again).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_untrusted_peers_forwarded_header_is_ignored() {
    // The proxy is elsewhere: 127.0.0.1 is a client like any other.
    let server = server(&["192.0.2.1"]).await;
    let url = server.url();
    let mut a = via(&url, "198.51.100.1").await;
    a.create("nimrod", json!(null), None).await;
    // Claiming another address does not buy another room.
    let mut b = via(&url, "198.51.100.2").await;
    refused(&mut b).await;
    server.stop().await.unwrap();
}

/// Sends one API request through "the proxy" (this test, on 127.0.0.1)
/// with the forwarded headers given; the status and the whole answer.
async fn post_via(
    addr: std::net::SocketAddr,
    path: &str,
    forwarded: &[(&str, &str)],
    body: serde_json::Value,
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = body.to_string();
    let mut text = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (n, v) in forwarded {
        text.push_str(&format!("{n}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(text.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        stream.read_to_end(&mut all),
    )
    .await
    .expect("answered and closed")
    .unwrap();
    let all = String::from_utf8_lossy(&all).into_owned();
    let status = all
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, all)
}

#[tokio::test]
async fn the_proxys_scheme_decides_whether_a_password_may_cross() {
    let server = server(&["127.0.0.1"]).await;
    let addr = server.addr();
    let account = json!({"name": "far_away", "password": "correct horse", "kind": "human"});
    // A client elsewhere, reaching the proxy over plain HTTP: refused.
    let (status, text) = post_via(
        addr,
        "/api/accounts",
        &[
            ("X-Forwarded-For", "198.51.100.7"),
            ("X-Forwarded-Proto", "http"),
        ],
        account.clone(),
    )
    .await;
    assert_ne!(status, 201, "{text}");
    assert!(text.contains("auth/insecure"), "{text}");
    // The same over HTTPS at the proxy: accepted, and the session cookie
    // of the login that follows is marked Secure.
    let https = [
        ("X-Forwarded-For", "198.51.100.7"),
        ("X-Forwarded-Proto", "https"),
    ];
    let (status, text) = post_via(addr, "/api/accounts", &https, account).await;
    assert_eq!(status, 201, "{text}");
    let (status, text) = post_via(
        addr,
        "/api/login",
        &https,
        json!({"name": "far_away", "password": "correct horse"}),
    )
    .await;
    assert_eq!(status, 200, "{text}");
    let cookie = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_default();
    assert!(cookie.contains("Secure"), "{text}");
    server.stop().await.unwrap();
}
