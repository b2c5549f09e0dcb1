//! Finding opponents through the binary: `parlor bot --seek` against
//! itself, `parlor challenge` against `parlor bot --accept-challenges`
//! and `parlor accept`, and `parlor seek` filled with the server's bots.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::session;

use std::collections::BTreeSet;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use parlor_cli::account::{self, Auth};
use parlor_server::{Config, Server};
use serde_json::{json, Value};
use session::Session;

/// Options for short Nimrod matches: one pile of three (typed as pile B).
const SHORT: &str = r#"{"piles":[0,3]}"#;

fn server(rt: &tokio::runtime::Runtime) -> Server {
    rt.block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Makes the account `name` (a bot's, or a person's) and an API token for it.
fn account_token(rt: &tokio::runtime::Runtime, url: &str, name: &str, bot: bool) -> String {
    let kind = if bot { "bot" } else { "human" };
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
            Some(&json!({"label": "test"})),
        ))
        .unwrap();
    assert_eq!(status, 201, "{v}");
    v["token"].as_str().unwrap().to_owned()
}

/// `parlor ARGS` with a config directory of its own (no kept login) and
/// standard input closed; waits for it to exit.
fn parlor(args: Vec<String>) -> std::thread::JoinHandle<Output> {
    std::thread::spawn(move || {
        let config = tempfile::tempdir().unwrap();
        Command::new(env!("CARGO_BIN_EXE_parlor"))
            .args(&args)
            .env("XDG_CONFIG_HOME", config.path())
            .env_remove("PARLOR_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    })
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

fn summary(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn rooms(v: &Value) -> BTreeSet<String> {
    v["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect()
}

/// Plays a human's side of a short Nimrod match in `p`: one rod each turn
/// until the result; returns the line that told it.
fn play_out(p: &mut Session) -> String {
    loop {
        let Some(line) = p.next_line() else {
            panic!("the output ended mid-game:\n{}", p.transcript)
        };
        if line.contains("Your move") {
            p.send("b 1");
        }
        if line.contains("You win!") || line.contains("You lose.") {
            return line;
        }
    }
}

#[test]
fn two_seeking_bots_play_each_other_game_after_game_and_sum_up() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let ta = account_token(&rt, &url, "seeker-a", true);
    let tb = account_token(&rt, &url, "seeker-b", true);
    let bot = |token: &str| {
        parlor(strings(&[
            "bot",
            "--server",
            &url,
            "--token",
            token,
            "--seek",
            "nimrod",
            "--rated",
            "--games",
            "2",
            "--strategy",
            "random",
            "--options",
            r#"{"piles":[4,6]}"#,
        ]))
    };
    let (a, b) = (bot(&ta), bot(&tb));
    let (a, b) = (summary(&a.join().unwrap()), summary(&b.join().unwrap()));
    for s in [&a, &b] {
        assert_eq!(s["games"], json!(2), "{s}");
        assert_eq!(s["aborted"], json!(0), "{s}");
        assert_eq!(s["draws"], json!(0), "Nimrod has no draws: {s}");
        let (w, l) = (s["wins"].as_u64().unwrap(), s["losses"].as_u64().unwrap());
        assert_eq!(w + l, 2, "{s}");
        assert_eq!(rooms(s).len(), 2, "two rooms: {s}");
    }
    assert_eq!(rooms(&a), rooms(&b), "they played each other");
    assert_eq!(a["wins"], b["losses"], "{a} {b}");
    assert_eq!(a["losses"], b["wins"], "{a} {b}");
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_challenge_accepted_by_a_bot_is_played_to_the_end() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let human = account_token(&rt, &url, "challenger", false);
    let bot_token = account_token(&rt, &url, "acceptor", true);
    let bot = parlor(strings(&[
        "bot",
        "--server",
        &url,
        "--token",
        &bot_token,
        "--accept-challenges",
        "--games",
        "1",
        "--strategy",
        "optimal",
    ]));
    // The bot must be connected before it can be challenged.
    let since = Instant::now();
    let mut p = loop {
        let mut p = Session::start(&[
            "challenge",
            "acceptor",
            "nimrod",
            "--server",
            &url,
            "--token",
            &human,
            "--seat",
            "0",
            "--options",
            SHORT,
        ]);
        let first = p.next_line().unwrap_or_default();
        if first.contains("Challenged acceptor") {
            break p;
        }
        assert!(
            first.contains("challenge/offline") && since.elapsed() < session::WAIT,
            "{}",
            p.transcript
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    p.expect("acceptor accepted.");
    p.expect("You are seat 0");
    let result = play_out(&mut p);
    assert!(p.wait_exit().success(), "{}", p.transcript);
    let s = summary(&bot.join().unwrap());
    assert_eq!(s["games"], json!(1), "{s}");
    // The optimal bot wins from any position it can; whoever won, both
    // sides tell the same story.
    let bot_won = s["wins"] == json!(1);
    assert_eq!(result.contains("You lose."), bot_won, "{s} / {result}");
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_declined_challenge_says_why_and_fails() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let ta = account_token(&rt, &url, "asker", false);
    let tb = account_token(&rt, &url, "answerer", false);
    let mut b = Session::start(&["accept", "--server", &url, "--token", &tb]);
    b.expect("Waiting for challenges to answerer");
    let mut a = Session::start(&[
        "challenge",
        "answerer",
        "nimrod",
        "--server",
        &url,
        "--token",
        &ta,
        "--move-time",
        "5",
    ]);
    a.expect("Challenged answerer");
    let shown = b.expect("asker challenges you");
    assert!(
        shown.contains("nimrod") && shown.contains("per_move"),
        "{shown}"
    );
    b.expect("Accept?");
    b.send("too-fast");
    b.expect("Declined.");
    let status = a.wait_exit();
    // A "no" is exit status 1, as the docs say; 2 is for usage and
    // connection errors.
    assert_eq!(status.code(), Some(1), "{}", a.transcript);
    assert!(
        a.transcript
            .contains("answerer declined the challenge: the clock is too fast (too_fast)"),
        "{}",
        a.transcript
    );
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_seek_nobody_answers_is_played_against_the_servers_bot() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&[
        "seek",
        "nimrod",
        "--server",
        &url,
        "--bots-after",
        "1",
        "--options",
        SHORT,
        "--name",
        "lonely",
    ]);
    p.expect("Seeking a casual game of nimrod as lonely (guest)");
    let matched = p.expect("Matched: ");
    assert!(
        matched.contains("lonely") && matched.contains("bot:"),
        "{matched}"
    );
    play_out(&mut p);
    // Standard input is a pipe, not a terminal: no rematch is asked for.
    assert!(p.wait_exit().success(), "{}", p.transcript);
    assert!(!p.transcript.contains("Rematch?"), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn ctrl_c_while_seeking_cancels_the_seek_cleanly() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&["seek", "nimrod", "--server", &url]);
    p.expect("Ctrl-C cancels");
    p.interrupt();
    p.expect("Seek cancelled.");
    assert!(p.wait_exit().success(), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn with_rematch_the_next_match_starts_with_the_seats_moved_on() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&[
        "seek",
        "nimrod",
        "--server",
        &url,
        "--bots-after",
        "1",
        "--options",
        SHORT,
        "--rematch",
    ]);
    p.expect("Matched: ");
    let first = p.expect("You are seat ");
    play_out(&mut p);
    p.expect("Rematch offered");
    // The built-in bot always agrees.
    p.expect("The rematch starts in room ");
    let second = p.expect("You are seat ");
    let seat = |line: &str| line.split(' ').nth(3).unwrap().to_owned();
    assert_eq!(
        seat(&first) == "0",
        seat(&second) == "1",
        "seats move on by one:\n{}",
        p.transcript
    );
    play_out(&mut p);
    p.expect("Rematch offered");
    drop(p);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn games_lists_the_accounts_unfinished_rooms_as_a_table_and_as_json() {
    use parlor_games::Seat;
    use parlor_protocol::{ClientMsg, ServerMsg};
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let token = account_token(&rt, &url, "lister", false);
    // A room where the account sits at seat 0 against a bot: its turn.
    let mut c = rt
        .block_on(parlor_cli::Client::connect_as(&url, "x", Some(&token)))
        .unwrap();
    let room = rt
        .block_on(c.request(
            &ClientMsg::CreateRoom {
                game: parlor_games::GameKind::Nimrod,
                seats: None,
                options: Value::Null,
                clock: None,
                private: false,
            },
            |m| match m {
                ServerMsg::RoomCreated { room, .. } => Some(room),
                _ => None,
            },
        ))
        .unwrap();
    rt.block_on(c.request(
        &ClientMsg::Join {
            room: room.clone(),
            seat: Some(Seat(0)),
            client_seed: None,
        },
        |m| matches!(m, ServerMsg::Joined { .. }).then_some(()),
    ))
    .unwrap();
    rt.block_on(c.request(
        &ClientMsg::AddBot {
            room: room.clone(),
            seat: Some(Seat(1)),
            strategy: Some("optimal".into()),
        },
        |m| matches!(m, ServerMsg::BotAdded { .. }).then_some(()),
    ))
    .unwrap();
    let args = |extra: &[&str]| {
        let mut v = strings(&["games", "--server", &url, "--token", &token]);
        v.extend(strings(extra));
        v
    };
    let out = parlor(args(&["--json"])).join().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games: Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = games.as_array().unwrap();
    assert_eq!(games.len(), 1, "{games:?}");
    assert_eq!(games[0]["room"], json!(room.as_str()));
    assert_eq!(games[0]["game"], json!("nimrod"));
    assert_eq!(games[0]["seat"], json!(0));
    assert_eq!(games[0]["your_turn"], json!(true));
    assert_eq!(games[0]["players"][1], json!("bot:optimal"));
    let out = parlor(args(&[])).join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with(room.as_str()))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("bot:optimal") && line.contains("yours"),
        "{text}"
    );
    // The account takes its seat up again from a new connection, as the
    // listing says how.
    assert!(
        text.contains("parlor play GAME --room ROOM --seat SEAT"),
        "{text}"
    );
    drop(c);
    let mut p = Session::start(&[
        "play",
        "nimrod",
        "--room",
        room.as_str(),
        "--seat",
        "0",
        "--server",
        &url,
        "--token",
        &token,
    ]);
    p.expect("You are seat 0 in room");
    p.expect("Your move");
    p.send("quit");
    assert!(p.wait_exit().success(), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_logged_in_player_seeks_rated_as_the_account_and_meets_a_seeking_bot() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let config = tempfile::tempdir().unwrap();
    let env = [("XDG_CONFIG_HOME", config.path())];
    for cmd in ["register", "login"] {
        let mut p = Session::start_env(
            &[cmd, "rosalind", "--password-stdin", "--server", &url],
            &env,
        );
        p.send("correct horse battery");
        assert!(p.wait_exit().success(), "{}", p.transcript);
    }
    let bot_token = account_token(&rt, &url, "rated-bot", true);
    let bot = parlor(strings(&[
        "bot",
        "--server",
        &url,
        "--token",
        &bot_token,
        "--seek",
        "nimrod",
        "--rated",
        "--options",
        SHORT,
    ]));
    // No --server, no --token: the login's server and token.
    let mut p = Session::start_env(&["seek", "nimrod", "--rated", "--options", SHORT], &env);
    p.expect("Seeking a rated game of nimrod as rosalind.");
    let matched = p.expect("Matched: ");
    assert!(
        matched.contains("rosalind") && matched.contains("rated-bot"),
        "{matched}"
    );
    let result = play_out(&mut p);
    assert!(p.wait_exit().success(), "{}", p.transcript);
    let s = summary(&bot.join().unwrap());
    assert_eq!(s["games"], json!(1), "{s}");
    assert_eq!(s["wins"] == json!(1), result.contains("You lose."), "{s}");
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_challenge_accepted_with_yes_is_played_by_both_people() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let ta = account_token(&rt, &url, "first", false);
    let tb = account_token(&rt, &url, "second", false);
    let mut b = Session::start(&[
        "accept", "--server", &url, "--token", &tb, "--yes", "--from", "first",
    ]);
    b.expect("Waiting for challenges to second");
    let mut a = Session::start(&[
        "challenge",
        "second",
        "nimrod",
        "--server",
        &url,
        "--token",
        &ta,
        "--options",
        SHORT,
    ]);
    a.expect("Challenged second");
    b.expect("first challenges you to a casual game of nimrod");
    a.expect("second accepted.");
    // Each plays a rod a turn; whoever moves, the other waits for it.
    let (mut done_a, mut done_b) = (None, None);
    let since = Instant::now();
    while done_a.is_none() || done_b.is_none() {
        assert!(
            since.elapsed() < session::WAIT,
            "{}\n---\n{}",
            a.transcript,
            b.transcript
        );
        for (p, done) in [(&mut a, &mut done_a), (&mut b, &mut done_b)] {
            if done.is_some() {
                continue;
            }
            let Some(line) = p.line_within(Duration::from_millis(50)) else {
                continue;
            };
            if line.contains("Your move") {
                p.send("b 1");
            }
            if line.contains("You win!") || line.contains("You lose.") {
                *done = Some(line);
            }
        }
    }
    assert_ne!(done_a, done_b, "one wins, one loses");
    assert!(a.wait_exit().success(), "{}", a.transcript);
    assert!(b.wait_exit().success(), "{}", b.transcript);
    rt.block_on(server.stop()).unwrap();
}
