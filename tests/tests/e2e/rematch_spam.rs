//! A rematch offer is told once: the same seat offering again and again
//! from the same connection sends its opponent one `rematch_offered`, not
//! one per offer (a player could otherwise flood the other's screen).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{ErrorCode, ServerMsg};
use parlor_tests::seeking::{by_seat, matched, playing, seek_id};
use parlor_tests::{play_out_nimrod, start_server, Raw, Received};
use serde_json::json;

/// Offers sent by the spamming seat.
const OFFERS: usize = 200;
/// Offers sent at once: below the per-connection message burst, so none
/// is dropped by the rate limit (each must reach the room).
const BATCH: usize = 50;

#[tokio::test]
async fn two_hundred_offers_reach_the_opponent_as_one() {
    let server = start_server(None).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let mut bo = Raw::greeted(&url, "bo").await;
    let seek = json!({"type": "seek", "game": "nimrod", "options": {"piles": [3, 4]}});
    let a = seek_id(&mut al, seek.clone()).await;
    let b = seek_id(&mut bo, seek).await;
    let (room, sa, _, ua) = matched(&mut al, a).await;
    let (_, sb, _, ub) = matched(&mut bo, b).await;
    let first = if sa == 0 { ua } else { ub };
    let mut seated = by_seat((al, sa), (bo, sb));
    let u = playing(&mut seated[0], &room, first).await;
    let end = play_out_nimrod(&mut seated, &room, u).await;
    assert!(end.outcome.is_some());

    let offer = json!({"type": "rematch", "room": room});
    for batch in 0..OFFERS / BATCH {
        for _ in 0..BATCH {
            seated[0].send_json(offer.clone()).await;
        }
        if batch + 1 < OFFERS / BATCH {
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }
    // A request the room answers after all of seat 0's offers: once its
    // answer is in, every offer has been handled.
    seated[0]
        .send_json(json!({"type": "move", "room": room, "seat": 0, "seq": 0,
                          "move": {"take": [0, 0]}}))
        .await;
    loop {
        match seated[0].next().await {
            Received::Msg(ServerMsg::Error { code, .. }) => {
                assert_ne!(code, ErrorCode::RequestRateLimited, "an offer was dropped");
                break;
            }
            Received::Msg(_) => {}
            Received::Closed(f) => panic!("closed: {f:?}"),
        }
    }
    // The opponent's own offer starts the rematch; count what came before.
    seated[1].send_json(offer).await;
    let mut offered = 0;
    loop {
        match seated[1].next().await {
            Received::Msg(ServerMsg::RematchOffered { room: r, .. }) if r == room => offered += 1,
            Received::Msg(ServerMsg::RematchStarted { room: r, .. }) if r == room => break,
            Received::Msg(_) => {}
            Received::Closed(f) => panic!("closed: {f:?}"),
        }
    }
    assert_eq!(
        offered, 1,
        "{OFFERS} offers reached the opponent {offered} times"
    );
    server.stop().await.unwrap();
}
