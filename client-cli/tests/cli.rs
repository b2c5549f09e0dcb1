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
    ] {
        let out = parlor(&args, stdin);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("parlor: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_person_plays_nimrod_to_the_end_and_is_re_prompted_on_a_bad_move() {
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap_or_else(|e| panic!("{e}"));
    // (1, 2) is a lose position: whatever the person does, the optimal bot
    // wins, so the game's length is known: one refused move, then a 1.
    let out = parlor(
        &[
            "play",
            "nimrod",
            "--server",
            &server.url(),
            "--options",
            r#"{"piles":[1,2]}"#,
        ],
        "both 5\nseven\na 1\n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Pile A    1"), "{text}");
    assert!(text.contains("Refused: pile A holds only 1 rods"), "{text}");
    assert!(text.contains("type e.g."), "{text}");
    assert!(
        text.contains("seat 1 (optimal bot) won. You lose."),
        "{text}"
    );
    rt.block_on(server.stop()).unwrap_or_else(|e| panic!("{e}"));
}
