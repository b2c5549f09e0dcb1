//! Abort dodging is bounded: a rated match aborted by a seat's silence is
//! free once, but an account whose silence aborted 3 rated matches in a
//! day may not make or accept rated seeks or challenges for an hour
//! (`rated/cooldown`, with `retry_after_ms`); casual play stays open.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_protocol::{Closed, ErrorCode, RoomId, ServerMsg};
use parlor_tests::http::account_with_token;
use parlor_tests::seeking::{challenge_ended, challenge_made, signed_in};
use parlor_tests::{start_server, Raw};
use serde_json::{json, Value};

fn challenge(rated: bool) -> Value {
    json!({"type": "challenge", "to": "waiter", "game": "nimrod", "options": {"piles": [3, 5]},
           "clock": {"per_move": {"ms": 300}}, "rated": rated, "seat": 0})
}

/// The next error's code and `retry_after_ms`.
async fn refusal(c: &mut Raw) -> (ErrorCode, Option<u64>) {
    c.expect(|m| match m {
        ServerMsg::Error { code, detail, .. } => Some((
            *code,
            detail.as_ref().and_then(|d| d["retry_after_ms"].as_u64()),
        )),
        _ => None,
    })
    .await
}

#[tokio::test]
async fn three_silent_aborts_in_a_day_cool_rated_play_down_for_an_hour() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_with_token(addr, "dodger").await;
    let mut dodger = signed_in(&url, &token).await;
    let (token, _) = account_with_token(addr, "waiter").await;
    let mut waiter = signed_in(&url, &token).await;

    for _ in 0..3 {
        // The dodger sits first and never moves: its 300 ms run out.
        dodger.send_json(challenge(true)).await;
        let made = challenge_made(&mut waiter).await;
        waiter
            .send_json(json!({"type": "accept", "challenge": made.challenge}))
            .await;
        let (_, _, _, room) = challenge_ended(&mut dodger).await;
        let room: RoomId = room.unwrap();
        loop {
            let u = waiter.update(&room).await;
            if u.closed == Some(Closed::Aborted) {
                break;
            }
            assert!(u.outcome.is_none(), "the match ended with an outcome");
        }
    }
    // The abort's record is written beside the match's close: give it a
    // moment to land.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    // Rated seeks and challenges are refused for an hour...
    dodger
        .send_json(json!({"type": "seek", "game": "nimrod", "rated": true}))
        .await;
    let (code, retry) = refusal(&mut dodger).await;
    assert_eq!(code, ErrorCode::RatedCooldown);
    let retry = retry.expect("retry_after_ms");
    assert!((3_500_000..=3_600_000).contains(&retry), "{retry}");
    dodger.send_json(challenge(true)).await;
    assert_eq!(refusal(&mut dodger).await.0, ErrorCode::RatedCooldown);
    // ...and so is accepting one.
    waiter
        .send_json(
            json!({"type": "challenge", "to": "dodger", "game": "nimrod",
                          "rated": true}),
        )
        .await;
    let made = challenge_made(&mut dodger).await;
    dodger
        .send_json(json!({"type": "accept", "challenge": made.challenge}))
        .await;
    let (code, retry) = refusal(&mut dodger).await;
    assert_eq!(code, ErrorCode::RatedCooldown);
    assert!(retry.is_some());
    // Casual play is not.
    dodger.send_json(challenge(false)).await;
    let rated = waiter
        .expect(|m| match m {
            ServerMsg::ChallengeMade(info) if info.from == "dodger" => Some(info.rated),
            _ => None,
        })
        .await;
    assert!(!rated);
    server.stop().await.unwrap();
}
