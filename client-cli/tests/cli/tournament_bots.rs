//! Tournaments played through the binary: bot accounts run `parlor bot
//! --tournament` on small Nimrod events, a round robin of six (two each
//! of `optimal`, `simple` and `random`) and a duplicate Swiss of four
//! (each bot playing both games of a set at once), and on a duplicate
//! Swiss of seven Cribbage bots over three rounds (a bye each round). Every bot exits 0
//! with the final standings, which equal a count by hand from the page
//! and each bot's own record; `parlor verify-tournament` re-checks the
//! whole event; and `parlor tournaments`, `tournament create | join |
//! leave | show` work on the way.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use parlor_cli::account::{self, Auth};
use parlor_server::{Config, Server};
use serde_json::{json, Value};

/// Longest an event may take on a loaded machine (the round robin takes
/// about 15 s: 5 rounds of a few moves, each paired on the server's
/// one-second tick, after the start's wait).
const WITHIN: Duration = Duration::from_secs(180);

/// How long before its start an event is made: time for the processes
/// to start and enter it.
const STARTS_IN: &str = "6s";

/// Piles of 3 and 5: a lost position for the player to move (seat 0),
/// so an `optimal` bot in seat 1 wins every game, whoever it meets.
const PILES: &str = r#"{"piles":[3,5]}"#;

/// A server and a config directory for the commands.
struct Setup {
    rt: tokio::runtime::Runtime,
    server: Server,
    url: String,
    config: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let server = rt
            .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
            .unwrap();
        let url = server.url();
        Setup {
            rt,
            server,
            url,
            config: tempfile::tempdir().unwrap(),
        }
    }

    fn config(&self) -> &Path {
        self.config.path()
    }

    /// A bot account's API token.
    fn token(&self, name: &str) -> String {
        let password = "correct horse battery";
        let body = json!({"name": name, "password": password, "kind": "bot"});
        let call = account::call(&self.url, "POST", "/api/accounts", &Auth::None, Some(&body));
        let (status, v) = self.rt.block_on(call).unwrap();
        assert_eq!(status, 201, "{v}");
        let auth = Auth::Basic(name.into(), password.into());
        let label = json!({"label": "t"});
        let call = account::call(&self.url, "POST", "/api/tokens", &auth, Some(&label));
        let (status, v) = self.rt.block_on(call).unwrap();
        assert_eq!(status, 201, "{v}");
        v["token"].as_str().unwrap().to_owned()
    }

    fn parlor(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_parlor"));
        c.env("XDG_CONFIG_HOME", self.config())
            .env_remove("PARLOR_TOKEN")
            .stdin(Stdio::null());
        c
    }

    /// Runs `parlor ARGS --server URL` to its end; its output, which must
    /// be a success.
    fn run_ok(&self, args: &[&str]) -> Output {
        let out = self
            .parlor()
            .args(args)
            .args(["--server", &self.url])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "parlor {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// The event's page, through `parlor tournament show --json`.
    fn page(&self, id: &str) -> Value {
        json_out(&self.run_ok(&["tournament", "show", id, "--json"]))
    }

    /// Runs a `parlor bot --tournament` per account, each to its end;
    /// their JSON reports, by account.
    fn play(&self, id: &str, bots: &[(&str, &str, &str)]) -> Vec<Value> {
        let children: Vec<Child> = bots
            .iter()
            .map(|(name, strategy, token)| {
                self.parlor()
                    .args(["bot", "--server", &self.url, "--token", token])
                    .args(["--tournament", id, "--strategy", strategy])
                    .args(["--name", name, "--json"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let deadline = Instant::now() + WITHIN;
        children
            .into_iter()
            .zip(bots)
            .map(|(child, (name, ..))| {
                let out = finish(child, deadline);
                assert!(
                    out.status.success(),
                    "{name}: {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                // No join or move of the bot's was refused.
                let errors = String::from_utf8_lossy(&out.stderr);
                assert!(!errors.contains("refused"), "{name}: {errors}");
                json_out(&out)
            })
            .collect()
    }

    /// `parlor verify-tournament`'s report, which must be a success.
    fn verify(&self, id: &str) -> Value {
        let out = self
            .parlor()
            .args(["verify-tournament", id, "--server", &self.url])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        json_out(&out)
    }
}

fn json_out(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Waits for `child` to exit within the deadline (killing it if not);
/// its output.
pub(crate) fn finish(mut child: Child, deadline: Instant) -> Output {
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

/// The page's games.
fn games(page: &Value) -> Vec<&Value> {
    page["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .collect()
}

/// Points and tie-breaks by hand from the page's games: 1 a win, ½ a
/// draw, 1 a Swiss bye; Sonneborn-Berger (round robin) sums each game's
/// score times the opponent's points, Buchholz (Swiss) the opponents'
/// points.
fn hand_count(page: &Value) -> HashMap<String, (f64, f64)> {
    let mut points: HashMap<String, f64> = HashMap::new();
    for p in page["players"].as_array().unwrap() {
        points.insert(p["name"].as_str().unwrap().to_owned(), 0.0);
    }
    let swiss = page["format"] == json!("swiss");
    for bye in page["byes"].as_array().unwrap() {
        if let (Some(b), true) = (bye.as_str(), swiss) {
            *points.get_mut(b).unwrap() += 1.0;
        }
    }
    let mut scores = Vec::new();
    for g in games(page) {
        let seats: Vec<String> = g["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
        let winners = g["result"]["winners"].as_array().expect("a result");
        for (seat, name) in seats.iter().enumerate() {
            let score = if winners.is_empty() {
                0.5
            } else if winners.contains(&json!(seat)) {
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
        let weight = if swiss { 1.0 } else { score };
        out.get_mut(&name).unwrap().1 += weight * points[&opponent];
    }
    out
}

/// What every finished event must show: the bots' reports carry the
/// page's standings; those are the hand count, best first; each bot's own
/// record (`games` each) gives its points; and every `optimal` bot in
/// seat 1 won.
fn check_finished(page: &Value, names: &[&str], reports: &[Value], games_each: u32) {
    assert_eq!(page["status"], json!("finished"));
    for r in reports {
        assert_eq!(r["tournament"], page["id"]);
        assert_eq!(r["standings"], page["standings"]);
    }
    let hand = hand_count(page);
    let standings = page["standings"].as_array().unwrap();
    assert_eq!(standings.len(), names.len());
    for s in standings {
        let name = s["name"].as_str().unwrap();
        let (points, tiebreak) = hand[name];
        assert_eq!(s["points"].as_f64(), Some(points), "{name}");
        let off = (s["tiebreak"].as_f64().unwrap() - tiebreak).abs();
        assert!(off < 1e-9, "{name}: {s} against {tiebreak}");
        let played = &reports[names.iter().position(|n| *n == name).unwrap()]["played"];
        assert_eq!(played["games"], json!(games_each), "{name}: {played}");
        let own = played["wins"].as_f64().unwrap() + played["draws"].as_f64().unwrap() / 2.0;
        let byes = page["byes"].as_array().unwrap();
        let bye_points = if page["format"] == json!("swiss") {
            byes.iter().filter(|b| **b == json!(name)).count() as f64
        } else {
            0.0
        };
        assert_eq!(own + bye_points, points, "{name}: {played}");
    }
    let key = |s: &Value| (s["points"].as_f64(), s["tiebreak"].as_f64());
    for w in standings.windows(2) {
        assert!(key(&w[0]) >= key(&w[1]), "{standings:?}");
    }
    let mut second = 0;
    for g in games(page) {
        if g["seats"][1].as_str().unwrap().starts_with("opt-") {
            assert_eq!(g["result"]["winners"], json!([1]), "{g}");
            second += 1;
        }
    }
    assert!(second > 0, "an optimal bot sat second at least once");
}

#[test]
fn six_bots_play_a_round_robin_to_the_end_and_it_verifies() {
    let started = Instant::now();
    let s = Setup::new();
    let names = [
        "opt-ann",
        "opt-bob",
        "simple-cy",
        "simple-dee",
        "rand-eve",
        "rand-fay",
    ];
    let strategies = ["optimal", "optimal", "simple", "simple", "random", "random"];
    let tokens: Vec<String> = names.iter().map(|n| s.token(n)).collect();
    let made = s.run_ok(&[
        "tournament",
        "create",
        "--game",
        "nimrod",
        "--format",
        "round-robin",
        "--rounds",
        "1",
        "--options",
        PILES,
        "--move-time",
        "20",
        "--kind",
        "bot",
        "--name",
        "Six bots",
        "--starts-in",
        STARTS_IN,
        "--json",
        "--token",
        &tokens[0],
    ]);
    let id = json_out(&made)["id"].as_str().unwrap().to_owned();
    let listed = json_out(&s.run_ok(&["tournaments", "--json"]));
    assert_eq!(listed["upcoming"][0]["id"], json!(id), "{listed}");
    // Entering and leaving by hand; the bot enters again by itself.
    s.run_ok(&["tournament", "join", &id, "--token", &tokens[0]]);
    assert_eq!(s.page(&id)["players"][0]["name"], json!("opt-ann"));
    s.run_ok(&["tournament", "leave", &id, "--token", &tokens[0]]);
    assert_eq!(s.page(&id)["players"], json!([]));
    // The event is not over: nothing to verify yet, and it says so.
    let early = s
        .parlor()
        .args(["verify-tournament", &id, "--server", &s.url])
        .output()
        .unwrap();
    assert_eq!(early.status.code(), Some(1));
    assert_eq!(json_out(&early)["check"], json!("status"));

    let bots: Vec<(&str, &str, &str)> = (0..names.len())
        .map(|i| (names[i], strategies[i], tokens[i].as_str()))
        .collect();
    let reports = s.play(&id, &bots);
    eprintln!("the round robin was played in {:?}", started.elapsed());
    let page = s.page(&id);
    assert_eq!(page["rounds"].as_array().unwrap().len(), 5);
    check_finished(&page, &names, &reports, 5);
    assert_eq!(
        s.verify(&id),
        json!({"verified": true, "tournament": id, "rounds": 5, "games": 15})
    );

    let shown = s.run_ok(&["tournament", "show", &id]);
    let text = String::from_utf8_lossy(&shown.stdout);
    let listed = s.run_ok(&["tournaments"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains(&format!("{id}  finished")), "{listed}");
    assert!(
        text.contains("Six bots") && text.contains("sonneborn-berger"),
        "{text}"
    );
    for name in names {
        assert!(text.contains(name), "{text}");
    }
    s.rt.block_on(s.server.stop()).unwrap();
}

#[test]
fn bots_play_both_games_of_each_duplicate_set_at_once() {
    let started = Instant::now();
    let s = Setup::new();
    let names = ["opt-dup", "simple-dup", "rand-dup1", "rand-dup2"];
    let strategies = ["optimal", "simple", "random", "random"];
    let tokens: Vec<String> = names.iter().map(|n| s.token(n)).collect();
    let made = s.run_ok(&[
        "tournament",
        "create",
        "--game",
        "nimrod",
        "--format",
        "swiss",
        "--rounds",
        "2",
        "--duplicate",
        "--options",
        PILES,
        "--move-time",
        "20",
        "--kind",
        "bot",
        "--starts-in",
        STARTS_IN,
        "--json",
        "--token",
        &tokens[1],
    ]);
    let id = json_out(&made)["id"].as_str().unwrap().to_owned();
    let bots: Vec<(&str, &str, &str)> = (0..names.len())
        .map(|i| (names[i], strategies[i], tokens[i].as_str()))
        .collect();
    let reports = s.play(&id, &bots);
    eprintln!("the duplicate Swiss was played in {:?}", started.elapsed());
    let page = s.page(&id);
    let rounds = page["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    for round in rounds {
        // Two boards, each a set of two games with the seats swapped.
        let round = round.as_array().unwrap();
        assert_eq!(round.len(), 4);
        assert_eq!(round[0]["seats"][0], round[1]["seats"][1]);
        assert_eq!(round[2]["seats"][1], round[3]["seats"][0]);
    }
    check_finished(&page, &names, &reports, 4);
    assert_eq!(
        s.verify(&id),
        json!({"verified": true, "tournament": id, "rounds": 2, "games": 8})
    );
    s.rt.block_on(s.server.stop()).unwrap();
}

#[test]
fn seven_cribbage_bots_play_a_duplicate_swiss_and_it_verifies() {
    let started = Instant::now();
    let s = Setup::new();
    let names = [
        "exp-ann", "exp-bob", "seed-cy", "seed-dee", "seed-eve", "rand-fay", "rand-gus",
    ];
    let strategies = [
        "expert", "expert", "seed", "seed", "seed", "random", "random",
    ];
    let tokens: Vec<String> = names.iter().map(|n| s.token(n)).collect();
    let made = s.run_ok(&[
        "tournament",
        "create",
        "--game",
        "cribbage",
        "--format",
        "swiss",
        "--rounds",
        "3",
        "--duplicate",
        "--move-time",
        "30",
        "--kind",
        "bot",
        "--starts-in",
        STARTS_IN,
        "--json",
        "--token",
        &tokens[0],
    ]);
    let id = json_out(&made)["id"].as_str().unwrap().to_owned();
    let bots: Vec<(&str, &str, &str)> = (0..names.len())
        .map(|i| (names[i], strategies[i], tokens[i].as_str()))
        .collect();
    let reports = s.play(&id, &bots);
    eprintln!("the Cribbage Swiss was played in {:?}", started.elapsed());
    let page = s.page(&id);
    let rounds = page["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3);
    let byes = page["byes"].as_array().unwrap();
    for (round, bye) in rounds.iter().zip(byes) {
        // Three boards of two games on one deal each, seats swapped; one bye.
        let round = round.as_array().unwrap();
        assert_eq!(round.len(), 6);
        for set in round.chunks(2) {
            assert_eq!(set[0]["seats"][0], set[1]["seats"][1]);
            assert_eq!(set[0]["seats"][1], set[1]["seats"][0]);
        }
        assert!(bye.is_string());
    }
    let distinct: std::collections::HashSet<&Value> = byes.iter().collect();
    assert_eq!(distinct.len(), 3, "one bye at most each: {byes:?}");
    // The standings are the hand count, and each bot's own record (and
    // its byes) gives its points.
    let hand = hand_count(&page);
    for st in page["standings"].as_array().unwrap() {
        let name = st["name"].as_str().unwrap();
        let (points, tiebreak) = hand[name];
        assert_eq!(st["points"].as_f64(), Some(points), "{name}");
        assert!(
            (st["tiebreak"].as_f64().unwrap() - tiebreak).abs() < 1e-9,
            "{name}"
        );
        let played = &reports[names.iter().position(|n| *n == name).unwrap()]["played"];
        let had_bye = byes.iter().filter(|b| **b == json!(name)).count();
        assert_eq!(
            played["games"],
            json!(2 * (3 - had_bye)),
            "{name}: {played}"
        );
        let own = played["wins"].as_f64().unwrap() + played["draws"].as_f64().unwrap() / 2.0;
        assert_eq!(own + had_bye as f64, points, "{name}: {played}");
    }
    assert_eq!(
        s.verify(&id),
        json!({"verified": true, "tournament": id, "rounds": 3, "games": 18})
    );
    s.rt.block_on(s.server.stop()).unwrap();
}
