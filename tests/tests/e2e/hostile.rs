//! Hostile clients end to end: floods, silence, caps, garbage. Durations
//! are set short through `Config::limits`; nothing here waits on a timer
//! of its own (every wait is for an event, bounded by `PATIENCE`).

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::Ipv4Addr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parlor_protocol::{ClientMsg, ErrorCode, ServerMsg};
use parlor_server::admission::AdmissionPolicy;
use parlor_server::limits::{Limits, MAX_FRAME_BYTES, MAX_REFUSED_PER_SECOND, MESSAGE_BURST};
use parlor_server::Config;
use parlor_tests::{
    nimrod_pair, play_out_nimrod, start_server, start_server_with, Raw, Received, Wire, WireFrame,
    PATIENCE,
};
use serde_json::{json, Value};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

fn config(limits: Limits) -> Config {
    Config {
        limits,
        ..Config::default()
    }
}

fn code_of(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    (v["type"] == "error").then(|| v["code"].as_str().unwrap_or_default().to_owned())
}

/// Plays a Nimrod game between two fresh clients to its end.
async fn a_game_finishes(url: &str) {
    let mut a = Raw::greeted(url, "a").await;
    let room = a.create("nimrod", json!({"piles": [5, 8]}), None).await;
    a.join(&room, 0).await;
    let mut b = Raw::greeted(url, "b").await;
    let u = b.join(&room, 1).await;
    let last = play_out_nimrod(&mut [a, b], &room, u).await;
    assert!(last.outcome.is_some());
}

/// A WebSocket handshake from a chosen loopback address, so that a test's
/// hostile client and its well-behaved ones are told apart by address.
async fn connect_from(
    server: std::net::SocketAddr,
    source: Ipv4Addr,
) -> Result<WebSocketStream<TcpStream>, WsError> {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((source, 0).into()).unwrap();
    let tcp = socket.connect(server).await.unwrap();
    tokio_tungstenite::client_async(format!("ws://{server}"), tcp)
        .await
        .map(|(ws, _)| ws)
}

/// The HTTP status a refused handshake got.
fn refused_status(r: Result<WebSocketStream<TcpStream>, WsError>) -> Option<u16> {
    match r {
        Err(WsError::Http(resp)) => Some(resp.status().as_u16()),
        _ => None,
    }
}

#[tokio::test]
async fn a_flood_is_throttled_then_disconnected_while_other_rooms_play() {
    let server = start_server(None).await;
    let url = server.url();
    let flooder = Ipv4Addr::new(127, 0, 0, 2);
    let ws = connect_from(server.addr(), flooder).await.unwrap();
    let (mut sink, mut source) = ws.split();
    sink.send(Message::Text(r#"{"type":"hello","version":1}"#.into()))
        .await
        .unwrap();
    let flood = (MESSAGE_BURST + MAX_REFUSED_PER_SECOND) as usize * 4;
    let writer = tokio::spawn(async move {
        for _ in 0..flood {
            if sink
                .feed(Message::Text(r#"{"type":"ping"}"#.into()))
                .await
                .is_err()
            {
                return;
            }
        }
        let _ = sink.flush().await;
    });
    // Meanwhile another room plays to its end.
    a_game_finishes(&url).await;
    let mut throttled = 0;
    let close = loop {
        match tokio::time::timeout(PATIENCE, source.next()).await.unwrap() {
            Some(Ok(Message::Text(t))) => {
                if code_of(t.as_str()).as_deref() == Some("request/rate_limited") {
                    throttled += 1;
                }
            }
            Some(Ok(Message::Close(f))) => break f.map(|f| u16::from(f.code)),
            Some(Ok(_)) => {}
            None | Some(Err(_)) => break None,
        }
    };
    writer.abort();
    assert!(throttled > 0, "no rate_limited error before the close");
    assert_eq!(close, Some(1008));
    // The flooder's address cools down: coming straight back is refused
    // before the handshake, while other addresses play on.
    assert_eq!(
        refused_status(connect_from(server.addr(), flooder).await),
        Some(429)
    );
    a_game_finishes(&url).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_address_connecting_too_fast_is_turned_away_with_429() {
    let limits = Limits {
        admission: Some(AdmissionPolicy {
            per_second: 0.01,
            burst: 3.0,
            flood_cooldown: Duration::from_secs(10),
        }),
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    let eager = Ipv4Addr::new(127, 0, 0, 3);
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(connect_from(server.addr(), eager).await.unwrap());
    }
    assert_eq!(
        refused_status(connect_from(server.addr(), eager).await),
        Some(429)
    );
    // The connections it already has keep working.
    open[0]
        .send(Message::Text(r#"{"type":"hello","version":1}"#.into()))
        .await
        .unwrap();
    let welcome = tokio::time::timeout(PATIENCE, open[0].next())
        .await
        .unwrap();
    assert!(matches!(welcome, Some(Ok(Message::Text(t))) if t.as_str().contains("welcome")));
    // Another address is not affected.
    a_game_finishes(&server.url()).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn silent_connections_are_dropped_after_the_hello_timeout() {
    let limits = Limits {
        hello_timeout: Duration::from_millis(200),
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    // A TCP connection that never starts the WebSocket handshake.
    let mut tcp = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let mut byte = [0u8; 1];
    let n = tokio::time::timeout(PATIENCE, tokio::io::AsyncReadExt::read(&mut tcp, &mut byte))
        .await
        .unwrap()
        .unwrap_or(0);
    assert_eq!(n, 0, "the server should close a silent TCP connection");
    // A WebSocket that never says hello.
    let mut w = Wire::connect(server.addr()).await;
    let (texts, close) = w.drain().await;
    assert!(texts
        .iter()
        .any(|t| code_of(t).as_deref() == Some("request/hello_first")));
    assert_eq!(close, Some(1008));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_idle_connection_is_dropped_after_the_idle_timeout() {
    let limits = Limits {
        keepalive_interval: Duration::from_millis(50),
        idle_timeout: Duration::from_millis(200),
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    // This client never answers the server's pings.
    let mut w = Wire::connect(server.addr()).await;
    w.send_text(r#"{"type":"hello","version":1}"#)
        .await
        .unwrap();
    let (texts, close) = w.drain().await;
    assert!(texts.iter().any(|t| t.contains("\"welcome\"")));
    assert!(texts
        .iter()
        .any(|t| code_of(t).as_deref() == Some("connection/idle")));
    assert_eq!(close, Some(1000));
    // A client that answers pings (tungstenite does it while reading) stays.
    a_game_finishes(&server.url()).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_client_that_never_reads_is_disconnected_when_its_queue_is_full() {
    let server = start_server(None).await;
    let url = server.url();
    // Rooms make each listing a few KiB.
    // (From several creators: one may only have a few rooms open; and
    // fewer than one address may have open.)
    let mut host = Raw::greeted(&url, "host").await;
    for i in 0..30 {
        if i % 10 == 0 {
            host = Raw::greeted(&url, "host").await;
        }
        host.create("nimrod", json!({"piles": [3, 4]}), None).await;
    }
    let mut w = Wire::connect(server.addr()).await;
    w.send_text(r#"{"type":"hello","version":1}"#)
        .await
        .unwrap();
    // Ask for far more than socket buffers and the outbox hold, never
    // reading; then keep writing until the server has hung up on us.
    let mut gone = false;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    'outer: while tokio::time::Instant::now() < deadline {
        for _ in 0..(MESSAGE_BURST / 2) {
            if w.send_text(r#"{"type":"list_rooms"}"#).await.is_err() {
                gone = true;
                break 'outer;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "the server kept a client that never reads");
    // Everyone else is fine.
    host.send_json(json!({"type": "list_rooms"})).await;
    host.expect(|m| matches!(m, ServerMsg::Rooms { .. }).then_some(()))
        .await;
    a_game_finishes(&url).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_connection_cap_refuses_newcomers_while_games_go_on() {
    let limits = Limits {
        max_connections: 2,
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    let url = server.url();
    let (a, b, room, u) = nimrod_pair(&url, [5, 8]).await;
    // The place is taken before the handshake: past the cap, a newcomer
    // gets HTTP 503 and no WebSocket at all.
    let refused = connect_from(server.addr(), Ipv4Addr::new(127, 0, 0, 1)).await;
    assert_eq!(refused_status(refused), Some(503));
    let last = play_out_nimrod(&mut [a, b], &room, u).await;
    assert!(last.outcome.is_some());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_room_cap_refuses_new_rooms_while_games_go_on() {
    let limits = Limits {
        max_rooms: 1,
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    let url = server.url();
    let (a, b, room, u) = nimrod_pair(&url, [5, 8]).await;
    let mut c = Raw::greeted(&url, "c").await;
    c.send_json(json!({"type": "create_room", "game": "nimrod"}))
        .await;
    c.expect_error(ErrorCode::RoomTooMany).await;
    let last = play_out_nimrod(&mut [a, b], &room, u).await;
    assert!(last.outcome.is_some());
    // A finished room lingers only as a courtesy: at the cap it makes way
    // for a new game at once.
    let again = c.create("nimrod", json!({"piles": [2, 3]}), None).await;
    assert_ne!(again, room);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn oversized_binary_and_invalid_utf8_frames_get_stable_codes() {
    let server = start_server(None).await;
    // Binary: refused, the connection stays.
    let mut w = Wire::connect(server.addr()).await;
    w.send_text(r#"{"type":"hello","version":1}"#)
        .await
        .unwrap();
    w.send_frame(2, b"\x00\x01binary").await.unwrap();
    w.send_text(r#"{"type":"ping","id":5}"#).await.unwrap();
    let mut codes = Vec::new();
    loop {
        match w.next().await {
            Some(WireFrame::Text(t)) if t.contains("\"pong\"") => break,
            Some(WireFrame::Text(t)) => codes.extend(code_of(&t)),
            Some(_) => {}
            None => panic!("closed after a binary frame"),
        }
    }
    assert_eq!(codes, ["request/binary"]);
    // Invalid UTF-8 in a text frame: malformed, closed with 1007.
    w.send_frame(1, b"{\"type\":\"ping\",\"x\":\"\xff\xfe\"}")
        .await
        .unwrap();
    let (texts, close) = w.drain().await;
    assert!(texts
        .iter()
        .any(|t| code_of(t).as_deref() == Some("request/malformed")));
    assert_eq!(close, Some(1007));
    // Oversized: too_large, closed with 1009.
    let mut w = Wire::connect(server.addr()).await;
    w.send_text(r#"{"type":"hello","version":1}"#)
        .await
        .unwrap();
    let big = format!(
        r#"{{"type":"hello","name":"{}"}}"#,
        "x".repeat(MAX_FRAME_BYTES)
    );
    let _ = w.send_text(&big).await;
    let (texts, close) = w.drain().await;
    assert!(texts
        .iter()
        .any(|t| code_of(t).as_deref() == Some("request/too_large")));
    assert_eq!(close, Some(1009));
    server.stop().await.unwrap();
}

/// One valid example of every client message, with the kind of each field.
fn templates() -> Vec<(Value, Vec<(&'static str, Kind)>)> {
    use Kind::*;
    vec![
        (
            json!({"type": "hello", "version": 1, "name": "x"}),
            vec![("version", Version), ("name", OptStr)],
        ),
        (
            json!({"type": "resume", "token": "00000000-0000-4000-8000-000000000000"}),
            vec![("token", Uuid)],
        ),
        (json!({"type": "list_rooms"}), vec![]),
        (
            json!({"type": "create_room", "game": "nimrod", "seats": 2, "options": null, "clock": {"per_move": {"ms": 1000}}, "private": true}),
            vec![
                ("game", Game),
                ("seats", OptU8),
                ("options", Any),
                ("clock", OptObj),
                ("private", Bool),
            ],
        ),
        (
            json!({"type": "join", "room": "abc", "seat": 0}),
            vec![("room", Room), ("seat", OptU8)],
        ),
        (
            json!({"type": "spectate", "room": "abc"}),
            vec![("room", Room)],
        ),
        (
            json!({"type": "add_bot", "room": "abc", "seat": 1, "strategy": "random"}),
            vec![("room", Room), ("seat", OptU8), ("strategy", OptStr)],
        ),
        (
            json!({"type": "play", "room": "abc", "seat": 0, "seq": 0, "move": {"take": [1, 0]}}),
            vec![("room", Room), ("seat", U8), ("seq", U64), ("move", Any)],
        ),
        (
            json!({"type": "leave", "room": "abc"}),
            vec![("room", Room)],
        ),
        (
            json!({"type": "get_log", "room": "abc"}),
            vec![("room", Room)],
        ),
        (
            json!({"type": "analyze", "game": "nimrod", "tool": "x", "input": {}}),
            vec![("game", Game), ("tool", Str), ("input", Any)],
        ),
        (json!({"type": "ping", "id": 1}), vec![("id", OptU64)]),
    ]
}

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    U8,
    /// `hello`'s version: any integer, of any size or sign (negotiated,
    /// not refused as malformed; see `docs/protocol/connection.md`).
    Version,
    U64,
    OptU8,
    OptU64,
    Str,
    OptStr,
    Room,
    Uuid,
    Game,
    Bool,
    OptObj,
    Any,
}

/// Values of the wrong type (or out of range) for `kind`.
fn wrong_values(kind: Kind) -> Vec<Value> {
    let huge: Value = serde_json::from_str("18446744073709551616").unwrap();
    let float: Value = serde_json::from_str("1e300").unwrap();
    let mut all = vec![
        json!("text"),
        json!(-1),
        json!(1.5),
        huge,
        float,
        json!(true),
        json!([1, 2]),
        json!({"a": 1}),
        Value::Null,
        json!(256),
        json!(4_294_967_296u64),
    ];
    let ok = |v: &Value| -> bool {
        match kind {
            Kind::U8 => v.as_u64().is_some_and(|n| n < 16),
            Kind::OptU8 => v.is_null() || v.as_u64().is_some_and(|n| n < 16),
            Kind::Version => v
                .as_f64()
                .is_some_and(|f| f.is_finite() && f.fract() == 0.0),
            Kind::U64 => v.as_u64().is_some(),
            Kind::OptU64 => v.is_null() || v.as_u64().is_some(),
            Kind::Str => v.is_string(),
            Kind::OptStr => v.is_null() || v.is_string(),
            Kind::Room => v.is_string(),
            Kind::Uuid | Kind::Game => false,
            Kind::Bool => v.is_boolean(),
            Kind::OptObj => v.is_null(),
            Kind::Any => true,
        }
    };
    all.retain(|v| !ok(v));
    all
}

/// The code a wrong value gets: `request/malformed`, except a room's
/// clock (an object) or seat count (an integer) of the right JSON type but
/// out of range, which asks for a room the server cannot host.
fn expected_code(msg_type: &str, field: &str, bad: &Value) -> ErrorCode {
    let room_option = msg_type == "create_room"
        && ((field == "clock" && bad.is_object())
            || (field == "seats" && (bad.is_i64() || bad.is_u64())));
    if room_option {
        ErrorCode::RoomBadOptions
    } else {
        ErrorCode::RequestMalformed
    }
}

#[test]
fn wrong_types_in_every_field_of_every_message_are_malformed() {
    let mut checked = 0;
    for (template, fields) in templates() {
        assert!(
            parlor_protocol::decode_client(&template.to_string()).is_ok(),
            "{template}"
        );
        for (field, kind) in fields {
            for bad in wrong_values(kind) {
                let mut msg = template.clone();
                msg[field] = bad;
                let got = parlor_protocol::decode_client(&msg.to_string());
                let kind = template["type"].as_str().unwrap_or_default();
                assert_eq!(
                    got.err().map(|e| e.code),
                    Some(expected_code(kind, field, &msg[field])),
                    "{msg}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[tokio::test]
async fn garbage_over_the_wire_gets_stable_codes_and_the_connection_stays() {
    let server = start_server(None).await;
    let mut c = Raw::greeted(&server.url(), "g").await;
    let deep = "[".repeat(100_000 / 2) + &"]".repeat(100_000 / 2);
    let mut cases: Vec<(String, &str)> = vec![
        ("{not json".into(), "request/malformed"),
        (deep[..MAX_FRAME_BYTES - 2].to_owned(), "request/malformed"),
        (
            r#"{"type":"play","room":"abc","seat":0,"seq":1e400,"move":1}"#.into(),
            "request/malformed",
        ),
        (
            r#"{"type":"ping","id":18446744073709551616}"#.into(),
            "request/malformed",
        ),
        (r#"{"type":"teleport"}"#.into(), "request/unknown_type"),
        (
            r#"{"type":"hello","version":1}"#.into(),
            "request/hello_twice",
        ),
    ];
    for (template, fields) in templates() {
        for (field, kind) in fields {
            if let Some(bad) = wrong_values(kind).into_iter().next() {
                let mut msg = template.clone();
                msg[field] = bad;
                cases.push((msg.to_string(), "request/malformed"));
            }
        }
    }
    for (i, (text, want)) in cases.iter().enumerate() {
        c.send_text(text).await;
        c.send(&ClientMsg::Ping { id: Some(i as u64) }).await;
        let mut codes = Vec::new();
        loop {
            match c.next().await {
                Received::Msg(ServerMsg::Pong { id }) if id == Some(i as u64) => break,
                Received::Msg(ServerMsg::Error { code, .. }) => codes.push(code.as_str()),
                Received::Msg(_) => {}
                Received::Closed(f) => panic!("closed after {text:.80}: {f:?}"),
            }
        }
        assert_eq!(codes, [*want], "{text:.200}");
    }
    server.stop().await.unwrap();
}
