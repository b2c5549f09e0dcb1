//! `parlor bot` plays for a human account's token, and the fair-play
//! review notices: a human account played by `parlor bot --strategy
//! optimal` for 20 rated Nimrod games is listed by a moderator's `GET
//! /api/mod/fairplay?game=nimrod`, a human account played by `--strategy
//! random` is not. Each human's `parlor bot --accept-challenges` takes 20
//! rated challenges from a bot account of its own, played at random here
//! (challenges, not seeks: rated seeks wait for rating windows to widen
//! as the ratings part, which takes minutes).

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use parlor_cli::account::{self, Auth};
use parlor_cli::lobby::{self, ChallengeNews};
use parlor_cli::{bot, Client, ClientError};
use parlor_games::{GameKind, GameRng};
use parlor_protocol::{ClientMsg, ErrorCode};
use parlor_server::store::{Arg, Store};
use parlor_server::{Config, Server, StoreConfig, Sync};
use serde_json::{json, Value};

/// Rated games each human account plays.
const GAMES: usize = 20;

/// Longest the games may take on a loaded machine.
const WITHIN: Duration = Duration::from_secs(180);

fn account_token(rt: &tokio::runtime::Runtime, url: &str, name: &str, kind: &str) -> String {
    let password = "correct horse battery";
    let body = json!({"name": name, "password": password, "kind": kind});
    let (status, v) = rt
        .block_on(account::call(
            url,
            "POST",
            "/api/accounts",
            &Auth::None,
            Some(&body),
        ))
        .unwrap();
    assert_eq!(status, 201, "{v}");
    let auth = Auth::Basic(name.into(), password.into());
    let (status, v) = rt
        .block_on(account::call(
            url,
            "POST",
            "/api/tokens",
            &auth,
            Some(&json!({"label": "t"})),
        ))
        .unwrap();
    assert_eq!(status, 201, "{v}");
    v["token"].as_str().unwrap().to_owned()
}

/// `parlor bot` accepting `GAMES` challenges for the account of `token`.
fn accepter(url: &str, token: &str, strategy: &str, config: &std::path::Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args([
            "bot",
            "--server",
            url,
            "--token",
            token,
            "--accept-challenges",
            "--games",
            &GAMES.to_string(),
            "--strategy",
            strategy,
        ])
        .env("XDG_CONFIG_HOME", config)
        .env_remove("PARLOR_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The bot account `name` challenges `to` to `GAMES` rated Nimrod games
/// in a row and plays each at random.
async fn challenger(url: String, name: &'static str, token: String, to: &'static str) {
    let mut me = Client::connect_as(&url, name, Some(&token)).await.unwrap();
    let mut rng = GameRng::from_seed(5);
    let challenge = ClientMsg::Challenge {
        to: to.to_owned(),
        game: GameKind::Nimrod,
        options: json!({"random": {"min": 3, "max": 12}}),
        clock: None,
        rated: true,
        seat: None,
        client_seed: Some(parlor_cli::client::client_seed()),
    };
    for _ in 0..GAMES {
        // The other's `parlor bot` may still be connecting.
        let made = loop {
            match lobby::start_challenge(&mut me, &challenge).await {
                Ok(made) => break made,
                Err(ClientError::Refused {
                    code: ErrorCode::ChallengeOffline,
                    ..
                }) => tokio::time::sleep(Duration::from_millis(100)).await,
                Err(e) => panic!("{e}"),
            }
        };
        let room = loop {
            let msg = me.recv().await.unwrap();
            match lobby::challenge_news(&msg, made.challenge) {
                Some(ChallengeNews::Accepted(room)) => break room,
                Some(other) => panic!("challenge ended: {other:?}"),
                None => {}
            }
        };
        let seated = lobby::seat_in(&mut me, room).await.unwrap();
        bot::play(&mut me, &seated.room, seated.seat, Some("random"), &mut rng)
            .await
            .unwrap();
    }
}

#[test]
fn a_human_account_played_by_the_optimal_bot_is_listed_and_a_random_one_is_not() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = StoreConfig::Sqlite {
        db: Some(dir.path().join("parlor.db")),
        sync: Sync::Normal,
    };
    let mut config = Config {
        store: store.clone(),
        ..Config::default()
    };
    config.limits.rated_pair_cap = 0;
    config.limits.accounts_per_address_hour = 0;
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), config))
        .unwrap();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();

    let moderator = account_token(&rt, &url, "Warden", "human");
    // Roles are set on the server machine, in its database.
    rt.block_on(async {
        let (db, task) = Store::open(&store).await.unwrap();
        db.beside()
            .exec(
                "UPDATE accounts SET role = 'moderator' WHERE name_key = $1",
                vec![Arg::Text("warden".into())],
            )
            .await
            .unwrap();
        drop(db);
        task.finished().await.unwrap();
    });

    let mut humans = Vec::new();
    let mut sparring = Vec::new();
    for (human, partner, strategy) in [
        ("Oracle", "oracle-sparring", "optimal"),
        ("Dabbler", "dabbler-sparring", "random"),
    ] {
        let token = account_token(&rt, &url, human, "human");
        humans.push(accepter(&url, &token, strategy, home.path()));
        let token = account_token(&rt, &url, partner, "bot");
        sparring.push(rt.spawn(challenger(url.clone(), partner, token, human)));
    }
    let started = Instant::now();
    for s in sparring {
        rt.block_on(async { tokio::time::timeout(WITHIN, s).await })
            .expect("the games take too long")
            .unwrap();
    }
    for h in &mut humans {
        loop {
            if let Some(status) = h.try_wait().unwrap() {
                assert!(status.success(), "parlor bot failed: {status}");
                break;
            }
            assert!(started.elapsed() < WITHIN, "parlor bot does not stop");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    // The counts are kept just after each match ends: wait for the last.
    let auth = Auth::Bearer(moderator);
    let answer = loop {
        let (status, v): (u16, Value) = rt
            .block_on(account::call(
                &url,
                "GET",
                "/api/mod/fairplay?game=nimrod&min=10",
                &auth,
                None,
            ))
            .unwrap();
        assert_eq!(status, 200, "{v}");
        let oracle_games = v["flagged"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "Oracle")
            .and_then(|e| e["games"].as_u64());
        if oracle_games == Some(20) && v["tested"] == 2 {
            break v;
        }
        assert!(started.elapsed() < WITHIN, "Oracle is not listed: {v}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let flagged = answer["flagged"].as_array().unwrap();
    assert_eq!(flagged.len(), 1, "{answer}");
    assert_eq!(flagged[0]["name"], "Oracle");
    assert_eq!(flagged[0]["agreed"], flagged[0]["choices"]);
    rt.block_on(server.stop()).unwrap();
}
