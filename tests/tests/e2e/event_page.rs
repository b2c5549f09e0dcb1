//! An event's page carries every field its documentation lists: each
//! player's `withdrawn` (false as well as true) and an arena's pairing
//! rule, read as raw JSON the way a client in any language would.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_tests::http::{account_with_token, bearer, request};
use parlor_tests::{start_server, TestStore};
use serde_json::{json, Value};

/// The raw page of an arena two accounts entered, one of whom left.
async fn arena_page(format: &str) -> Value {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let addr = server.addr();
    let (ann, _) = account_with_token(addr, "page-ann").await;
    let (bob, _) = account_with_token(addr, "page-bob").await;
    let mut body = json!({"game": "nimrod", "format": format, "options": {"piles": [3, 4]},
                          "starts_at_ms": parlor_server::clock::now_ms() + 600_000});
    if format == "arena" {
        body["minutes"] = json!(5);
    } else {
        body["rounds"] = json!(2);
    }
    let made = request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(&ann)],
        Some(body),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let id = made.body["id"].as_str().unwrap().to_owned();
    for token in [&ann, &bob] {
        let path = format!("/api/tournaments/{id}/join");
        let joined = request(addr, "POST", &path, &[bearer(token)], None).await;
        assert_eq!(joined.status, 200, "{joined:?}");
    }
    let got = request(addr, "GET", &format!("/api/tournaments/{id}"), &[], None).await;
    assert_eq!(got.status, 200, "{got:?}");
    got.body
}

#[tokio::test]
async fn every_player_entry_says_whether_they_withdrew() {
    let page = arena_page("arena").await;
    let players = page["players"].as_array().unwrap();
    assert_eq!(players.len(), 2, "{page}");
    for p in players {
        assert_eq!(p.get("withdrawn"), Some(&json!(false)), "{p}");
    }
}

#[tokio::test]
async fn an_arena_page_names_its_pairing_rule_and_others_do_not() {
    let arena = arena_page("arena").await;
    assert_eq!(arena["arena_pairing"], json!("waits-first"), "{arena}");
    let swiss = arena_page("swiss").await;
    assert!(swiss.get("arena_pairing").is_none(), "{swiss}");
}
