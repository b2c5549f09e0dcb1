//! The bot ladder end to end: a bot account enters a game's ladder, is
//! paired with the built-in anchors only while it is connected, plays
//! rated games (both sides' ratings change, on the ladder's page and in
//! the public ledger), never more at once than its bound nor more a day
//! against one opponent than the cap; humans and guests are refused with
//! their codes, over HTTP and the WebSocket; a game in progress survives
//! a restart, and a bot that leaves is paired no more. Tournaments can be
//! entered and left over the WebSocket too.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{ErrorCode, LadderResult, LadderSeat, Occupant, ServerMsg};
use parlor_server::limits::{LadderSettings, Limits};
use parlor_server::Config;
use parlor_tests::http::{account_of_kind_with_token, account_with_token, basic, bearer, request};
use parlor_tests::ladder::{page, play_ladder, Played};
use parlor_tests::rating::ledger;
use parlor_tests::seeking::signed_in;
use parlor_tests::{snapshot, start_server_with, Raw, TestStore};
use serde_json::json;

/// The ladder's tick in these tests: fast, so that pairing is prompt.
const TICK: Duration = Duration::from_millis(200);

/// Long enough for several ticks: what was not paired by then is not
/// going to be.
const SEVERAL_TICKS: Duration = Duration::from_millis(1_000);

/// A server config whose ladder ticks fast, with `max_games` at once per
/// bot and `daily_cap` games a pair a day.
fn config(max_games: u32, daily_cap: u32) -> Config {
    Config {
        limits: Limits {
            ladder: LadderSettings {
                max_games,
                daily_cap,
                tick: TICK,
                ..LadderSettings::default()
            },
            ..Limits::default()
        },
        ..Config::default()
    }
}

/// The next `ladder_game` on `c`.
async fn ladder_game(c: &mut Raw) -> LadderSeat {
    c.expect(|m| match m {
        ServerMsg::LadderGame(s) => Some((**s).clone()),
        _ => None,
    })
    .await
}

/// Whether `c` is given a ladder game within `wait`.
async fn given_within(c: &mut Raw, wait: Duration) -> bool {
    tokio::time::timeout(wait, ladder_game(c)).await.is_ok()
}

/// A human account with a token.
async fn human_token(addr: std::net::SocketAddr, name: &str) -> String {
    account_of_kind_with_token(addr, name, "human").await.0
}

#[tokio::test]
async fn a_bot_is_paired_with_the_anchors_and_rated_within_its_bounds() {
    let server = start_server_with(config(1, 1)).await;
    let (addr, url) = (server.addr(), server.url());

    // Refusals, each with its code.
    let alice = human_token(addr, "alice").await;
    let human = request(
        addr,
        "POST",
        "/api/ladder/nimrod/join",
        &[bearer(&alice)],
        None,
    )
    .await;
    assert_eq!((human.status, human.code()), (403, "ladder/bots_only"));
    let guest = request(addr, "POST", "/api/ladder/nimrod/join", &[], None).await;
    assert_eq!((guest.status, guest.code()), (401, "auth/required"));
    let unknown = request(addr, "GET", "/api/ladder/chess", &[], None).await;
    assert_eq!(
        (unknown.status, unknown.code()),
        (404, "ladder/unknown_game")
    );

    // Every game's ladder has its anchors.
    let list = request(addr, "GET", "/api/ladder", &[], None).await;
    assert_eq!(list.status, 200);
    let nimrod = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["game"] == "nimrod");
    assert_eq!(nimrod.unwrap()["entrants"], 3, "{}", list.body);

    let (token, _) = account_with_token(addr, "climber").await;
    let joined = request(
        addr,
        "POST",
        "/api/ladder/nimrod/join",
        &[bearer(&token)],
        None,
    )
    .await;
    assert_eq!(joined.status, 200, "{joined:?}");
    let before = page(addr, "nimrod").await;
    let me = before
        .entrants
        .iter()
        .find(|e| e.name == "climber")
        .unwrap();
    assert!(!me.connected && !me.builtin);
    let anchors: Vec<&str> = before
        .entrants
        .iter()
        .filter(|e| e.builtin)
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(anchors.len(), 3, "{before:?}");
    assert!(anchors.contains(&"nimrod-optimal"));
    assert!(before
        .entrants
        .iter()
        .filter(|e| e.builtin)
        .all(|e| e.connected));

    // Not connected: not paired.
    tokio::time::sleep(SEVERAL_TICKS).await;
    assert!(page(addr, "nimrod").await.playing.is_empty());

    // Connected: paired with an anchor within a few ticks.
    let mut c = signed_in(&url, &token).await;
    let first = ladder_game(&mut c).await;
    assert_eq!(first.game, parlor_games::GameKind::Nimrod);
    assert!(anchors.contains(&first.opponent.as_str()), "{first:?}");
    // The anchor sits as its strategy playing as its account, rated.
    let seen = snapshot(&url, &first.room).await;
    let theirs = &seen.seats[usize::from(1 - first.seat.0)];
    let strategy = first.opponent.trim_start_matches("nimrod-").to_owned();
    assert_eq!(
        theirs.occupant,
        Occupant::Bot {
            strategy,
            account: Some(first.opponent.clone())
        }
    );
    assert!(theirs.rating.is_some(), "a rated seat shows its rating");
    // At most one game at once (K = 1), though two anchors are free.
    tokio::time::sleep(SEVERAL_TICKS).await;
    let busy = page(addr, "nimrod").await;
    assert_eq!(busy.playing.len(), 1, "{busy:?}");
    assert_eq!(
        busy.entrants
            .iter()
            .find(|e| e.name == "climber")
            .unwrap()
            .playing,
        1
    );
    assert!(
        busy.entrants
            .iter()
            .find(|e| e.name == "climber")
            .unwrap()
            .connected
    );

    // Play: one game against each anchor, then the day's cap (1) holds.
    c.send_json(json!({"type": "join", "room": first.room, "seat": first.seat}))
        .await;
    let mut played = Played {
        given: vec![first],
        finished: Vec::new(),
    };
    play_ladder(&mut c, 3, &mut played).await;
    assert!(
        !given_within(&mut c, SEVERAL_TICKS).await,
        "paired over the daily cap"
    );
    let mut opponents: Vec<&str> = played.given.iter().map(|g| g.opponent.as_str()).collect();
    opponents.sort_unstable();
    let mut expected = anchors.clone();
    expected.sort_unstable();
    assert_eq!(opponents, expected, "each anchor once");
    // The ladder pairs the next game: no rematch (it would be an unrated
    // copy with the anchor as a plain bot).
    let last = played.finished.last().unwrap().clone();
    c.send_json(json!({"type": "rematch", "room": last})).await;
    c.expect_error(ErrorCode::RematchUnavailable).await;

    // Rated: both sides' ratings moved, on the page and in the ledger.
    let after = page(addr, "nimrod").await;
    assert!(after.playing.is_empty(), "{after:?}");
    assert_eq!(after.recent.len(), 3);
    assert!(after
        .recent
        .iter()
        .all(|g| matches!(g.result, Some(LadderResult::Seat0 | LadderResult::Seat1))));
    let me = after.entrants.iter().find(|e| e.name == "climber").unwrap();
    assert_eq!(me.games, 3);
    assert_eq!(me.wins + me.losses + me.draws, 3);
    assert!(me.rating != 1500.0 && me.rd < 350.0, "{me:?}");
    for anchor in after.entrants.iter().filter(|e| e.builtin) {
        assert_eq!(anchor.games, 1, "{anchor:?}");
        assert!(anchor.rating != 1500.0, "{anchor:?}");
    }
    let lines = ledger(addr, Some("nimrod")).await;
    assert_eq!(lines.len(), 3);
    for line in &lines {
        let names: Vec<&str> = line.players.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"climber") && names.iter().any(|n| anchors.contains(n)));
    }
    // The anchors are accounts with pages of their own, kind bot.
    let optimal = request(addr, "GET", "/api/players/nimrod-optimal", &[], None).await;
    assert_eq!(optimal.status, 200, "{optimal:?}");
    assert_eq!(optimal.body["kind"], "bot");
    assert_eq!(optimal.body["ratings"]["nimrod"]["games"], 1);
    // Nobody signs in as an anchor.
    let login = request(
        addr,
        "POST",
        "/api/tokens",
        &[basic("nimrod-optimal", "")],
        None,
    )
    .await;
    assert_eq!(login.status, 401, "{login:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn entries_over_the_socket_a_restart_mid_game_and_leaving() {
    let store = TestStore::new().await;
    let settings = config(1, 10);
    let server = start_server_with(Config {
        store: store.config(),
        ..settings.clone()
    })
    .await;
    let (addr, url) = (server.addr(), server.url());

    // A human and a guest are refused over the socket as over HTTP.
    let alice = human_token(addr, "alice").await;
    let mut human = signed_in(&url, &alice).await;
    human
        .send_json(json!({"type": "ladder_join", "game": "nimrod"}))
        .await;
    human.expect_error(ErrorCode::LadderBotsOnly).await;
    let mut guest = Raw::greeted(&url, "someone").await;
    guest
        .send_json(json!({"type": "ladder_join", "game": "nimrod"}))
        .await;
    guest.expect_error(ErrorCode::AuthRequired).await;
    guest
        .send_json(json!({"type": "join_tournament", "id": "abc"}))
        .await;
    guest.expect_error(ErrorCode::AuthRequired).await;

    // Tournaments: join and leave with the HTTP routes' rules.
    let (token, _) = account_with_token(addr, "walker").await;
    let made = request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(&token)],
        Some(
            json!({"game": "nimrod", "format": "swiss", "rounds": 2, "kind": "bot",
                    "starts_at_ms": parlor_server::clock::now_ms() + 3_600_000}),
        ),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let id = made.body["id"].as_str().unwrap().to_owned();
    let mut c = signed_in(&url, &token).await;
    let entry = |kind: &str| json!({"type": kind, "id": id});
    c.send_json(entry("join_tournament")).await;
    let joined = c
        .expect(|m| match m {
            ServerMsg::TournamentJoined { tournament } => Some(tournament.clone()),
            _ => None,
        })
        .await;
    assert_eq!(joined, id);
    c.send_json(entry("join_tournament")).await;
    c.expect_error(ErrorCode::TournamentAlreadyEntered).await;
    human.send_json(entry("join_tournament")).await;
    human.expect_error(ErrorCode::TournamentWrongKind).await;
    c.send_json(entry("leave_tournament")).await;
    c.expect(|m| {
        matches!(m, ServerMsg::TournamentLeft { tournament } if *tournament == id).then_some(())
    })
    .await;
    c.send_json(entry("leave_tournament")).await;
    c.expect_error(ErrorCode::TournamentNotEntered).await;
    c.send_json(json!({"type": "join_tournament", "id": "000000000000"}))
        .await;
    c.expect_error(ErrorCode::TournamentNotFound).await;

    // The ladder over the socket; a game is given at once.
    c.send_json(json!({"type": "ladder_join", "game": "nimrod"}))
        .await;
    c.expect(|m| matches!(m, ServerMsg::LadderJoined { .. }).then_some(()))
        .await;
    let game = ladder_game(&mut c).await;
    drop(c);
    server.stop().await.unwrap();

    // A restart mid-game: the room comes back, the ladder carries on.
    let server = start_server_with(Config {
        store: store.config(),
        ..settings
    })
    .await;
    let (addr, url) = (server.addr(), server.url());
    let mut c = signed_in(&url, &token).await;
    // Leaving stops pairing; the game being played goes on.
    c.send_json(json!({"type": "ladder_leave", "game": "nimrod"}))
        .await;
    c.expect(|m| matches!(m, ServerMsg::LadderLeft { .. }).then_some(()))
        .await;
    assert_eq!(page(addr, "nimrod").await.playing.len(), 1);
    c.send_json(json!({"type": "join", "room": game.room, "seat": game.seat}))
        .await;
    let mut played = Played::default();
    play_ladder(&mut c, 1, &mut played).await;
    assert_eq!(played.finished, vec![game.room.clone()]);
    assert!(
        !given_within(&mut c, SEVERAL_TICKS).await,
        "paired after leaving"
    );
    let after = page(addr, "nimrod").await;
    assert!(
        after.entrants.iter().all(|e| e.name != "walker"),
        "{after:?}"
    );
    assert_eq!(after.recent.len(), 1, "{after:?}");
    assert_eq!(after.recent[0].room, game.room);
    assert!(after.recent[0].result.is_some());
    assert!(after.playing.is_empty());
    server.stop().await.unwrap();
}
