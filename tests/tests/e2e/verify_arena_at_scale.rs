//! `parlor verify-tournament` over an arena of more than 1,000 games,
//! from a fresh client, on the store the run asks for
//! (`PARLOR_TEST_STORE=postgres`). One `get_log` per game used to run
//! into the per-connection rate limit (a 365-game arena failed at round
//! 59); the logs now come in batches from `GET /api/logs`.
//!
//! The arena is genuine: bot accounts enter it and play every game it
//! gives them over the protocol, two-move Nimrod games, for the arena's
//! minute.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_cli::verify::tournament::verify_server;
use parlor_server::limits::Limits;
use parlor_server::Config;
use parlor_tests::http::{account_with_token, bearer, request};
use parlor_tests::seeking::signed_in;
use parlor_tests::tournament::{finished, play_games};
use parlor_tests::{start_server_with, TestStore};
use serde_json::json;

/// Players: an arena pairs its free players about once a second, so a
/// minute of waves of 24 games makes well over 1,000.
const PLAYERS: usize = 48;

/// The games the arena must reach for the test to mean anything.
const GAMES: usize = 1_000;

#[tokio::test]
#[ignore = "an arena lasts its minute: run on purpose (cargo test -p parlor-tests --test e2e -- --ignored verify_arena_at_scale::)"]
async fn a_thousand_game_arena_verifies_from_a_fresh_client() {
    let store = TestStore::new().await;
    // Every player's account, token and connection comes from this one
    // address: its caps on new accounts and connections are lifted (the
    // verifier's requests are few: a page, a ledger page, a request per
    // hundred logs).
    let server = start_server_with(Config {
        store: store.config(),
        limits: Limits {
            accounts_per_address_hour: 0,
            admission: None,
            ..Limits::default()
        },
        ..Config::default()
    })
    .await;
    let (addr, url) = (server.addr(), server.url());
    let mut tokens = Vec::new();
    for i in 0..PLAYERS {
        tokens.push(account_with_token(addr, &format!("arena{i:02}")).await.0);
    }
    let body = json!({"game": "nimrod", "format": "arena", "minutes": 1,
                      "max_players": PLAYERS, "options": {"piles": [1, 1]},
                      "clock": {"per_move": {"ms": 3000}},
                      "starts_at_ms": parlor_server::clock::now_ms() + 2_000});
    let made = request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(&tokens[0])],
        Some(body),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let id = made.body["id"].as_str().unwrap().to_owned();
    let mut tasks = Vec::new();
    for token in &tokens {
        let path = format!("/api/tournaments/{id}/join");
        let joined = request(addr, "POST", &path, &[bearer(token)], None).await;
        assert_eq!(joined.status, 200, "{joined:?}");
        tasks.push(tokio::spawn(play_games(signed_in(&url, token).await)));
    }
    let page = finished(addr, &id).await;
    for t in &tasks {
        t.abort();
    }
    let games: usize = page.rounds.iter().map(Vec::len).sum();
    assert!(games >= GAMES, "only {games} games were played");
    let started = std::time::Instant::now();
    let v = verify_server(&url, &id).await.unwrap().unwrap();
    assert_eq!((v.rounds, v.games), (page.rounds.len(), games));
    eprintln!(
        "{games} games in {} waves verified in {:?}",
        v.rounds,
        started.elapsed()
    );
    server.stop().await.unwrap();
}
