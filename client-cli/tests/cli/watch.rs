//! `parlor watch` and `parlor replay` through the binary.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::session;

use parlor_cli::Client;
use parlor_games::Seat;
use parlor_protocol::{ClientMsg, ServerMsg};
use parlor_server::{Config, Server};
use serde_json::{json, Value};
use session::Session;

#[test]
fn a_bots_match_is_watched_then_replayed_move_by_move() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap();
    let url = server.url();
    let mut c = rt.block_on(Client::connect(&url, "host")).unwrap();
    let room = rt
        .block_on(c.request(
            &ClientMsg::CreateRoom {
                game: "nimrod".parse().unwrap(),
                seats: None,
                options: json!({"piles": [20, 33]}),
                clock: None,
                private: false,
            },
            |m| match m {
                ServerMsg::RoomCreated { room, .. } => Some(room),
                _ => None,
            },
        ))
        .unwrap();

    let mut w = Session::start(&["watch", room.as_str(), "--server", &url]);
    w.expect("== nimrod");
    for (seat, strategy) in [(0, "random"), (1, "optimal")] {
        rt.block_on(c.request(
            &ClientMsg::AddBot {
                room: room.clone(),
                seat: Some(Seat(seat)),
                strategy: Some(strategy.into()),
            },
            |m| matches!(m, ServerMsg::BotAdded { .. }).then_some(()),
        ))
        .unwrap();
    }
    let won = w.expect(" won.");
    assert!(won.contains("optimal bot"), "{}", w.transcript);
    assert!(w.wait_exit().success(), "{}", w.transcript);
    assert!(w.transcript.contains("Pile A   20"), "{}", w.transcript);
    assert!(
        w.transcript.contains("Last move: random bot ")
            || w.transcript.contains("Last move: optimal bot "),
        "{}",
        w.transcript
    );

    let log = rt
        .block_on(c.request(
            &ClientMsg::GetLog {
                room: room.clone(),
                predict: false,
            },
            |m| match m {
                ServerMsg::Log(log) => Some(log),
                _ => None,
            },
        ))
        .unwrap();
    let mut r = Session::start(&["replay", room.as_str(), "--server", &url]);
    assert!(r.wait_exit().success(), "{}", r.transcript);
    let steps: Vec<&str> = r
        .transcript
        .lines()
        .filter(|l| l.starts_with("-- move "))
        .collect();
    assert_eq!(steps.len(), log.moves.len(), "{}", r.transcript);
    assert!(
        steps[0].starts_with("-- move 1: seat 0 took "),
        "{}",
        steps[0]
    );
    assert!(r.transcript.contains("seat 1 won."), "{}", r.transcript);

    let mut j = Session::start(&["replay", room.as_str(), "--server", &url, "--json"]);
    assert!(j.wait_exit().success());
    let lines: Vec<Value> = j
        .transcript
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(lines.len(), log.moves.len() + 2);
    assert_eq!(lines[0]["header"]["game"], json!("nimrod"));
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn rooms_lists_each_room_with_its_state_and_how_to_join_watch_or_replay() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap();
    let url = server.url();
    let mut c = rt.block_on(Client::connect(&url, "host")).unwrap();
    let room = rt
        .block_on(c.request(
            &ClientMsg::CreateRoom {
                game: "cribbage".parse().unwrap(),
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
    let mut r = Session::start(&["rooms", "--server", &url]);
    assert!(r.wait_exit().success(), "{}", r.transcript);
    let line = r
        .transcript
        .lines()
        .find(|l| l.starts_with(room.as_str()))
        .unwrap_or_else(|| panic!("{}", r.transcript));
    assert!(
        line.contains("cribbage") && line.contains("waiting"),
        "{line}"
    );
    assert!(line.contains("(free), (free)"), "{line}");
    assert!(
        r.transcript
            .contains(&format!("parlor watch ROOM --server {url}")),
        "{}",
        r.transcript
    );
    rt.block_on(server.stop()).unwrap();
}
