//! Rated play through the binary: bot accounts playing `optimal`,
//! `simple` and `random` (two of each, so that seekers of near ratings
//! find each other at once rather than waiting for their rating windows
//! to widen) seek rated Nimrod matches until the ledger holds at least
//! [`MATCHES`] of them; the ledger then folds exactly to the ratings the
//! server keeps, every `optimal` ends above every `random`, and `parlor
//! verify-ratings` re-derives and checks all of it.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use parlor_cli::account::{self, Auth};
use parlor_competition::{ledger, Glicko2, LedgerLine};
use parlor_server::{Config, Server};
use serde_json::{json, Value};

/// Rated matches the test waits for (the issue asks for 30 or more).
const MATCHES: usize = 30;

/// Longest the matches may take on a loaded machine.
const WITHIN: Duration = Duration::from_secs(240);

fn account_token(rt: &tokio::runtime::Runtime, url: &str, name: &str) -> String {
    let password = "correct horse battery";
    let body = json!({"name": name, "password": password, "kind": "bot"});
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

/// A seeking bot: more matches than the test needs, stopped by the test.
fn seeker(url: &str, token: &str, strategy: &str, config: &std::path::Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args([
            "bot",
            "--server",
            url,
            "--token",
            token,
            "--seek",
            "nimrod",
            "--rated",
            "--games",
            "1000",
            "--strategy",
            strategy,
            "--options",
            r#"{"piles":[5,9]}"#,
        ])
        .env("XDG_CONFIG_HOME", config)
        .env_remove("PARLOR_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn ledger_of(rt: &tokio::runtime::Runtime, url: &str) -> Vec<LedgerLine> {
    let http = url.replacen("ws://", "http://", 1);
    let http = http.trim_end_matches('/');
    let text = rt
        .block_on(async {
            let addr = http.trim_start_matches("http://");
            let mut s = tokio::net::TcpStream::connect(addr).await?;
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            s.write_all(
                format!(
                    "GET /api/ratings/ledger HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
                )
                .as_bytes(),
            )
            .await?;
            let mut all = Vec::new();
            s.read_to_end(&mut all).await?;
            Ok::<_, std::io::Error>(String::from_utf8_lossy(&all).into_owned())
        })
        .unwrap();
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    body.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn rated_bots_fold_exactly_and_the_strongest_rate_highest() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap();
    let url = server.url();
    let config = tempfile::tempdir().unwrap();
    let names = [
        "optimal-1",
        "optimal-2",
        "simple-1",
        "simple-2",
        "random-1",
        "random-2",
    ];
    let strategies = ["optimal", "optimal", "simple", "simple", "random", "random"];
    let mut bots: Vec<Child> = names
        .iter()
        .zip(strategies)
        .map(|(name, strategy)| {
            let token = account_token(&rt, &url, name);
            seeker(&url, &token, strategy, config.path())
        })
        .collect();
    let started = Instant::now();
    let lines = loop {
        let lines = ledger_of(&rt, &url);
        if lines.len() >= MATCHES {
            break lines;
        }
        assert!(
            started.elapsed() < WITHIN,
            "only {} rated matches",
            lines.len()
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    for b in &mut bots {
        let _ = b.kill();
        let _ = b.wait();
    }
    let standing = ledger::verify(&Glicko2::PARLOR, &lines, 0.0).expect("the ledger folds");
    let rating = |name: &str| {
        standing
            .get("nimrod", name)
            .map_or(1500.0, |(r, _)| r.rating)
    };
    for best in ["optimal-1", "optimal-2"] {
        for worst in ["random-1", "random-2"] {
            assert!(
                rating(best) > rating(worst),
                "{best} {} vs {worst} {}",
                rating(best),
                rating(worst)
            );
        }
    }

    // The leaderboard: the settled ratings of the fold, best first.
    let out = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args([
            "leaderboard",
            "nimrod",
            "--bots",
            "--json",
            "--server",
            &url,
        ])
        .env("XDG_CONFIG_HOME", config.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let board: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = board["players"].as_array().unwrap();
    let settled: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| {
            standing
                .get("nimrod", n)
                .is_some_and(|(r, _)| r.rd <= 110.0)
        })
        .collect();
    assert_eq!(rows.len(), settled.len(), "{board}");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["rank"], i + 1);
        let name = row["name"].as_str().unwrap();
        assert!(settled.contains(&name), "{name} is provisional: {board}");
        assert_eq!(row["rating"].as_f64(), Some(rating(name)));
        if i > 0 {
            assert!(rows[i - 1]["rating"].as_f64() >= row["rating"].as_f64());
        }
    }

    let out = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args(["verify-ratings", "--server", &url])
        .env("XDG_CONFIG_HOME", config.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(report["verified"], true, "{report}");
    rt.block_on(server.stop()).unwrap();
}
