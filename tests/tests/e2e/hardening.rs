//! One unfriendly client must not hurt anyone: caps per address, room
//! lifetimes, paged listings, bounded queues, resume takeover, fair
//! analysis places and a prompt shutdown.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::Ipv4Addr;
use std::time::Duration;

use parlor_protocol::{Closed, ErrorCode, RoomId, ServerMsg, MAX_ROOMS_PER_PAGE};
use parlor_server::limits::Limits;
use parlor_server::Config;
use parlor_tests::{
    greeted_from, match_log, nimrod_pair, play_out_nimrod, start_server_with, Raw, Received,
    TestStore, Wire, WireFrame, PATIENCE,
};
use serde_json::{json, Value};
use tokio::net::TcpStream;

fn config(limits: Limits) -> Config {
    Config {
        limits,
        ..Config::default()
    }
}

/// Asks for a room and returns the answer: its id, or the refusal's code.
async fn try_create(c: &mut Raw) -> Result<RoomId, ErrorCode> {
    c.send_json(json!({"type": "create_room", "game": "nimrod", "options": {"piles": [3, 5]}}))
        .await;
    c.expect(|m| match m {
        ServerMsg::RoomCreated { room, .. } => Some(Ok(room.clone())),
        ServerMsg::Error { code, .. } => Some(Err(*code)),
        _ => None,
    })
    .await
}

/// Every public room, page by page.
async fn list_all(c: &mut Raw, filter: Value, limit: u32) -> (Vec<RoomId>, usize) {
    let mut rooms = Vec::new();
    let mut pages = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut ask = json!({"type": "list_rooms", "limit": limit});
        for (k, v) in filter.as_object().into_iter().flatten() {
            ask[k] = v.clone();
        }
        if let Some(c) = &cursor {
            ask["cursor"] = json!(c);
        }
        c.send_json(ask).await;
        let (page, next) = c
            .expect(|m| match m {
                ServerMsg::Rooms { rooms, next } => Some((rooms.clone(), next.clone())),
                ServerMsg::Error { .. } => panic!("list refused: {m:?}"),
                _ => None,
            })
            .await;
        pages += 1;
        assert!(page.len() <= limit as usize);
        rooms.extend(page.into_iter().map(|s| s.room));
        match next {
            Some(n) => cursor = Some(n),
            None => return (rooms, pages),
        }
    }
}

#[tokio::test]
async fn ten_connections_from_one_address_cannot_hold_more_rooms_than_its_cap() {
    let limits = Limits {
        rooms_per_address: 5,
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    let home = Ipv4Addr::new(127, 0, 0, 1);
    let mut made = 0;
    let mut refused = 0;
    for i in 0..10 {
        // Each connection has its own token: the per-token cap never bites.
        let mut c = greeted_from(server.addr(), home, &format!("c{i}")).await;
        for _ in 0..3 {
            match try_create(&mut c).await {
                Ok(_) => made += 1,
                Err(code) => {
                    assert_eq!(code, ErrorCode::RoomTooMany);
                    refused += 1;
                }
            }
        }
    }
    assert_eq!((made, refused), (5, 25));
    // Another address is not affected.
    let mut other = greeted_from(server.addr(), Ipv4Addr::new(127, 0, 0, 2), "other").await;
    assert!(try_create(&mut other).await.is_ok());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_room_that_never_starts_is_closed_also_after_a_restart() {
    let store = TestStore::new().await;
    let with = |unstarted: Duration| Config {
        store: store.config(),
        limits: Limits {
            unstarted_room_timeout: unstarted,
            ..Limits::default()
        },
        ..Config::default()
    };
    // Made on a server whose rooms may wait long ...
    let server = start_server_with(with(Duration::from_secs(3600))).await;
    let mut a = Raw::greeted(&server.url(), "a").await;
    let room = a.create("nimrod", json!({"piles": [3, 5]}), None).await;
    a.join(&room, 0).await;
    server.stop().await.unwrap();
    // ... it comes back after a restart, then closes when its time is up.
    let server = start_server_with(with(Duration::from_millis(300))).await;
    let mut b = Raw::greeted(&server.url(), "b").await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (listed, _) = list_all(&mut b, json!({}), MAX_ROOMS_PER_PAGE).await;
        if !listed.contains(&room) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the room never closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = match_log(&mut b, &room).await;
    assert_eq!(log.closed, Some(Closed::NeverStarted));
    assert_eq!(log.outcome, None);
    server.stop().await.unwrap();
    // Closed in the store too: a third start does not bring it back.
    let server = start_server_with(with(Duration::from_secs(3600))).await;
    let mut c = Raw::greeted(&server.url(), "c").await;
    let (listed, _) = list_all(&mut c, json!({}), MAX_ROOMS_PER_PAGE).await;
    assert!(!listed.contains(&room));
    c.send_json(json!({"type": "join", "room": room})).await;
    c.expect_error(ErrorCode::RoomNotFound).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn room_lists_come_in_pages_filtered_on_the_server() {
    let limits = Limits {
        rooms_per_address: 0,
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    let url = server.url();
    let mut nimrods = Vec::new();
    let mut others = Vec::new();
    // 15 rooms per connection: under the per-token cap.
    for i in 0..17 {
        let mut c = Raw::greeted(&url, "host").await;
        for j in 0..15 {
            let game = if (i + j) % 3 == 0 {
                "cribbage"
            } else {
                "nimrod"
            };
            let room = c.create(game, Value::Null, None).await;
            if game == "nimrod" {
                nimrods.push(room);
            } else {
                others.push(room);
            }
        }
    }
    let mut c = Raw::greeted(&url, "reader").await;
    let (all, pages) = list_all(&mut c, json!({}), MAX_ROOMS_PER_PAGE).await;
    assert_eq!(all.len(), 255);
    assert_eq!(pages, 2, "255 rooms in pages of {MAX_ROOMS_PER_PAGE}");
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "pages come in id order");
    let (only_nimrod, _) = list_all(&mut c, json!({"game": "nimrod"}), 40).await;
    nimrods.sort();
    assert_eq!(only_nimrod, nimrods);
    let (waiting_cribbage, _) =
        list_all(&mut c, json!({"game": "cribbage", "status": "waiting"}), 7).await;
    others.sort();
    assert_eq!(waiting_cribbage, others);
    let (none_playing, _) = list_all(&mut c, json!({"status": "playing"}), 10).await;
    assert!(none_playing.is_empty());
    // A limit over the page size is capped, and a bad cursor is refused.
    c.send_json(json!({"type": "list_rooms", "limit": 100_000}))
        .await;
    let n = c
        .expect(|m| match m {
            ServerMsg::Rooms { rooms, .. } => Some(rooms.len()),
            _ => None,
        })
        .await;
    assert_eq!(n, MAX_ROOMS_PER_PAGE as usize);
    c.send_json(json!({"type": "list_rooms", "cursor": "not a cursor!"}))
        .await;
    c.expect_error(ErrorCode::RequestMalformed).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_client_that_asks_for_big_replies_and_never_reads_is_closed_as_slow() {
    let limits = Limits {
        rooms_per_address: 0,
        // Counted as not reading soon, and given all the time it takes
        // to be told so.
        outbox_stall_timeout: Duration::from_millis(200),
        writer_drain_timeout: PATIENCE * 2,
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    let url = server.url();
    // 150 rooms: each page is some 40 KiB.
    for _ in 0..10 {
        let mut c = Raw::greeted(&url, "a-host-with-a-rather-long-name").await;
        for _ in 0..15 {
            c.create("cribbage", json!({"target": 61}), None).await;
        }
    }
    let mut w = Wire::connect(server.addr()).await;
    w.send_text(r#"{"type":"hello","version":1}"#)
        .await
        .unwrap();
    // 300 requests, paced within the rate limit, never reading.
    for _ in 0..6 {
        for _ in 0..50 {
            if w.send_text(r#"{"type":"list_rooms"}"#).await.is_err() {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    // Long past the stall timeout, read: whatever got through, then a
    // close frame saying why.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (texts, close) = w.drain().await;
    assert_eq!(close, Some(1008), "after {} frames", texts.len());
    assert!(
        texts.len() < 300,
        "every reply was queued: the bound did not apply"
    );
    // Everyone else is fine.
    let (a, b, room, u) = nimrod_pair(&url, [4, 7]).await;
    assert!(play_out_nimrod(&mut [a, b], &room, u)
        .await
        .outcome
        .is_some());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_resumed_session_closes_the_old_connection_which_can_no_longer_move() {
    let server = start_server_with(config(Limits::default())).await;
    let url = server.url();
    let (mut a, b, room, u) = nimrod_pair(&url, [5, 8]).await;
    assert!(u.to_act.contains(parlor_games::Seat(0)));
    let mut a2 = Raw::greeted(&url, "a-again").await;
    a2.send_json(json!({"type": "resume", "token": a.token}))
        .await;
    a2.expect(|m| matches!(m, ServerMsg::Resumed { .. }).then_some(()))
        .await;
    let resumed = a2.update(&room).await;
    assert_eq!(resumed.seq, u.seq);
    // The old connection is told and closed ...
    let mut told = false;
    loop {
        match a.next().await {
            Received::Msg(ServerMsg::Error { code, .. }) => {
                told |= code == ErrorCode::SessionTakenOver;
            }
            Received::Msg(_) => {}
            Received::Closed(frame) => {
                let frame = frame.expect("a close frame");
                assert_eq!(u16::from(frame.code), 4001);
                assert_eq!(frame.reason.as_str(), "session/taken_over");
                break;
            }
        }
    }
    assert!(told, "the old connection was not told why");
    // ... and the game goes on from the new one.
    let last = play_out_nimrod(&mut [a2, b], &room, resumed).await;
    assert!(last.outcome.is_some());
    server.stop().await.unwrap();
}

/// A Rummikub deal whose exact prediction needs far more than the quick
/// lane's budget (two racks of 22 and a bag of 8).
fn heavy_deal() -> Value {
    let colors = ["red", "blue", "yellow", "black"];
    let mut blocks: Vec<Value> = (1..=13)
        .flat_map(|n| colors.iter().map(move |c| json!({"number": n, "color": c})))
        .collect();
    // A fixed scramble, the same every run (this one takes about 1.5 s to
    // predict in a debug build, far beyond the quick lane).
    let mut x: u64 = 4;
    for i in (1..blocks.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        blocks.swap(i, (x % (i as u64 + 1)) as usize);
    }
    json!({"p1": blocks[..22], "p2": blocks[22..44], "bag": blocks[44..]})
}

#[tokio::test]
async fn one_client_cannot_take_every_analysis_place() {
    let server = start_server_with(config(Limits::default())).await;
    let url = server.url();
    let heavy =
        json!({"type": "analyze", "game": "rummikub", "tool": "predict", "input": heavy_deal()});
    // A greedy client sends two heavy requests at once: the second is
    // refused for it alone.
    let mut greedy = Raw::greeted(&url, "greedy").await;
    greedy.send_json(heavy.clone()).await;
    greedy.send_json(heavy.clone()).await;
    let refusal = greedy.expect_error(ErrorCode::ServerBusy).await;
    assert!(format!("{refusal:?}").contains("this connection"));
    // A second client takes the other heavy place.
    let mut other = Raw::greeted(&url, "other").await;
    other.send_json(heavy).await;
    // A small request from anyone else is still answered.
    let mut small = Raw::greeted(&url, "small").await;
    small
        .send_json(json!({"type": "analyze", "game": "nimrod", "tool": "best-move", "input": {"piles": [5, 12]}}))
        .await;
    let answer = small
        .expect(|m| match m {
            ServerMsg::Analysis { results, .. } => Some(results[0]["move"].clone()),
            ServerMsg::Error { .. } => panic!("a small request was refused: {m:?}"),
            _ => None,
        })
        .await;
    assert_eq!(answer, json!({"take": [0, 9]}));
    // The heavy ones are answered too.
    for c in [&mut greedy, &mut other] {
        c.expect(|m| match m {
            ServerMsg::Analysis { .. } => Some(()),
            ServerMsg::Error { code, .. } if *code == ErrorCode::AnalysisTooLarge => Some(()),
            _ => None,
        })
        .await;
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_does_not_wait_for_connections_stuck_in_their_handshake() {
    let limits = Limits {
        // Far longer than the test's patience: waiting it out fails the test.
        hello_timeout: Duration::from_secs(600),
        ..Limits::default()
    };
    let server = start_server_with(config(limits)).await;
    let mut silent = Vec::new();
    for _ in 0..50 {
        silent.push(TcpStream::connect(server.addr()).await.unwrap());
    }
    // And some that finished the handshake but never said hello.
    let mut quiet = Vec::new();
    for _ in 0..5 {
        quiet.push(Wire::connect(server.addr()).await);
    }
    tokio::time::timeout(PATIENCE, server.stop())
        .await
        .expect("shutdown waited for idle handshakes")
        .unwrap();
    drop(silent);
}

#[tokio::test]
async fn hello_versions_of_any_size_negotiate_as_the_protocol_says() {
    let server = start_server_with(Config::default()).await;
    let url = server.url();
    let newest = parlor_protocol::PROTOCOL_VERSION;
    // Below 1, however far: refused, and the client may say hello again.
    let mut low = Raw::connect(&url).await;
    for below in ["0", "-1", "-9223372036854775809", "-1e30"] {
        low.send_text(&format!(r#"{{"type":"hello","version":{below}}}"#))
            .await;
        low.expect_error(ErrorCode::ProtocolVersion).await;
    }
    low.send_text(r#"{"type":"hello","version":1}"#).await;
    // Above the newest, however far, even past 64 bits: the newest.
    for above in [
        "2",
        "4294967296",
        "18446744073709551616",
        "1000000000000000000000000000000",
    ] {
        let mut c = Raw::connect(&url).await;
        c.send_text(&format!(r#"{{"type":"hello","version":{above}}}"#))
            .await;
        let version = c
            .expect(|m| match m {
                ServerMsg::Welcome { version, .. } => Some(*version),
                ServerMsg::Error { code, .. } => panic!("{above}: refused {code}"),
                _ => None,
            })
            .await;
        assert_eq!(version, newest, "{above}");
    }
    let version = low
        .expect(|m| match m {
            ServerMsg::Welcome { version, .. } => Some(*version),
            _ => None,
        })
        .await;
    assert_eq!(version, 1);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn fragments_come_together_pings_are_answered_and_broken_frames_refused() {
    let server = start_server_with(Config::default()).await;
    // `hello` in three fragments, a ping between them: answered with a
    // pong at once, then welcomed.
    let mut w = Wire::connect(server.addr()).await;
    let hello = br#"{"type":"hello","version":1}"#;
    w.send_first_byte(0x01, &hello[..5]).await.unwrap();
    w.send_first_byte(0x89, b"still there?").await.unwrap();
    w.send_first_byte(0x00, &hello[5..12]).await.unwrap();
    w.send_first_byte(0x80, &hello[12..]).await.unwrap();
    assert_eq!(w.next().await, Some(WireFrame::Other(0xA)));
    match w.next().await {
        Some(WireFrame::Text(t)) => assert!(t.contains(r#""type":"welcome""#), "{t}"),
        other => panic!("no welcome: {other:?}"),
    }
    // A client's close is answered with its code.
    w.send_frame(8, &4000u16.to_be_bytes()).await.unwrap();
    assert_eq!(w.drain().await, (Vec::new(), Some(4000)));

    // Frames RFC 6455 forbids a client: an error saying why, then a close
    // with the protocol's code.
    let unmasked = [0x81u8, 2, b'{', b'}'];
    let cases: [(&[u8], u8, u16); 4] = [
        (&[], 0xC1, 1002),     // RSV1, with no extension agreed
        (&[], 0x83, 1002),     // a reserved opcode
        (&[], 0x80, 1002),     // a continuation with nothing begun
        (&[0xFF], 0x81, 1007), // not UTF-8
    ];
    for (payload, first, code) in cases {
        let mut w = Wire::connect(server.addr()).await;
        w.send_first_byte(first, payload).await.unwrap();
        let (texts, close) = w.drain().await;
        assert_eq!(close, Some(code), "first byte {first:#x}: {texts:?}");
        assert!(
            texts.iter().any(|t| t.contains("request/malformed")),
            "{texts:?}"
        );
    }
    let mut w = Wire::connect(server.addr()).await;
    w.send_bytes(&unmasked).await.unwrap();
    let (texts, close) = w.drain().await;
    assert_eq!(close, Some(1002), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("masked")), "{texts:?}");
    server.stop().await.unwrap();
}
