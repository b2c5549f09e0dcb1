//! Events cannot be spammed or wedged: an account has at most 3 upcoming
//! events and an address makes at most 10 a day (`tournament/too_many`);
//! a start in the past is refused (`tournament/bad_start`); options the
//! game cannot set up are refused at creation (`tournament/bad_options`);
//! and an event whose round's room cannot be made is cancelled with a
//! reason its entrants are told, never left `running`.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_protocol::{ServerMsg, TournamentStatus};
use parlor_server::limits::Limits;
use parlor_server::Config;
use parlor_tests::http::{account_with_token, bearer, request, Answer};
use parlor_tests::seeking::signed_in;
use parlor_tests::tournament::info;
use parlor_tests::{create_room, start_server, start_server_with, Raw};
use serde_json::{json, Value};

fn now_ms() -> u64 {
    parlor_server::clock::now_ms()
}

fn event(game: &str, options: Value, starts_at_ms: u64) -> Value {
    json!({"game": game, "format": "swiss", "rounds": 1, "options": options,
           "starts_at_ms": starts_at_ms})
}

async fn create(addr: SocketAddr, token: &str, body: Value) -> Answer {
    request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(token)],
        Some(body),
    )
    .await
}

#[tokio::test]
async fn events_are_capped_per_account_and_address_and_start_from_now() {
    let server = start_server(None).await;
    let addr = server.addr();
    let later = now_ms() + 3_600_000;
    let nimrod = || event("nimrod", json!({"piles": [3, 5]}), later);
    let (al, _) = account_with_token(addr, "alice").await;

    // A start ten minutes ago is refused; one a moment ago (clock skew)
    // is taken as now.
    let past = create(addr, &al, event("nimrod", Value::Null, now_ms() - 600_000)).await;
    assert_eq!((past.status, past.code()), (400, "tournament/bad_start"));

    for _ in 0..3 {
        let made = create(addr, &al, nimrod()).await;
        assert_eq!(made.status, 201, "{made:?}");
    }
    let fourth = create(addr, &al, nimrod()).await;
    assert_eq!((fourth.status, fourth.code()), (429, "tournament/too_many"));

    // Other accounts from the same address: ten in the day, no more.
    let mut made_here = 3;
    for name in ["bobby", "carol", "dinah"] {
        let (token, _) = account_with_token(addr, name).await;
        for _ in 0..3 {
            let answer = create(addr, &token, nimrod()).await;
            if made_here < 10 {
                assert_eq!(answer.status, 201, "{answer:?}");
                made_here += 1;
            } else {
                assert_eq!((answer.status, answer.code()), (429, "tournament/too_many"));
                assert!(answer.body["message"].as_str().unwrap().contains("address"));
            }
        }
    }
    assert_eq!(made_here, 10);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn options_a_room_would_refuse_are_refused_at_creation() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (al, _) = account_with_token(addr, "alice").await;
    let later = now_ms() + 3_600_000;
    for (game, options) in [
        ("rummikub", json!({"rack_size": 99})),
        ("nimrod", json!({"piles": [0, 0]})),
        ("cribbage", json!({"target": 7})),
        ("mitsudomoe", json!({"position": "not a position at all"})),
    ] {
        let answer = create(addr, &al, event(game, options.clone(), later)).await;
        assert_eq!(
            (answer.status, answer.code()),
            (400, "tournament/bad_options"),
            "{game} {options}: {answer:?}"
        );
    }
    // Over the WebSocket the same.
    let mut c = signed_in(&server.url(), &al).await;
    let mut msg = event("nimrod", json!({"piles": [0, 0]}), later);
    msg["type"] = json!("create_tournament");
    c.send_json(msg).await;
    c.expect_error(parlor_protocol::ErrorCode::TournamentBadOptions)
        .await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_event_whose_room_cannot_be_made_is_cancelled_and_its_entrants_told() {
    // Room for one room only, taken by a guest's before the event starts.
    let server = start_server_with(Config {
        limits: Limits {
            max_rooms: 1,
            ..Limits::default()
        },
        ..Config::default()
    })
    .await;
    let (addr, url) = (server.addr(), server.url());
    let mut guest = Raw::greeted(&url, "guest").await;
    create_room(&mut guest, "nimrod", 2, json!({"piles": [3, 5]})).await;

    let (al, _) = account_with_token(addr, "alice").await;
    let (bo, _) = account_with_token(addr, "bobby").await;
    let made = create(
        addr,
        &al,
        event("nimrod", json!({"piles": [3, 5]}), now_ms() + 1_500),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let id = made.body["id"].as_str().unwrap().to_owned();
    let mut told = Vec::new();
    for token in [&al, &bo] {
        let path = format!("/api/tournaments/{id}/join");
        let joined = request(addr, "POST", &path, &[bearer(token)], None).await;
        assert_eq!(joined.status, 200, "{joined:?}");
        told.push(signed_in(&url, token).await);
    }
    for c in &mut told {
        let reason = c
            .expect(|m| match m {
                ServerMsg::TournamentCancelled { tournament, reason } if *tournament == id => {
                    Some(reason.clone())
                }
                _ => None,
            })
            .await;
        assert!(reason.contains("round 1"), "{reason}");
    }
    let page = info(addr, &id).await;
    assert_eq!(page.status, TournamentStatus::Cancelled);
    assert!(page.cancelled.is_some_and(|r| r.contains("round 1")));
    // And it stays so.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(info(addr, &id).await.status, TournamentStatus::Cancelled);
    server.stop().await.unwrap();
}
