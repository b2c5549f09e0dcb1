//! When Redis comes back after an outage, what was sent on the bus
//! meanwhile is gone: a challenger whose challenge may have been accepted
//! on another node then is closed to reconnect and resume (1012), rather
//! than left waiting for a summons that will never come. A connection
//! with nothing in flight over the bus stays open.

use std::time::Duration;

use super::accounts::http_of;
use super::services::start_services;
use crate::common::live::{recv_within, send};
use crate::common::seekers::{account_token, connect};
use parlor_protocol::ServerMsg;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenger_is_told_to_resume_when_the_bus_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut services) = start_services(dir.path()) else {
        return;
    };
    let here = services.nodes[0].url.clone().unwrap();
    let there = services.nodes[1].url.clone().unwrap();
    let from = account_token(&http_of(&here), "outage-from").await.unwrap();
    let to = account_token(&http_of(&there), "outage-to").await.unwrap();
    let mut challenger = connect(&here, Some(&from)).await.unwrap();
    let mut challenged = connect(&there, Some(&to)).await.unwrap();
    let mut bystander = connect(&here, None).await.unwrap();
    send(
        &mut challenger,
        json!({"type": "challenge", "to": "outage-to", "game": "nimrod"}),
    )
    .await
    .unwrap();
    let made = loop {
        match recv_within(&mut challenger, Duration::from_secs(10)).await {
            Ok(ServerMsg::ChallengeMade(info)) => break info.challenge,
            Ok(_) => {}
            Err(e) => panic!("no challenge made: {e}"),
        }
    };
    loop {
        match recv_within(&mut challenged, Duration::from_secs(10)).await {
            Ok(ServerMsg::ChallengeMade(info)) if info.challenge == made => break,
            Ok(_) => {}
            Err(e) => panic!("the challenge did not arrive: {e}"),
        }
    }
    services.redis.kill();
    tokio::time::sleep(Duration::from_millis(500)).await;
    services.redis.start().unwrap();
    // The challenger hears why, then the close (1012).
    let mut told = false;
    let closed = loop {
        match recv_within(&mut challenger, Duration::from_secs(15)).await {
            Ok(ServerMsg::Error { code, .. }) => {
                told |= code == parlor_protocol::ErrorCode::ServerUnreachable;
            }
            Ok(_) => {}
            Err(e) => break e,
        }
    };
    assert!(told, "closed without a word: {closed}");
    assert!(closed.contains("1012"), "{closed}");
    // The bystander had nothing in flight: it is still served.
    send(&mut bystander, json!({"type": "ping"})).await.unwrap();
    loop {
        match recv_within(&mut bystander, Duration::from_secs(5)).await {
            Ok(ServerMsg::Pong { .. }) => break,
            Ok(_) => {}
            Err(e) => panic!("the bystander was not served: {e}"),
        }
    }
}
