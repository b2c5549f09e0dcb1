//! Bots ride over a server crash: `parlor bot --tournament` processes
//! play a round robin, the server (this binary run again as a server
//! process) is killed with `kill -9` mid-event, so that every connection
//! drops without a close frame, and started again on the same database
//! and port; every bot reconnects, resumes with its token, and plays the
//! event to its end.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use parlor_cli::account::{self, Auth};
use parlor_server::{Config, Server, StoreConfig, Sync};
use serde_json::{json, Value};

use crate::tournament_bots::finish;

/// Longest the event may take, the crash included, on a loaded machine.
const WITHIN: Duration = Duration::from_secs(240);

/// How long before its start the event is made: time for the bots to
/// start and enter it.
const STARTS_IN: &str = "6s";

/// Set in the environment of this test binary run as the server: the
/// address to serve on and the database, `ADDR DB`.
const SERVE: &str = "PARLOR_BOT_RECONNECT_SERVE";

/// Not a test: this binary run again with [`SERVE`] set serves until it
/// is killed (a process of its own, so that `kill -9` is a real one).
#[test]
fn serve_when_asked() {
    let Ok(what) = std::env::var(SERVE) else {
        return;
    };
    let (addr, db) = what.split_once(' ').unwrap();
    let addr: SocketAddr = addr.parse().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let config = Config {
        store: StoreConfig::Sqlite {
            db: Some(db.into()),
            sync: Sync::default(),
        },
        ..Config::default()
    };
    let _server = rt.block_on(Server::start(addr, config)).unwrap();
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// [`serve_when_asked`]'s name in this test binary: its module path
/// below the binary's root (`bot_reconnect::serve_when_asked`).
fn serve_test_name() -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::serve_when_asked"),
        None => "serve_when_asked".to_owned(),
    }
}

/// A server process.
struct Host(Child);

impl Host {
    /// Starts a server on `addr` keeping its matches in `db`, and waits
    /// until it listens (a crashed one's port may take a moment).
    fn start(addr: SocketAddr, db: &Path) -> Host {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    &serve_test_name(),
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .env(SERVE, format!("{addr} {}", db.display()))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            while Instant::now() < deadline {
                if std::net::TcpStream::connect(addr).is_ok() {
                    return Host(child);
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
            assert!(Instant::now() < deadline, "the server did not start");
        }
    }

    /// `kill -9`.
    fn crash(mut self) {
        self.0.kill().unwrap();
        self.0.wait().unwrap();
    }
}

fn parlor(config: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_parlor"));
    c.env("XDG_CONFIG_HOME", config)
        .env_remove("PARLOR_TOKEN")
        .stdin(Stdio::null());
    c
}

fn run_ok(config: &Path, args: &[&str]) -> Output {
    let out = parlor(config).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "parlor {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json_out(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A bot account's API token.
fn token(rt: &tokio::runtime::Runtime, url: &str, name: &str) -> String {
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

#[test]
fn tournament_bots_reconnect_after_a_crash_and_finish_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    let db = dir.path().join("parlor.db");
    let addr: SocketAddr = {
        let free = TcpListener::bind("127.0.0.1:0").unwrap();
        free.local_addr().unwrap()
    };
    let url = format!("ws://{addr}");
    let host = Host::start(addr, &db);
    let names = ["rc-ann", "rc-bob", "rc-cy", "rc-dee"];
    let rt = tokio::runtime::Runtime::new().unwrap();
    let tokens: Vec<String> = names.iter().map(|n| token(&rt, &url, n)).collect();
    // Piles of 6 and 9 with random bots: games of several moves, a few
    // seconds each at the server's pace, so the crash lands mid-event.
    let made = run_ok(
        &config,
        &[
            "tournament",
            "create",
            "--game",
            "nimrod",
            "--format",
            "round-robin",
            "--rounds",
            "2",
            "--options",
            r#"{"piles":[6,9]}"#,
            "--move-time",
            "20",
            "--kind",
            "bot",
            "--starts-in",
            STARTS_IN,
            "--json",
            "--token",
            &tokens[0],
            "--server",
            &url,
        ],
    );
    let id = json_out(&made)["id"].as_str().unwrap().to_owned();
    let bots: Vec<Child> = names
        .iter()
        .zip(&tokens)
        .map(|(name, token)| {
            parlor(&config)
                .args(["bot", "--server", &url, "--token", token])
                .args(["--tournament", &id, "--strategy", "random"])
                .args(["--name", name, "--json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // Crash once the event has games in play.
    let deadline = Instant::now() + WITHIN;
    loop {
        let page = json_out(&run_ok(
            &config,
            &["tournament", "show", &id, "--json", "--server", &url],
        ));
        let rounds = page["rounds"].as_array().map_or(0, Vec::len);
        if rounds >= 2 {
            break;
        }
        assert!(Instant::now() < deadline, "the event never started: {page}");
        std::thread::sleep(Duration::from_millis(200));
    }
    host.crash();
    std::thread::sleep(Duration::from_secs(1));
    let host = Host::start(addr, &db);
    for (child, name) in bots.into_iter().zip(names) {
        let out = finish(child, deadline);
        let errors = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{name}: {}{errors}",
            String::from_utf8_lossy(&out.stdout)
        );
        let report = json_out(&out);
        // A round robin of four, two cycles: six games each.
        assert_eq!(
            report["played"]["games"],
            json!(6),
            "{name}: {report} {errors}"
        );
    }
    let page = json_out(&run_ok(
        &config,
        &["tournament", "show", &id, "--json", "--server", &url],
    ));
    assert_eq!(page["status"], json!("finished"), "{page}");
    host.crash();
}
