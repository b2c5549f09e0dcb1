//! When Redis comes back after an outage, what was sent on the bus
//! meanwhile is gone: a challenger whose challenge may have been accepted
//! on another node then is closed to reconnect and resume (1012), rather
//! than left waiting for a summons that will never come. A connection
//! with nothing in flight over the bus stays open. The close comes only
//! once the node listens on the bus again: a challenger that reconnects
//! at once and challenges again is summoned across nodes.

use std::time::Duration;

use super::accounts::http_of;
use super::services::{free_port, start_services, Redis};
use crate::common::live::{recv_within, send};
use crate::common::seekers::{account_token, challenge_pair, connect, Ended};
use parlor_protocol::ServerMsg;
use parlor_server::bus::Bus;
use parlor_server::testing::missing_service;
use serde_json::json;

/// Redis restarts in the bus test: each is a new race between the
/// re-subscription and the first message after the loss is told.
const RESTARTS: usize = 5;

/// A node is told that messages to it may have been lost only once it
/// listens again: what is published to it from that moment is heard,
/// after each of several Redis restarts. (Told at fred's reconnection,
/// before re-subscribing, a resume could race the re-subscription.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_is_told_of_a_loss_only_once_it_listens_again() {
    if std::process::Command::new("redis-server")
        .arg("--version")
        .output()
        .is_err()
    {
        missing_service("Redis", "no redis-server on the PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut redis = Redis {
        port: free_port(),
        dir: dir.path().to_path_buf(),
        child: None,
    };
    redis.start().unwrap();
    let node = Bus::connect(&redis.url(), "resync").await.unwrap();
    let other = Bus::connect(&redis.url(), "resync").await.unwrap();
    let mut losses = node.losses();
    let mut heard = node.messages();
    let channel = node.gateway_channel(node.me());
    for round in 0..RESTARTS {
        redis.kill();
        tokio::time::sleep(Duration::from_millis(300)).await;
        redis.start().unwrap();
        tokio::time::timeout(Duration::from_secs(10), losses.recv())
            .await
            .unwrap_or_else(|_| panic!("round {round}: never told of the loss"))
            .unwrap();
        // The other node may still be reconnecting: its publish fails
        // until it is back, but once sent it must be heard.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let listeners = loop {
            match other
                .publish(channel.clone(), &json!({ "round": round }))
                .await
            {
                Ok(n) => break n,
                Err(e) => {
                    assert!(tokio::time::Instant::now() < deadline, "round {round}: {e}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        };
        assert_eq!(listeners, 1, "round {round}: told before listening again");
        let msg = tokio::time::timeout(Duration::from_secs(5), heard.recv())
            .await
            .unwrap_or_else(|_| panic!("round {round}: the message was not heard"))
            .unwrap();
        let got: serde_json::Value = Bus::decode(&msg).unwrap();
        assert_eq!(got, json!({ "round": round }));
    }
    node.close().await;
    other.close().await;
    redis.kill();
}

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
    drop(challenged);
    // Back at once on the same node, a new challenge accepted on the other
    // seats both: the summons crossed the bus.
    let again = challenge_pair(&here, &there, &from, &to, "outage-to").await;
    assert!(
        matches!(again, Ok(Ended::Matched)),
        "after the bus came back: {again:?}"
    );
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
