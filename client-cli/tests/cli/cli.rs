//! The `parlor` binary as a user runs it.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

use parlor_server::{Config, Server};
use serde_json::{json, Value};

fn parlor(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run parlor: {e}"));
    child
        .stdin
        .take()
        .unwrap_or_else(|| panic!("no stdin"))
        .write_all(stdin.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

#[test]
fn mitsudomoe_analysis_answers_from_flags_or_stdin() {
    let out = parlor(&["mitsudomoe", "perft", "--depth", "2"], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        json_lines(&out),
        vec![json!({"depth": 2, "moves": 81, "positions": 81})]
    );
    let out = parlor(&["mitsudomoe", "perft"], r#"{"depth": 1}"#);
    assert_eq!(json_lines(&out)[0]["moves"], json!(9));
    let start = ".,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b";
    let out = parlor(
        &[
            "mitsudomoe",
            "best-move",
            "--position",
            start,
            "--time",
            "100",
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(json_lines(&out)[0].get("move").is_some());
}

#[test]
fn nimrod_analysis_answers_in_json_from_arguments_or_stdin() {
    let out = parlor(&["nimrod", "best-move", "5", "12"], "");
    assert!(out.status.success());
    let v = json_lines(&out);
    assert_eq!(v[0]["move"], json!({"take": [0, 9]}));
    assert_eq!(v[0]["to"], json!([3, 5]));

    let out = parlor(&["nimrod", "best-move"], r#"{"piles": [6, 4]}"#);
    assert_eq!(json_lines(&out)[0]["move"], json!({"take": [1, 1]}));

    let out = parlor(&["nimrod", "lose-positions", "4"], "");
    assert_eq!(
        json_lines(&out),
        vec![json!([[0, 0], [1, 2], [3, 5], [4, 7]])]
    );
}

#[test]
fn bad_analysis_input_is_explained_with_a_nonzero_exit() {
    for (args, stdin) in [
        (vec!["nimrod", "best-move", "5", "x"], ""),
        (vec!["nimrod", "best-move"], "{not json"),
        (vec!["nimrod", "best-move"], r#"{"piles": [-1, 3]}"#),
        (vec!["nimrod", "no-such-tool", "1"], ""),
        // A game the server does not host is not a command either.
        (vec!["chess", "best-move", "1"], ""),
        (vec!["mitsudomoe", "perft", "3"], ""),
        (vec!["mitsudomoe", "perft", "--depth", "x"], ""),
    ] {
        let out = parlor(&args, stdin);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("parlor: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The analysis examples of the README, exactly as written there: the
/// words go to the game, which reads its own flags.
#[test]
fn the_readme_analysis_examples_answer_as_documented() {
    let ok = |args: &[&str], stdin: &str| {
        let out = parlor(args, stdin);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_lines(&out)
    };
    let v = ok(&["nimrod", "best-move", "5", "9"], "");
    assert_eq!(v[0]["lose"], json!(false));
    assert_eq!(v[0]["move"], json!({"take": [0, 6]}));
    assert_eq!(v[0]["piles"], json!([5, 9]));
    assert_eq!(v[0]["to"], json!([3, 5]));
    assert_eq!(
        ok(&["nimrod", "lose-positions", "5"], ""),
        vec![json!([[0, 0], [1, 2], [3, 5], [4, 7], [6, 10]])]
    );
    let v = ok(&["nimrod", "best-move"], r#"{"piles":[4,6]}"#);
    assert_eq!(v[0]["move"], json!({"take": [1, 1]}));

    let v = ok(
        &["cribbage", "score", "5H", "5S", "5C", "JD", "--start", "5D"],
        "",
    );
    assert_eq!(v[0]["total"], json!(29));
    let cards = ["5H", "5S", "JD", "2C", "8H", "KS"];
    let discard = |extra: &[&str], stdin: &str| {
        let mut args = vec!["cribbage", "discard"];
        args.extend_from_slice(extra);
        ok(&args, stdin)
    };
    let plain = discard(&cards, "");
    assert!(plain[0].get("crib_expected").is_none(), "{}", plain[0]);
    let dealer = discard(&[&cards[..], &["--dealer"]].concat(), "");
    assert!(dealer[0]["crib_expected"].as_f64().is_some_and(|x| x > 0.0));
    // The same advice with the cards as JSON on stdin and the flag on the
    // command line.
    let stdin = json!({ "cards": cards }).to_string();
    assert_eq!(discard(&["--dealer"], &stdin), dealer);
    let pone = discard(&["--pone"], &stdin);
    assert!(pone[0]["crib_expected"].as_f64().is_some_and(|x| x < 0.0));
    assert_eq!(discard(&[], &stdin), plain);
    // `--start=C` and `--crib` anywhere among the cards, and `--crib` over
    // JSON on stdin: a crib of four hearts and a spade scores no flush.
    let crib = ok(
        &[
            "cribbage",
            "score",
            "--crib",
            "2H",
            "4H",
            "--start=KS",
            "6H",
            "8H",
        ],
        "",
    );
    assert_eq!(crib[0]["total"], json!(0));
    let hand = ok(
        &["cribbage", "score", "2H", "4H", "6H", "8H", "--start", "KS"],
        "",
    );
    assert_eq!(hand[0]["total"], json!(4));
    let stdin = json!({"hand": ["2H", "4H", "6H", "8H"], "start": "KS"}).to_string();
    assert_eq!(ok(&["cribbage", "score", "--crib"], &stdin), crib);

    let v = ok(
        &["rummikub", "check-table"],
        r#"[{"crow":[{"number":5,"color":"red"},{"number":5,"color":"blue"}]}]"#,
    );
    assert_eq!(v[0]["valid"], json!(false));
    // `analyze GAME` is the same front end for any game.
    let v = ok(&["analyze", "nimrod", "best-move", "5", "9"], "");
    assert_eq!(v[0]["move"], json!({"take": [0, 6]}));
}

#[test]
fn words_a_game_does_not_take_are_refused_with_the_reason() {
    for (args, says) in [
        (
            vec![
                "cribbage", "discard", "5H", "5S", "JD", "2C", "8H", "--dealer", "--pone",
            ],
            "exclude each other",
        ),
        (
            vec![
                "cribbage", "score", "5H", "5S", "5C", "JD", "--start", "5D", "--dealer",
            ],
            "--dealer",
        ),
        (vec!["cribbage", "score", "5H", "5S", "5C", "JD"], "--start"),
        (
            vec!["nimrod", "best-move", "5", "9", "--crib"],
            "takes no flags",
        ),
        (vec!["nimrod", "best-move", "-1", "3"], "not a whole number"),
        (vec!["rummikub", "predict", "5r"], "standard input"),
        (vec!["nimrod", "no-such-tool"], "best-move"),
    ] {
        let out = parlor(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("parlor: ") && err.contains(says),
            "{args:?}: {err}"
        );
    }
    // Flags over JSON that is not an object.
    let out = parlor(&["cribbage", "discard", "--dealer"], r#"["5H"]"#);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("JSON object"));
}

#[test]
fn help_lists_every_games_bots_from_the_games() {
    let out = parlor(&["play", "--help"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    for &g in parlor_games::GameKind::ALL {
        let listed = format!("{g}: {}", g.strategies().join(", "));
        assert!(text.contains(&listed), "{text}");
    }
}

fn block(n: i64, c: &str) -> Value {
    json!({"number": n, "color": c})
}

#[test]
fn rummikub_analysis_through_the_binary() {
    // The seed's third count_wins example: 0.4.
    let input = json!({
        "p1": [block(2, "red"), block(3, "red"), block(4, "red"), block(2, "blue"), block(2, "black")],
        "p2": [block(5, "red"), block(6, "red"), block(8, "blue"), block(8, "black")],
        "bag": [block(7, "red"), block(8, "red"), block(9, "red")],
    });
    let out = parlor(&["rummikub", "predict"], &input.to_string());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_lines(&out);
    assert_eq!(v[0]["outcomes"], json!(5));
    assert_eq!(v[0]["p1_wins"], json!(2));
    assert_eq!(v[0]["win_fraction"], json!(0.4));
    // The same deal's outcomes stream one per line: exactly 5.
    let out = parlor(&["rummikub", "outcomes"], &input.to_string());
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 5);
    assert!(lines
        .iter()
        .all(|l| l["p1"].as_array().is_some_and(|a| !a.is_empty())));
    // check-table: the seed's Table4 breaks the colour rule.
    let table =
        json!([{"nrow": [block(2, "blue"), block(3, "blue"), block(4, "blue"), block(5, "red")]}]);
    let out = parlor(&["rummikub", "check-table"], &table.to_string());
    let v = json_lines(&out);
    assert_eq!(v[0]["valid"], json!(false));
    assert_eq!(v[0]["problems"][0]["row"], json!(0));
}

#[test]
fn rummikub_bad_input_is_refused_with_a_message() {
    for stdin in [
        json!({"p1": [block(1, "green")], "p2": [], "bag": []}).to_string(),
        json!({"p1": [block(1, "red")], "p2": [block(1, "red")], "bag": []}).to_string(),
        "{\"p1\": [".to_owned(),
    ] {
        let out = parlor(&["rummikub", "predict"], &stdin);
        assert_eq!(out.status.code(), Some(2), "{stdin}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("parlor: ") && !err.contains("panicked"),
            "{err}"
        );
    }
}

#[test]
fn cribbage_analysis_through_the_binary() {
    let out = parlor(
        &["cribbage", "score", "5H", "5S", "5C", "JD", "--start", "5D"],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_lines(&out);
    assert_eq!(v[0]["total"], json!(29));
    let out = parlor(
        &["cribbage", "score"],
        r#"{"hand": ["6C", "7C", "8C", "9C"], "start": "8S"}"#,
    );
    assert_eq!(json_lines(&out)[0]["total"], json!(20));
    let out = parlor(
        &["cribbage", "discard", "5H", "5S", "JD", "2C", "8H", "KS"],
        "",
    );
    let v = json_lines(&out);
    assert_eq!(v[0]["keep"].as_array().map(Vec::len), Some(4));
    assert_eq!(v[0]["crib"].as_array().map(Vec::len), Some(2));
    assert!(v[0]["expected"].as_f64().is_some_and(|x| x > 0.0));
    let dealer = json_lines(&parlor(
        &[
            "cribbage", "discard", "5H", "5S", "JD", "2C", "8H", "KS", "--dealer",
        ],
        "",
    ));
    assert!(dealer[0]["crib_expected"].as_f64().is_some_and(|x| x > 0.0));
    for args in [
        vec!["cribbage", "score", "5H", "5H", "5C", "JD", "--start", "5D"],
        vec!["cribbage", "score", "5H", "5S", "5C", "--start", "5D"],
        vec![
            "cribbage", "score", "11H", "5S", "5C", "JD", "--start", "5D",
        ],
        vec!["cribbage", "score", "XH", "5S", "5C", "JD", "--start", "5D"],
        vec!["cribbage", "discard", "5H", "5S", "JD"],
    ] {
        let out = parlor(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("parlor: "));
    }
}

#[test]
fn replay_with_predictions_ends_on_the_real_result() {
    use parlor_cli::Client;
    use parlor_games::{Outcome, Seat};
    use parlor_protocol::{ClientMsg, ServerMsg};

    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap_or_else(|e| panic!("{e}"));
    let url = server.url();
    let (room, outcome, moves) = rt.block_on(async {
        let mut c = Client::connect(&url, "host")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let room = c
            .request(
                &ClientMsg::CreateRoom {
                    game: "rummikub".parse().unwrap_or_else(|e| panic!("{e}")),
                    seats: Some(2),
                    options: json!({"rack_size": 13}),
                    clock: None,
                    private: false,
                },
                |m| match m {
                    ServerMsg::RoomCreated { room, .. } => Some(room),
                    _ => None,
                },
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        c.send(&ClientMsg::Spectate { room: room.clone() })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        for (seat, strategy) in [(0, "greedy"), (1, "random")] {
            c.send(&ClientMsg::AddBot {
                room: room.clone(),
                seat: Some(Seat(seat)),
                strategy: Some(strategy.into()),
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        }
        loop {
            if let ServerMsg::Update(u) = c.recv().await.unwrap_or_else(|e| panic!("{e}")) {
                if let Some(o) = u.outcome {
                    break (room, o, u.seq);
                }
            }
        }
    });
    let out = parlor(
        &["replay", room.as_str(), "--server", &url, "--predict"],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out);
    assert_eq!(
        lines.len() as u64,
        moves + 1,
        "one line before the first move and one per move"
    );
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["ply"], json!(i));
        let f = l["win_fraction"].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&f), "{l}");
    }
    let last = &lines[lines.len() - 1];
    assert_eq!(
        last["outcomes"],
        json!(1),
        "the finished game has one outcome"
    );
    let p1_won = outcome
        == Outcome::Win {
            winners: parlor_games::SeatSet::single(Seat(0)),
        };
    assert_eq!(last["win_fraction"], json!(if p1_won { 1.0 } else { 0.0 }));
    rt.block_on(server.stop()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn verify_checks_a_finished_match_against_the_commitment_it_was_made_with() {
    use parlor_cli::Client;
    use parlor_games::{GameRng, Seat};
    use parlor_protocol::{ClientMsg, ServerMsg};

    const CLIENT_SEED: &str = "e2e-verify-seed";
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap_or_else(|e| panic!("{e}"));
    let url = server.url();
    let (room, commitment, outcome, log) = rt.block_on(async {
        let mut c = Client::connect(&url, "verifier")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let (room, commitment) = c
            .request(
                &ClientMsg::CreateRoom {
                    game: "rummikub".parse().unwrap_or_else(|e| panic!("{e}")),
                    seats: Some(2),
                    options: Value::Null,
                    clock: None,
                    private: false,
                },
                |m| match m {
                    ServerMsg::RoomCreated {
                        room, commitment, ..
                    } => Some((room, commitment)),
                    _ => None,
                },
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        c.request(
            &ClientMsg::AddBot {
                room: room.clone(),
                seat: Some(Seat(1)),
                strategy: Some("greedy".into()),
            },
            |m| matches!(m, ServerMsg::BotAdded { .. }).then_some(()),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        c.request(
            &ClientMsg::Join {
                room: room.clone(),
                seat: Some(Seat(0)),
                client_seed: Some(CLIENT_SEED.into()),
            },
            |m| matches!(m, ServerMsg::Joined { .. }).then_some(()),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let outcome = parlor_cli::bot::play(
            &mut c,
            &room,
            Seat(0),
            Some("random"),
            &mut GameRng::from_seed(5),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let log = c
            .request(
                &ClientMsg::GetLog {
                    room: room.clone(),
                    predict: false,
                },
                |m| match m {
                    ServerMsg::Log(log) => Some(log),
                    _ => None,
                },
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        (room, commitment, outcome, log)
    });

    let out = parlor(&["verify", room.as_str(), "--server", &url], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report["verified"], json!(true), "{report}");
    assert_eq!(report["fair_deal"], json!(true));
    assert_eq!(report["room"], json!(room.as_str()));
    assert_eq!(report["commitment"]["published"], json!(commitment));
    assert_eq!(report["commitment"]["computed"], json!(commitment));
    assert_eq!(report["commitment"]["matches"], json!(true));
    assert_eq!(
        report["deal_key"]["client_seeds"],
        json!([CLIENT_SEED, null])
    );
    assert_eq!(report["replay"]["logged_outcome"], json!(outcome));
    assert_eq!(report["replay"]["replayed_outcome"], json!(outcome));
    assert_eq!(report["replay"]["steps"], report["replay"]["accepted"]);
    assert!(report["failures"].as_array().is_some_and(Vec::is_empty));
    // The deal: two racks and the bag, together every block once.
    let racks: Vec<Value> = (0..2)
        .flat_map(|s| {
            report["deal"]["views"][s]["rack"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let bag = report["deal"]["undisclosed"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!racks.is_empty() && !bag.is_empty(), "{report}");
    assert_eq!(racks.len() + bag.len(), 52);
    assert!(bag.iter().all(|b| !racks.contains(b)));

    // The same log with another server seed revealed than committed to,
    // from a server that lies: exit 1, and stderr names the check.
    let mut forged = log;
    if let Some(deal) = forged.header.deal.as_mut() {
        deal.server_seed = "ab".repeat(32);
    }
    let liar = rt.block_on(serve_one_log(forged));
    let out = parlor(&["verify", room.as_str(), "--server", &liar], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the commitment check failed"), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report["verified"], json!(false));
    assert_eq!(report["commitment"]["published"], json!(commitment));
    assert_eq!(report["commitment"]["matches"], json!(false));
    assert_eq!(report["failures"][0]["check"], json!("commitment"));

    // A room that does not exist, and a server that does not answer: exit 2.
    let out = parlor(&["verify", "no-such-room", "--server", &url], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("parlor: "));
    rt.block_on(server.stop()).unwrap_or_else(|e| panic!("{e}"));
    let out = parlor(&["verify", room.as_str(), "--server", &url], "");
    assert_eq!(out.status.code(), Some(2));
}

/// A one-shot fake server: greets one client and answers its `get_log`
/// with `log`, whatever room it asks for. Returns its URL.
async fn serve_one_log(log: parlor_protocol::MatchLog) -> String {
    use futures_util::{SinkExt, StreamExt};
    use parlor_protocol::{decode_client, encode, ClientMsg, ServerMsg, PROTOCOL_VERSION};
    use tokio_tungstenite::tungstenite::Message;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap_or_else(|e| panic!("{e}"));
        let mut ws = tokio_tungstenite::accept_async(tcp)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        while let Some(Ok(Message::Text(t))) = ws.next().await {
            let reply = match decode_client(t.as_str()) {
                Ok(ClientMsg::Hello { .. }) => ServerMsg::Welcome {
                    version: PROTOCOL_VERSION,
                    session: uuid::Uuid::nil(),
                    token: uuid::Uuid::nil(),
                    games: parlor_games::GameKind::ALL.to_vec(),
                    account: None,
                },
                Ok(ClientMsg::GetLog { .. }) => ServerMsg::Log(log.clone()),
                other => panic!("unexpected {other:?}"),
            };
            let text = encode(&reply);
            if ws.send(Message::Text(text.into())).await.is_err() {
                break;
            }
        }
    });
    format!("ws://{addr}")
}

/// An analysis whose input would come from a terminal says how to give
/// it instead of waiting silently. `script` gives the command a terminal
/// (a pseudo-terminal) as its standard input; the test keeps that
/// terminal open and types nothing.
#[test]
fn analysis_on_a_terminal_without_input_prints_usage_instead_of_waiting() {
    use std::time::{Duration, Instant};
    /// Generous: the command answers at once when it works; it never
    /// answers when it waits for input.
    const WAIT: Duration = Duration::from_secs(60);
    let command = format!("{} nimrod best-move", env!("CARGO_BIN_EXE_parlor"));
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run script: {e}"));
    let since = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if since.elapsed() > WAIT {
            let _ = child.kill();
            panic!("parlor nimrod best-move still waits for input on a terminal");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(status.code(), Some(2), "{text}");
    assert!(text.contains("needs its input"), "{text}");
    assert!(text.contains("Usage: parlor nimrod best-move"), "{text}");
}

/// An analysis that runs for seconds shows a spinner on a terminal, and
/// nothing when its output is piped. Mitsudomoe's `best-move --time MS`
/// thinks for MS milliseconds, well past the second after which the
/// spinner appears.
#[test]
fn a_long_analysis_shows_progress_on_a_terminal_only() {
    let start = ".,.,.,bB,bB/.,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b";
    let command = format!(
        "{} mitsudomoe best-move --position '{start}' --time 4000",
        env!("CARGO_BIN_EXE_parlor")
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run script: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("mitsudomoe best-move: working"), "{text}");
    assert!(text.contains("\"move\""), "{text}");

    let out = parlor(
        &[
            "mitsudomoe",
            "best-move",
            "--position",
            start,
            "--time",
            "2000",
        ],
        "",
    );
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(json_lines(&out)[0].get("move").is_some());
}
