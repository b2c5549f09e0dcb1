//! The bot ladder through the binary: `parlor bot --ladder nimrod --games
//! 2` enters the ladder, plays the two games it is given (at once: two
//! is its bound), leaves, and prints its summary; both games are rated
//! (two ledger lines, each against an anchor), the ladder's page counts
//! them, and `parlor ladder nimrod` shows the page as a table and as
//! JSON. Stopped by Ctrl-C instead, a ladder bot stays entered.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use parlor_cli::account::{self, Auth};
use parlor_server::limits::{LadderSettings, Limits};
use parlor_server::{Config, Server};
use serde_json::{json, Value};

/// Longest the bot may take on a loaded machine (it takes a second or two).
const WITHIN: Duration = Duration::from_secs(60);

fn account_token(rt: &tokio::runtime::Runtime, url: &str, name: &str) -> String {
    let password = "correct horse battery";
    let body = json!({"name": name, "password": password, "kind": "bot"});
    let call = account::call(url, "POST", "/api/accounts", &Auth::None, Some(&body));
    let (status, v) = rt.block_on(call).unwrap();
    assert_eq!(status, 201, "{v}");
    let auth = Auth::Basic(name.into(), password.into());
    let label = json!({"label": "t"});
    let call = account::call(url, "POST", "/api/tokens", &auth, Some(&label));
    let (status, v) = rt.block_on(call).unwrap();
    assert_eq!(status, 201, "{v}");
    v["token"].as_str().unwrap().to_owned()
}

fn parlor(config: &std::path::Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env_remove("PARLOR_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + WITHIN;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "parlor {args:?} did not finish: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "parlor {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A server whose ladder pairs every 200 ms, not at its default pace.
fn quick_ladder_server(rt: &tokio::runtime::Runtime) -> Server {
    let config = Config {
        limits: Limits {
            ladder: LadderSettings {
                tick: Duration::from_millis(200),
                ..LadderSettings::default()
            },
            ..Limits::default()
        },
        ..Config::default()
    };
    rt.block_on(Server::start(([127, 0, 0, 1], 0).into(), config))
        .unwrap()
}

fn json_out(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_ladder_bot_plays_its_games_rated_and_leaves() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = quick_ladder_server(&rt);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let token = account_token(&rt, &url, "laddie");

    let out = parlor(
        dir.path(),
        &[
            "bot",
            "--server",
            &url,
            "--token",
            &token,
            "--ladder",
            "nimrod",
            "--strategy",
            "optimal",
            "--games",
            "2",
        ],
    );
    let summary = json_out(&out);
    assert_eq!(summary["games"], 2, "{summary}");
    assert_eq!(summary["aborted"], 0, "{summary}");
    let rooms: Vec<&str> = summary["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(rooms.len(), 2);

    // Both rated against anchors: two ledger lines, for those rooms.
    let ledger = rt
        .block_on(parlor_cli::api::get(
            &url,
            "/api/ratings/ledger?pool=nimrod",
            1 << 20,
        ))
        .unwrap();
    assert_eq!(ledger.status, 200);
    let text = String::from_utf8_lossy(&ledger.body);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("nimrod-"), "against anchors: {text}");
    for room in &rooms {
        assert!(text.contains(room), "{room} not in the ledger: {text}");
    }

    // The page counts them once the ladder has read their results, and
    // the bot is out of the ladder.
    let deadline = Instant::now() + WITHIN;
    let page = loop {
        let page = json_out(&parlor(
            dir.path(),
            &["ladder", "nimrod", "--json", "--server", &url],
        ));
        if page["recent"].as_array().unwrap().len() == 2 {
            break page;
        }
        assert!(Instant::now() < deadline, "results not read: {page}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let entrants = page["entrants"].as_array().unwrap();
    assert!(entrants.iter().all(|e| e["name"] != "laddie"), "{page}");
    let played: Vec<&Value> = entrants.iter().filter(|e| e["games"] != 0).collect();
    assert!(
        played.iter().all(|e| e["builtin"] == true),
        "only anchors remain: {page}"
    );
    let table = parlor(dir.path(), &["ladder", "nimrod", "--server", &url]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("nimrod-optimal") && table.contains("anchor"),
        "{table}"
    );
    assert!(table.contains("Latest results"), "{table}");
    rt.block_on(server.stop()).unwrap();
}

/// Stopping a ladder bot is not leaving the ladder: `parlor bot --ladder
/// nimrod` stopped by Ctrl-C (SIGINT) once it has a game exits without
/// `ladder_leave`, and the ladder keeps listing it, as not connected.
#[test]
fn a_ladder_bot_stopped_by_ctrl_c_stays_listed_as_not_connected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = quick_ladder_server(&rt);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let token = account_token(&rt, &url, "stayer");
    let page = |dir: &std::path::Path| {
        json_out(&parlor(
            dir,
            &["ladder", "nimrod", "--json", "--server", &url],
        ))
    };
    let me = |page: &Value| {
        page["entrants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "stayer")
            .cloned()
    };

    let mut child = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args([
            "bot",
            "--server",
            &url,
            "--token",
            &token,
            "--ladder",
            "nimrod",
            "--strategy",
            "optimal",
        ])
        .env("XDG_CONFIG_HOME", dir.path())
        .env_remove("PARLOR_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Entered, connected, and given a game.
    let deadline = Instant::now() + WITHIN;
    loop {
        let page = page(dir.path());
        if me(&page).is_some_and(|e| e["connected"] == true && e["games"].as_u64() > Some(0)) {
            break;
        }
        assert!(Instant::now() < deadline, "the bot never played: {page}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let deadline = Instant::now() + WITHIN;
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the bot did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Still on the ladder once its presence has lapsed: listed, not
    // connected (the page greys it), its record kept.
    let deadline = Instant::now() + WITHIN;
    loop {
        let page = page(dir.path());
        let Some(entry) = me(&page) else {
            panic!("the stopped bot left the ladder: {page}");
        };
        if entry["connected"] == false {
            assert!(entry["games"].as_u64() > Some(0), "{entry}");
            break;
        }
        assert!(Instant::now() < deadline, "still connected: {page}");
        std::thread::sleep(Duration::from_millis(200));
    }
    rt.block_on(server.stop()).unwrap();
}
