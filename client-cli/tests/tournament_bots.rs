//! A tournament played through the binary: six bot accounts (two each of
//! `optimal`, `simple` and `random`) run `parlor bot --tournament` on a
//! round robin of small Nimrod games; every bot exits 0 with the final
//! standings, which equal a count by hand from the page and each bot's
//! own record; `parlor verify-tournament` re-checks the whole event; and
//! `parlor tournaments`, `tournament create | join | leave | show` work
//! on the way.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use parlor_cli::account::{self, Auth};
use parlor_server::{Config, Server};
use serde_json::{json, Value};

/// Longest the whole event may take on a loaded machine (it takes about
/// 15 s: 5 rounds of a few moves, each round paired on the server's
/// one-second tick).
const WITHIN: Duration = Duration::from_secs(180);

/// How long before its start the event is made: time for six processes
/// to start and enter it.
const STARTS_IN: &str = "6s";

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

fn parlor(config: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_parlor"));
    c.env("XDG_CONFIG_HOME", config)
        .env_remove("PARLOR_TOKEN")
        .stdin(Stdio::null());
    c
}

/// Runs `parlor ARGS` to its end; its output, which must be a success.
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

/// Waits for `child` to exit within the deadline (killing it if not);
/// its output.
fn finish(mut child: Child, deadline: Instant) -> Output {
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "a bot did not finish: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Points and Sonneborn-Berger by hand from the page's games: 1 a win,
/// ½ a draw; SB sums each game's score times the opponent's points.
fn hand_count(page: &Value) -> HashMap<String, (f64, f64)> {
    let mut points: HashMap<String, f64> = HashMap::new();
    for p in page["players"].as_array().unwrap() {
        points.insert(p["name"].as_str().unwrap().to_owned(), 0.0);
    }
    let mut scores = Vec::new();
    for g in page["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap())
    {
        let seats: Vec<String> = g["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
        let winners: Vec<u64> = g["result"]["winners"]
            .as_array()
            .expect("every game has a result")
            .iter()
            .map(|w| w.as_u64().unwrap())
            .collect();
        for (seat, name) in seats.iter().enumerate() {
            let score = if winners.is_empty() {
                0.5
            } else if winners.contains(&(seat as u64)) {
                1.0
            } else {
                0.0
            };
            *points.get_mut(name).unwrap() += score;
            scores.push((name.clone(), seats[1 - seat].clone(), score));
        }
    }
    let mut out: HashMap<String, (f64, f64)> =
        points.iter().map(|(n, p)| (n.clone(), (*p, 0.0))).collect();
    for (name, opponent, score) in scores {
        out.get_mut(&name).unwrap().1 += score * points[&opponent];
    }
    out
}

#[test]
fn six_bots_play_a_round_robin_to_the_end_and_it_verifies() {
    let started = Instant::now();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap();
    let url = server.url();
    let config = tempfile::tempdir().unwrap();
    let config = config.path();
    let names = [
        "opt-ann",
        "opt-bob",
        "simple-cy",
        "simple-dee",
        "rand-eve",
        "rand-fay",
    ];
    let strategies = ["optimal", "optimal", "simple", "simple", "random", "random"];
    let tokens: Vec<String> = names.iter().map(|n| account_token(&rt, &url, n)).collect();

    let made = run_ok(
        config,
        &[
            "tournament",
            "create",
            "--game",
            "nimrod",
            "--format",
            "round-robin",
            "--rounds",
            "1",
            "--options",
            r#"{"piles":[3,5]}"#,
            "--move-time",
            "20",
            "--kind",
            "bot",
            "--name",
            "Six bots",
            "--starts-in",
            STARTS_IN,
            "--json",
            "--server",
            &url,
            "--token",
            &tokens[0],
        ],
    );
    let id = json_out(&made)["id"].as_str().unwrap().to_owned();
    let listed = json_out(&run_ok(
        config,
        &["tournaments", "--json", "--server", &url],
    ));
    assert_eq!(listed["upcoming"][0]["id"], json!(id), "{listed}");
    // Entering and leaving by hand; the bot enters again by itself.
    run_ok(
        config,
        &[
            "tournament",
            "join",
            &id,
            "--server",
            &url,
            "--token",
            &tokens[0],
        ],
    );
    let page = json_out(&run_ok(
        config,
        &["tournament", "show", &id, "--json", "--server", &url],
    ));
    assert_eq!(page["players"][0]["name"], json!("opt-ann"));
    run_ok(
        config,
        &[
            "tournament",
            "leave",
            &id,
            "--server",
            &url,
            "--token",
            &tokens[0],
        ],
    );
    let page = json_out(&run_ok(
        config,
        &["tournament", "show", &id, "--json", "--server", &url],
    ));
    assert_eq!(page["players"], json!([]));
    // The event is not over: nothing to verify yet, and it says so.
    let early = parlor(config)
        .args(["verify-tournament", &id, "--server", &url])
        .output()
        .unwrap();
    assert_eq!(early.status.code(), Some(1));
    assert_eq!(json_out(&early)["check"], json!("status"));

    let bots: Vec<Child> = names
        .iter()
        .zip(strategies)
        .zip(&tokens)
        .map(|((name, strategy), token)| {
            parlor(config)
                .args([
                    "bot",
                    "--server",
                    &url,
                    "--token",
                    token,
                    "--tournament",
                    &id,
                    "--strategy",
                    strategy,
                    "--name",
                    name,
                    "--json",
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = Instant::now() + WITHIN;
    let outputs: Vec<Output> = bots.into_iter().map(|b| finish(b, deadline)).collect();
    let mut reports = Vec::new();
    for (name, out) in names.iter().zip(&outputs) {
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        reports.push(json_out(out));
    }
    eprintln!("the event was played in {:?}", started.elapsed());

    let page = json_out(&run_ok(
        config,
        &["tournament", "show", &id, "--json", "--server", &url],
    ));
    assert_eq!(page["status"], json!("finished"));
    assert_eq!(page["rounds"].as_array().unwrap().len(), 5);
    // Every bot printed the final standings, the page's.
    for r in &reports {
        assert_eq!(r["tournament"], json!(id));
        assert_eq!(r["standings"], page["standings"]);
    }
    // The standings are the hand count, best first, and each bot's own
    // record says the same of it: five games, a point a win.
    let hand = hand_count(&page);
    let standings = page["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 6);
    for s in standings {
        let name = s["name"].as_str().unwrap();
        let (points, sb) = hand[name];
        assert_eq!(s["points"].as_f64(), Some(points), "{name}");
        assert!(
            (s["tiebreak"].as_f64().unwrap() - sb).abs() < 1e-9,
            "{name}"
        );
        let i = names.iter().position(|n| *n == name).unwrap();
        let played = &reports[i]["played"];
        assert_eq!(played["games"], json!(5), "{name}: {played}");
        assert_eq!(
            played["wins"].as_f64().unwrap() + played["draws"].as_f64().unwrap() / 2.0,
            points
        );
    }
    for w in standings.windows(2) {
        let key = |s: &Value| {
            (
                s["points"].as_f64().unwrap(),
                s["tiebreak"].as_f64().unwrap(),
            )
        };
        assert!(key(&w[0]) >= key(&w[1]), "{standings:?}");
    }
    // Piles of 3 and 5 are a lost position for the player to move (seat
    // 0): an `optimal` bot in seat 1 wins every game, whoever it meets.
    let mut second = 0;
    for g in page["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap())
    {
        if g["seats"][1].as_str().unwrap().starts_with("opt-") {
            assert_eq!(g["result"]["winners"], json!([1]), "{g}");
            second += 1;
        }
    }
    assert!(second > 0, "an optimal bot sat second at least once");

    let out = parlor(config)
        .args(["verify-tournament", &id, "--server", &url])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        json_out(&out),
        json!({"verified": true, "tournament": id, "rounds": 5, "games": 15})
    );

    let shown = run_ok(config, &["tournament", "show", &id, "--server", &url]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("Six bots") && text.contains("sonneborn-berger"),
        "{text}"
    );
    for name in names {
        assert!(text.contains(name), "{text}");
    }
    rt.block_on(server.stop()).unwrap();
    eprintln!("the whole test took {:?}", started.elapsed());
}
