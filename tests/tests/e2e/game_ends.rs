//! Results that say how a game ended: a tournament game whose absent
//! player ran out of time reads "time", one a player left reads
//! "resigned", on the event's page (`result.end`); a ladder game a bot
//! resigned reads "resigned" among the ladder's latest results (`end`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{GameEnd, ServerMsg, TournamentInfo};
use parlor_server::limits::{LadderSettings, Limits};
use parlor_server::Config;
use parlor_tests::http::{account_with_token, request};
use parlor_tests::ladder::page;
use parlor_tests::seeking::signed_in;
use parlor_tests::tournament::{finished, play_games};
use parlor_tests::{start_server, start_server_with};
use serde_json::json;

/// A two-player round robin of Nimrod, starting in two seconds, with a
/// two-second clock, entered by the accounts `names` (made here); their
/// tokens and its id.
async fn event_of_two(addr: std::net::SocketAddr, names: [&str; 2]) -> (Vec<String>, String) {
    let body = json!({"game": "nimrod", "format": "round-robin", "rounds": 1,
                      "options": {"piles": [3, 4]}, "clock": {"per_move": {"ms": 2_000}}});
    super::tournaments::entered_event(addr, &names, body).await
}

/// The only game's end and the seat of `loser` in it.
fn only_game(page: &TournamentInfo, loser: &str) -> (Option<GameEnd>, Vec<u8>, u8) {
    let game = &page.rounds[0][0];
    let result = game.result.as_ref().expect("over");
    let seat = game.seats.iter().position(|s| s == loser).unwrap() as u8;
    (
        result.end,
        result.winners.iter().map(|s| s.0).collect(),
        seat,
    )
}

#[tokio::test]
async fn tournament_results_say_who_lost_on_time_and_who_resigned() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    // ge-bob never comes: his clock runs out.
    let (time_tokens, on_time) = event_of_two(addr, ["ge-ann", "ge-bob"]).await;
    // ge-dan comes, takes his seat and leaves the game at once.
    let (left_tokens, resigned) = event_of_two(addr, ["ge-cat", "ge-dan"]).await;
    let ann = tokio::spawn(play_games(signed_in(&url, &time_tokens[0]).await));
    let cat = tokio::spawn(play_games(signed_in(&url, &left_tokens[0]).await));
    let mut dan = signed_in(&url, &left_tokens[1]).await;
    let seat = dan
        .expect(|m| match m {
            ServerMsg::TournamentGame(t) => Some((**t).clone()),
            _ => None,
        })
        .await;
    dan.join(&seat.room, seat.seat.0).await;
    dan.send_json(json!({"type": "leave", "room": seat.room}))
        .await;
    dan.expect(|m| matches!(m, ServerMsg::Left { .. }).then_some(()))
        .await;

    let page = finished(addr, &on_time).await;
    let (end, winners, bob) = only_game(&page, "ge-bob");
    assert_eq!(end, Some(GameEnd::Time), "{page:?}");
    assert_eq!(winners, vec![1 - bob]);
    // As the API spells it.
    let raw = request(
        addr,
        "GET",
        &format!("/api/tournaments/{on_time}"),
        &[],
        None,
    )
    .await;
    assert_eq!(
        raw.body["rounds"][0][0]["result"]["end"], "time",
        "{}",
        raw.body
    );

    let page = finished(addr, &resigned).await;
    let (end, winners, dan_seat) = only_game(&page, "ge-dan");
    assert_eq!(end, Some(GameEnd::Resigned), "{page:?}");
    assert_eq!(winners, vec![1 - dan_seat]);
    ann.abort();
    cat.abort();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_ladder_game_a_bot_resigned_says_so_among_the_results() {
    let server = start_server_with(Config {
        limits: Limits {
            ladder: LadderSettings {
                max_games: 1,
                tick: Duration::from_millis(200),
                ..LadderSettings::default()
            },
            ..Limits::default()
        },
        ..Config::default()
    })
    .await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_with_token(addr, "ge-quitbot").await;
    let mut bot = signed_in(&url, &token).await;
    bot.send_json(json!({"type": "ladder_join", "game": "nimrod"}))
        .await;
    let seat = bot
        .expect(|m| match m {
            ServerMsg::LadderGame(s) => Some((**s).clone()),
            _ => None,
        })
        .await;
    // Paired no more, then the game given is resigned.
    bot.send_json(json!({"type": "ladder_leave", "game": "nimrod"}))
        .await;
    bot.join(&seat.room, seat.seat.0).await;
    bot.send_json(json!({"type": "leave", "room": seat.room}))
        .await;
    bot.expect(|m| matches!(m, ServerMsg::Left { .. }).then_some(()))
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let game = loop {
        let info = page(addr, "nimrod").await;
        if let Some(g) = info.recent.iter().find(|g| g.room == seat.room) {
            break g.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not finished: {info:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(game.end, Some(GameEnd::Resigned), "{game:?}");
    server.stop().await.unwrap();
}
