//! The fair-play review end to end: three human accounts each play 20
//! rated Nimrod games against a bot account playing at random, driven by
//! `parlor bot`'s own code (`--strategy optimal`, `--strategy random`)
//! and, for the third, by play written here that alternates the two
//! (optimal on its even turns of a game, random on its odd ones). After
//! the games, a moderator's `GET /api/mod/fairplay?game=nimrod` lists the
//! optimal account and neither of the others; a player who is no
//! moderator gets `403 mod/forbidden`, and nobody signed in `401`.
//! And the booster signal: an account that gives five rated games up at
//! once to the same opponent is listed with it.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use parlor_cli::bot::{self, SeatBot, Step};
use parlor_cli::lobby::{self, ChallengeNews};
use parlor_cli::{Client, ClientError};
use parlor_games::{GameKind, GameRng};
use parlor_protocol::{ClientMsg, ErrorCode, RoomId, RoomStatus, ServerMsg};
use parlor_server::store::Arg;
use parlor_server::Config;
use parlor_tests::http::{account_of_kind_with_token, request};
use parlor_tests::{start_server_with, TestStore, PATIENCE};
use serde_json::{json, Value};

/// Rated games each human account plays.
const GAMES: usize = 20;

/// How a human account's moves are chosen.
#[derive(Clone, Copy, Debug)]
enum Play {
    /// `parlor bot --strategy NAME`.
    Bot(&'static str),
    /// Optimal on the account's even turns of a game, random on its odd.
    Mixed,
}

/// Plays `seat` of `room` as `play` says until the match ends.
async fn play_out(client: &mut Client, seated: lobby::Seated, play: Play, rng: &mut GameRng) {
    let lobby::Seated { room, seat } = seated;
    match play {
        Play::Bot(strategy) => {
            bot::play(client, &room, seat, Some(strategy), rng)
                .await
                .unwrap();
        }
        Play::Mixed => {
            let mut optimal = SeatBot::new(room.clone(), seat, Some("optimal"));
            let mut random = SeatBot::new(room.clone(), seat, Some("random"));
            let mut turn = 0usize;
            loop {
                let ServerMsg::Update(u) = client.recv().await.unwrap() else {
                    continue;
                };
                if u.room != room {
                    continue;
                }
                let (a, b) = (
                    optimal.on_update(&u, rng).unwrap(),
                    random.on_update(&u, rng).unwrap(),
                );
                match (a, b) {
                    (Step::Over(_), _) => return,
                    (Step::Play(best), Step::Play(any)) => {
                        let mv = if turn.is_multiple_of(2) { best } else { any };
                        turn += 1;
                        client.send(&mv).await.unwrap();
                    }
                    _ => {}
                }
            }
        }
    }
}

/// `me` challenges `to` to a rated Nimrod game with `options`; the room
/// once accepted.
async fn challenge(me: &mut Client, to: &str, options: Value) -> RoomId {
    let challenge = ClientMsg::Challenge {
        to: to.to_owned(),
        game: GameKind::Nimrod,
        options,
        clock: None,
        rated: true,
        seat: None,
        client_seed: Some(parlor_cli::client::client_seed()),
    };
    // In a cluster, the opponent's connection is known to every node a
    // moment after it is made.
    let deadline = Instant::now() + PATIENCE;
    let made = loop {
        match lobby::start_challenge(me, &challenge).await {
            Ok(made) => break made,
            Err(ClientError::Refused {
                code: ErrorCode::ChallengeOffline,
                ..
            }) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{e}"),
        }
    };
    loop {
        let msg = me.recv().await.unwrap();
        match lobby::challenge_news(&msg, made.challenge) {
            Some(ChallengeNews::Accepted(room)) => return room,
            Some(other) => panic!("challenge ended: {other:?}"),
            None => {}
        }
    }
}

/// Accepts the next challenge made to `them`; the seat it was given.
async fn accept_next(them: &mut Client) -> lobby::Seated {
    loop {
        if let ServerMsg::ChallengeMade(info) = them.recv().await.unwrap() {
            if lobby::is_incoming(them, &info) {
                if let Some(s) = lobby::accept(them, info.challenge).await.unwrap() {
                    return s;
                }
            }
        }
    }
}

/// `human` challenges `opponent` to `GAMES` rated Nimrod games in a row,
/// playing as `play`; the opponent accepts each and plays at random.
async fn series(url: String, human: (String, String), opponent: (String, String), play: Play) {
    let mut me = Client::connect_as(&url, &human.0, Some(&human.1))
        .await
        .unwrap();
    let mut them = Client::connect_as(&url, &opponent.0, Some(&opponent.1))
        .await
        .unwrap();
    let opp = tokio::spawn(async move {
        let mut rng = GameRng::from_seed(7);
        for _ in 0..GAMES {
            let seated = accept_next(&mut them).await;
            bot::play(
                &mut them,
                &seated.room,
                seated.seat,
                Some("random"),
                &mut rng,
            )
            .await
            .unwrap();
        }
    });
    let mut rng = GameRng::from_seed(11);
    for _ in 0..GAMES {
        let room = challenge(
            &mut me,
            &opponent.0,
            json!({"random": {"min": 3, "max": 12}}),
        )
        .await;
        let seated = lobby::seat_in(&mut me, room).await.unwrap();
        play_out(&mut me, seated, play, &mut rng).await;
    }
    opp.await.unwrap();
}

/// Makes `name` a moderator in the database itself (roles are set on the
/// server machine, never over the network).
async fn make_moderator(store: &TestStore, name: &str) {
    const GRANT: &str = "UPDATE accounts SET role = 'moderator' WHERE name_key = $1";
    let changed = store
        .execute(GRANT, vec![Arg::Text(name.to_ascii_lowercase())])
        .await;
    assert_eq!(changed, 1);
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn an_account_played_by_the_optimal_bot_is_listed_and_random_and_mixed_ones_are_not() {
    let store = TestStore::new().await;
    let mut config = Config {
        store: store.config(),
        ..Config::default()
    };
    config.limits.rated_pair_cap = 0;
    config.limits.accounts_per_address_hour = 0;
    let server = start_server_with(config).await;
    let (addr, url) = (server.addr(), server.url());

    let mut series_run = Vec::new();
    for (name, play) in [
        ("Oracle", Play::Bot("optimal")),
        ("Dabbler", Play::Bot("random")),
        ("Halfway", Play::Mixed),
    ] {
        let (token, _) = account_of_kind_with_token(addr, name, "human").await;
        let opp = format!("{name}-sparring");
        let (opp_token, _) = account_of_kind_with_token(addr, &opp, "bot").await;
        series_run.push(tokio::spawn(series(
            url.clone(),
            (name.to_owned(), token),
            (opp, opp_token),
            play,
        )));
    }
    let (mod_token, _) = account_of_kind_with_token(addr, "Warden", "human").await;
    let (player_token, _) = account_of_kind_with_token(addr, "Passerby", "human").await;
    make_moderator(&store, "Warden").await;
    for s in series_run {
        tokio::time::timeout(Duration::from_secs(120), s)
            .await
            .expect("the games take too long")
            .unwrap();
    }

    let path = "/api/mod/fairplay?game=nimrod&min=20";
    let ask = |token: String| async move {
        request(
            addr,
            "GET",
            path,
            &[("Authorization", format!("Bearer {token}"))],
            None,
        )
        .await
    };
    // The counts are kept after each match ends, off the room's path:
    // wait until every account's 20 games are in.
    let deadline = Instant::now() + PATIENCE;
    let answer = loop {
        let a = ask(mod_token.clone()).await;
        assert_eq!(a.status, 200, "{a:?}");
        if a.body["counted"] == 3 * GAMES as u64 {
            break a;
        }
        assert!(
            Instant::now() < deadline,
            "not every game was counted: {a:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(answer.body["tested"], 3, "{answer:?}");
    let flagged = &answer.body["flagged"];
    assert_eq!(names(flagged), ["Oracle"], "{answer:?}");
    let oracle = &flagged[0];
    assert_eq!(oracle["agreed"], oracle["choices"]);
    assert!(oracle["choices"].as_u64().unwrap() >= 20);
    assert!(oracle["p_value"].as_f64().unwrap() < answer.body["alpha"].as_f64().unwrap());
    assert!(oracle["p0"].as_f64().unwrap() < 1.0);
    assert_eq!(oracle["mark"], Value::Null);
    let rooms = oracle["rooms"].as_array().unwrap();
    assert!(!rooms.is_empty() && rooms.len() <= GAMES);
    assert_eq!(
        oracle["links"][0].as_str().unwrap(),
        format!("/#/replay/{}", rooms[0].as_str().unwrap())
    );
    // Nobody resigned early: no booster signal.
    assert_eq!(answer.body["boosting"], json!([]));

    // Others: a player is refused, and so is nobody at all.
    let refused = ask(player_token).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.body["code"], "mod/forbidden");
    let anonymous = request(addr, "GET", path, &[], None).await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.body["code"], "auth/required");
    // A moderator asking about no game is told so.
    let unknown = request(
        addr,
        "GET",
        "/api/mod/fairplay?game=chess",
        &[("Authorization", format!("Bearer {mod_token}"))],
        None,
    )
    .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.body["code"], "ratings/unknown_pool");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_account_resigning_early_again_and_again_to_the_same_one_is_a_booster_signal() {
    let store = TestStore::new().await;
    let mut config = Config {
        store: store.config(),
        ..Config::default()
    };
    config.limits.rated_pair_cap = 0;
    config.limits.accounts_per_address_hour = 0;
    let server = start_server_with(config).await;
    let (addr, url) = (server.addr(), server.url());
    let (farmer_token, _) = account_of_kind_with_token(addr, "Farmer", "human").await;
    let (feeder_token, _) = account_of_kind_with_token(addr, "Feeder", "human").await;
    let (mod_token, _) = account_of_kind_with_token(addr, "Warden", "human").await;
    make_moderator(&store, "Warden").await;
    let mut farmer = Client::connect_as(&url, "Farmer", Some(&farmer_token))
        .await
        .unwrap();
    let mut feeder = Client::connect_as(&url, "Feeder", Some(&feeder_token))
        .await
        .unwrap();
    let early = 5;
    let mut rooms = Vec::new();
    for _ in 0..early {
        let accepting = tokio::spawn(async move {
            let seated = accept_next(&mut farmer).await;
            let mut rng = GameRng::from_seed(3);
            bot::play(
                &mut farmer,
                &seated.room,
                seated.seat,
                Some("optimal"),
                &mut rng,
            )
            .await
            .unwrap();
            farmer
        });
        // No first move wins at once from (3, 5): the game is decided by
        // the feeder leaving, whoever moves first.
        let room = challenge(&mut feeder, "Farmer", json!({"piles": [3, 5]})).await;
        // Once the match is on, the feeder leaves it: a loss, at once.
        loop {
            if let ServerMsg::Update(u) = feeder.recv().await.unwrap() {
                if u.room == room && u.status == RoomStatus::Playing {
                    break;
                }
            }
        }
        feeder
            .send(&ClientMsg::Leave { room: room.clone() })
            .await
            .unwrap();
        farmer = accepting.await.unwrap();
        rooms.push(room.to_string());
    }

    let auth = [("Authorization", format!("Bearer {mod_token}"))];
    let a = request(addr, "GET", "/api/mod/fairplay?game=nimrod", &auth, None).await;
    assert_eq!(a.status, 200, "{a:?}");
    let boosting = &a.body["boosting"];
    assert_eq!(names(boosting), ["Farmer", "Feeder"], "{a:?}");
    for (entry, partner, wins) in [(&boosting[0], "Feeder", early), (&boosting[1], "Farmer", 0)] {
        assert_eq!(entry["early_results"], early);
        assert_eq!(entry["wins"], wins);
        assert_eq!(entry["partner"], partner);
        assert_eq!(entry["with_partner"], early);
        let mut games: Vec<String> = entry["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap().to_owned())
            .collect();
        games.sort();
        let mut want = rooms.clone();
        want.sort();
        assert_eq!(games, want);
    }
    // Nobody played on long enough to be tested for agreement.
    assert_eq!(a.body["flagged"], json!([]));
    server.stop().await.unwrap();
}
