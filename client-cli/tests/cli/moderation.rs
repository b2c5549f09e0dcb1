//! `parlor mod ...` against a server in this process: a moderator's
//! actions print the log's entry, a refusal prints its code and exits
//! with status 1, and `parlor mod log --json` reads the log back.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_cli::account::{call, Auth};
use parlor_server::accounts::Role;
use parlor_server::moderation::standing_store::StandingStore;
use parlor_server::store::open_beside;
use parlor_server::{Config, Server, StoreConfig, Sync};
use serde_json::{json, Value};

use crate::account::{parlor, text};

/// Registers a human account `name` and makes it a token.
async fn account(url: &str, name: &str) -> String {
    let body = json!({"name": name, "password": "correct horse", "kind": "human"});
    let (status, _) = call(url, "POST", "/api/accounts", &Auth::None, Some(&body))
        .await
        .unwrap();
    assert_eq!(status, 201);
    let basic = Auth::Basic(name.into(), "correct horse".into());
    let (status, v) = call(url, "POST", "/api/tokens", &basic, None)
        .await
        .unwrap();
    assert_eq!(status, 201, "{v}");
    v["token"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moderator_acts_and_reads_the_log_and_refusals_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parlor.db");
    let config = Config {
        store: StoreConfig::Sqlite {
            db: Some(db.clone()),
            sync: Sync::default(),
        },
        ..Config::default()
    };
    let server = Server::start(([127, 0, 0, 1], 0).into(), config)
        .await
        .unwrap();
    let url = server.url();
    let moderator = account(&url, "moe").await;
    let player = account(&url, "pip").await;
    // Granted on the database (the server's own command is tested end to
    // end in the e2e tests).
    let roles = StandingStore::new(open_beside(&db, None).await.unwrap());
    assert!(roles.set_role("moe", Role::Moderator).await.unwrap());

    let home = dir.path().join("config");
    let run = move |args: Vec<String>| {
        let home = home.clone();
        tokio::task::spawn_blocking(move || parlor(&home, &args, ""))
    };
    let args = |token: &str, rest: &[&str]| {
        let mut v: Vec<String> = vec!["--token".into(), token.into(), "mod".into()];
        v.extend(rest.iter().map(|s| (*s).to_owned()));
        v.extend(["--server".to_owned(), url.clone()]);
        v
    };

    let out = run(args(
        &moderator,
        &[
            "playban",
            "pip",
            "--minutes",
            "30",
            "--reason",
            "abuse",
            "--text",
            "rude",
        ],
    ))
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("moe playban pip (abuse): rude"),
        "{}",
        text(&out)
    );
    let out = run(args(
        &moderator,
        &[
            "mark",
            "pip",
            "--mark",
            "engine",
            "--reason",
            "fair_play",
            "--json",
        ],
    ))
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let entry: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(entry["detail"]["mark"], "engine");

    // Refusals: their code, exit status 1.
    let out = run(args(&player, &["close", "moe", "--reason", "spam"]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("mod/forbidden"), "{}", text(&out));
    let out = run(args(
        &moderator,
        &["mute", "pip", "--minutes", "0", "--reason", "spam"],
    ))
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("mod/bad_request"), "{}", text(&out));
    let out = run(args(&moderator, &["role", "pip", "moderator"]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "only admins grant roles");

    // The log, newest first.
    let out = run(args(&moderator, &["log", "--account", "pip", "--json"]))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let actions: Vec<&str> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["mark", "playban"]);
    let out = run(args(&moderator, &["log"])).await.unwrap();
    let listed = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(listed.lines().count(), 2, "{listed}");
    server.stop().await.unwrap();
}
