//! Following players end to end (on SQLite, or with
//! `PARLOR_TEST_STORE=postgres` on PostgreSQL; across two cluster nodes
//! when PostgreSQL and Redis are there): following, the list with who is
//! online and the games each is playing, unfollowing, and the refusals.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_tests::http::{account_with_token, bearer, request, Answer};
use parlor_tests::seeking::signed_in;
use parlor_tests::start_server;
use serde_json::{json, Value};

async fn follow(addr: SocketAddr, token: &str, method: &str, name: &str) -> Answer {
    let path = format!("/api/follows/{name}");
    request(addr, method, &path, &[bearer(token)], None).await
}

/// The list, by player name.
async fn listed(addr: SocketAddr, token: &str) -> Vec<Value> {
    let a = request(addr, "GET", "/api/follows", &[bearer(token)], None).await;
    assert_eq!(a.status, 200, "{a:?}");
    a.body["follows"].as_array().unwrap().clone()
}

fn entry<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|f| f["player"] == name)
        .unwrap_or_else(|| panic!("{name} not in {list:?}"))
}

#[tokio::test]
async fn an_account_follows_players_and_sees_who_is_online_and_playing() {
    let server = start_server(None).await;
    let addr = server.addr();
    let url = server.url();
    let (ann, _) = account_with_token(addr, "ann").await;
    let (bob, _) = account_with_token(addr, "Bob").await;
    let (_carol, _) = account_with_token(addr, "carol").await;
    let (dee, _) = account_with_token(addr, "dee").await;

    // Signed out: refused.
    let a = request(addr, "GET", "/api/follows", &[], None).await;
    assert_eq!(a.status, 401, "{a:?}");
    // Following by any spelling keeps the owner's; again is the same.
    for _ in 0..2 {
        let a = follow(addr, &ann, "POST", "bob").await;
        assert_eq!(a.status, 201, "{a:?}");
        assert_eq!(a.body, json!({"player": "Bob", "following": true}));
    }
    assert_eq!(follow(addr, &ann, "POST", "carol").await.status, 201);
    for (name, why) in [("ann", "yourself"), ("nobody", "no account")] {
        let a = follow(addr, &ann, "POST", name).await;
        assert_eq!(a.status, 400, "{a:?}");
        assert_eq!(a.body["code"], "follow/bad_request", "{a:?}");
        let message = a.body["message"].as_str().unwrap();
        assert!(message.contains(why), "{message}");
    }
    let list = listed(addr, &ann).await;
    assert_eq!(list.len(), 2);
    assert_eq!(entry(&list, "Bob")["online"], false);
    assert_eq!(entry(&list, "carol")["online"], false);
    // Following is one way: Bob follows nobody.
    assert!(listed(addr, &bob).await.is_empty());

    // Bob connects and plays Dee: online, and the game is listed.
    let mut b = signed_in(&url, &bob).await;
    let mut d = signed_in(&url, &dee).await;
    let room = b.create("nimrod", json!({"piles": [5, 7]}), None).await;
    b.join(&room, 0).await;
    d.join(&room, 1).await;
    let list = listed(addr, &ann).await;
    let bob_entry = entry(&list, "Bob");
    assert_eq!(bob_entry["online"], true);
    let playing = bob_entry["playing"].as_array().unwrap();
    assert_eq!(playing.len(), 1, "{bob_entry}");
    assert_eq!(playing[0]["room"], room.as_str());
    assert_eq!(playing[0]["game"], "nimrod");
    assert_eq!(playing[0]["players"], json!(["Bob", "dee"]));
    assert_eq!(entry(&list, "carol")["online"], false);
    assert!(entry(&list, "carol")["playing"]
        .as_array()
        .unwrap()
        .is_empty());
    // Bob goes: offline (his game is still on).
    b.close().await;
    let list = listed(addr, &ann).await;
    assert_eq!(entry(&list, "Bob")["online"], false);

    // Unfollowing: 204 whether or not followed.
    assert_eq!(follow(addr, &ann, "DELETE", "BOB").await.status, 204);
    assert_eq!(follow(addr, &ann, "DELETE", "bob").await.status, 204);
    let list = listed(addr, &ann).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["player"], "carol");
    // A path that takes other methods says which.
    let a = request(addr, "PUT", "/api/follows/carol", &[bearer(&ann)], None).await;
    assert_eq!(a.status, 405, "{a:?}");
    server.stop().await.unwrap();
}

/// Presence across nodes: a player connected to the other node of a
/// cluster is online to a follower asking this one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_player_on_another_node_is_online() {
    let Some((_scratch, a, b)) = parlor_tests::two_nodes(Duration::from_millis(2_000)).await else {
        return;
    };
    let (ann, _) = account_with_token(a.addr(), "ann").await;
    let (bob, _) = account_with_token(a.addr(), "bob").await;
    assert_eq!(follow(a.addr(), &ann, "POST", "bob").await.status, 201);
    assert_eq!(listed(a.addr(), &ann).await[0]["online"], false);
    let _on_b = signed_in(&b.url(), &bob).await;
    // Presence is written as the connection signs in: a moment's grace.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        if listed(a.addr(), &ann).await[0]["online"] == true {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "bob, on the other node, never showed online"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
