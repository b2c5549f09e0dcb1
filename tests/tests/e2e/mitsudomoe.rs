//! Mitsudomoe end to end: hosted matches between built-in bots, turns
//! refused with the rules' reasons, and every viewer seeing the same
//! view, over the real protocol on loopback.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use futures_util::{SinkExt, StreamExt};
use parlor_games::mitsudomoe::{Move, Position, View};
use parlor_games::{Outcome, Seat, SeatSet};
use parlor_protocol::{ClientMsg, ErrorCode, ServerMsg, Update};
use parlor_tests::{add_bot, create_room, match_log, start_server, Raw, PATIENCE};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

fn view(u: &Update) -> View {
    serde_json::from_value(u.view.clone()).unwrap_or_else(|e| panic!("not a mitsudomoe view: {e}"))
}

/// A near-finished position, White to move: White's balls crowd the top
/// left corner and every white ring carries one, so White's turns are
/// few; Black has D1 and E1 on goal and D2 beside E2, its last goal.
const ENDGAME: &str = "wW,wW,.,.,./wW,.,.,.,./.,.,.,.,./bB,bB,.,.,./bB,.,.,.,. w";

/// Turns a bots' match may last here: far more than `search` needs to
/// beat `random`, few enough that a match that shuffles (a debug build's
/// `search:20` sees little) ends within seconds, whatever the bots play.
const BOT_MATCH_TURNS: u64 = 100;

#[tokio::test]
async fn bots_finish_hosted_matches() {
    let server = start_server(None).await;
    let url = server.url();
    for (black, white) in [("search:20", "random"), ("greedy", "search:20")] {
        let mut host = Raw::greeted(&url, "host").await;
        let room = create_room(
            &mut host,
            "mitsudomoe",
            2,
            json!({"max_turns": BOT_MATCH_TURNS}),
        )
        .await;
        host.send(&ClientMsg::Spectate { room: room.clone() }).await;
        add_bot(&mut host, &room, 0, black).await;
        add_bot(&mut host, &room, 1, white).await;
        let mut last = host.update(&room).await;
        while last.outcome.is_none() {
            last = host.update(&room).await;
            assert!(last.legal.is_none(), "a spectator was sent legal moves");
            let v = view(&last);
            assert_eq!(
                v.position.parse::<Position>().map(|p| p.to_string()).ok(),
                Some(v.position.clone())
            );
        }
        let v = view(&last);
        let end = v.end.unwrap_or_else(|| panic!("finished without an end"));
        let expected = match end.winner {
            Some(c) => Outcome::Win {
                winners: SeatSet::single(c.seat()),
            },
            None => Outcome::Draw,
        };
        assert_eq!(last.outcome, Some(expected));
        if white == "random" {
            assert_eq!(
                end.winner.map(|c| c.seat()),
                Some(Seat(0)),
                "search lost to random: {v:?}"
            );
        }
        let log = match_log(&mut host, &room).await;
        let (game, _) =
            parlor_protocol::replay(&log.header, &log.moves).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(game.outcome(), last.outcome);
    }
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

/// Sends `mv` for `seat` at `seq` and returns the error, which must be
/// `code`, with its message and detail.
async fn refused(
    c: &mut Raw,
    room: &parlor_protocol::RoomId,
    seat: u8,
    seq: u64,
    mv: Value,
    code: ErrorCode,
) -> (String, Option<Value>) {
    c.play(room, seat, seq, mv).await;
    match c.expect_error(code).await {
        ServerMsg::Error {
            message, detail, ..
        } => (message, detail),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn illegal_turns_are_refused_with_the_rules_reasons() {
    let server = start_server(None).await;
    let url = server.url();
    let mut alice = Raw::greeted(&url, "alice").await;
    let mut bob = Raw::greeted(&url, "bob").await;
    let room = alice.create("mitsudomoe", Value::Null, None).await;
    alice.join(&room, 0).await;
    bob.join(&room, 1).await;
    let u = alice.update_at(&room, 0).await;
    assert_eq!(u.legal.as_ref().map(Vec::len), Some(9));
    let cases = [
        // The ball needs a black ring to land on: B3 has none.
        (
            json!({"ring": {"from": null, "to": "C3"}, "ball": {"from": "A4", "to": "B3"}}),
            json!({"reason": "not_on_your_ring", "square": "B3"}),
        ),
        // A ring cannot go onto a ball.
        (
            json!({"ring": {"to": "A5"}, "ball": {"from": "A4", "to": "A3"}}),
            json!({"reason": "ring_onto_ball", "square": "A5"}),
        ),
        // A vault jumps only consecutive balls.
        (
            json!({"ring": {"from": null, "to": "A2"}, "ball": {"from": "A4", "to": "A2"}}),
            json!({"reason": "vault_gap", "square": "A3"}),
        ),
        // Nothing was jumped, so nothing can be relocated.
        (
            json!({"ring": {"from": null, "to": "B4"}, "ball": {"from": "A4", "to": "B4"}, "relocate": [{"from": "D1", "to": "C1"}]}),
            json!({"reason": "not_jumped", "square": "D1"}),
        ),
        // White's ball is not Black's to move.
        (
            json!({"ring": {"from": null, "to": "C1"}, "ball": {"from": "D1", "to": "C1"}}),
            json!({"reason": "not_your_ball", "square": "D1"}),
        ),
    ];
    for (mv, detail) in cases {
        let (message, got) = refused(
            &mut alice,
            &room,
            0,
            0,
            mv.clone(),
            ErrorCode::ActionIllegalMove,
        )
        .await;
        assert_eq!(got, Some(detail), "{mv}");
        assert!(!message.is_empty());
    }
    let (message, _) = refused(
        &mut alice,
        &room,
        0,
        0,
        json!({"ring": {"to": "Z9"}, "ball": {"from": "A4", "to": "A3"}}),
        ErrorCode::ActionBadMove,
    )
    .await;
    assert!(message.contains("Z9"), "{message}");
    refused(
        &mut bob,
        &room,
        1,
        0,
        json!({"ring": {"to": "C1"}, "ball": {"from": "D1", "to": "C1"}}),
        ErrorCode::ActionNotYourTurn,
    )
    .await;
    // The position is untouched: a legal turn still answers seq 0.
    alice
        .play(
            &room,
            0,
            0,
            json!({"ring": {"to": "B4"}, "ball": {"from": "A5", "to": "B4"}}),
        )
        .await;
    let after = alice.update_at(&room, 1).await;
    assert_eq!(
        view(&after).last.map(|l| l.notation),
        Some("+B4 A5-B4".to_owned())
    );
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn spectators_and_players_see_the_same_view() {
    let server = start_server(None).await;
    let url = server.url();
    let mut alice = Raw::greeted(&url, "alice").await;
    let mut bob = Raw::greeted(&url, "bob").await;
    let mut carol = Raw::greeted(&url, "carol").await;
    let room = alice
        .create("mitsudomoe", json!({"position": ENDGAME}), None)
        .await;
    carol
        .send(&ClientMsg::Spectate { room: room.clone() })
        .await;
    alice.join(&room, 0).await;
    // Bob's seat starts the match: his first update is the first position.
    let mut first = Some(bob.join(&room, 1).await);
    let mut players = [alice, bob];
    let mut seen = Vec::new();
    let mut seq = 0;
    loop {
        let a = players[0].read_to(&room, seq, &mut seen).await;
        let b = match first.take() {
            Some(u) => u,
            None => players[1].read_to(&room, seq, &mut seen).await,
        };
        let c = carol.read_to(&room, seq, &mut seen).await;
        assert_eq!((a.seq, b.seq, c.seq), (seq, seq, seq));
        assert_eq!(a.view, c.view);
        assert_eq!(b.view, c.view);
        assert!(c.legal.is_none());
        if c.outcome.is_some() {
            assert_eq!(
                c.outcome,
                Some(Outcome::Win {
                    winners: SeatSet::single(Seat(0))
                })
            );
            break;
        }
        let to_act = c.to_act.iter().next().unwrap();
        let (mover, other) = if to_act == Seat(0) {
            (&a, &b)
        } else {
            (&b, &a)
        };
        assert!(
            other.legal.is_none(),
            "only the seat to act gets legal moves"
        );
        let legal = mover
            .legal
            .clone()
            .unwrap_or_else(|| panic!("no legal list"));
        // Black wins at once when it can; White plays its first turn.
        let pick = legal
            .iter()
            .find(|m| m["ball"] == json!({"from": "D2", "to": "E2"}))
            .unwrap_or(&legal[0])
            .clone();
        serde_json::from_value::<Move>(pick.clone()).unwrap_or_else(|e| panic!("{e}"));
        players[to_act.index()]
            .play(&room, to_act.0, seq, pick)
            .await;
        seq += 1;
    }
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn options_are_checked_and_search_budgets_are_bounded() {
    let server = start_server(None).await;
    let url = server.url();
    let mut c = Raw::greeted(&url, "c").await;
    c.send_json(
        json!({"type": "create_room", "game": "mitsudomoe", "options": {"position": "nonsense"}}),
    )
    .await;
    let ServerMsg::Error { message, .. } = c.expect_error(ErrorCode::RoomBadOptions).await else {
        unreachable!()
    };
    assert!(message.contains("position"), "{message}");
    c.send_json(json!({"type": "create_room", "game": "mitsudomoe", "seats": 3}))
        .await;
    c.expect_error(ErrorCode::RoomBadOptions).await;
    // Parlor's turn limit: a whole number from 20 to 2000.
    for bad in [
        json!(19),
        json!(2_001),
        json!("300"),
        json!(-1),
        json!(12.5),
    ] {
        c.send_json(
            json!({"type": "create_room", "game": "mitsudomoe", "options": {"max_turns": bad}}),
        )
        .await;
        let ServerMsg::Error { message, .. } = c.expect_error(ErrorCode::RoomBadOptions).await
        else {
            unreachable!()
        };
        assert!(
            message.contains("max_turns must be a whole number from 20 to 2000"),
            "{bad}: {message}"
        );
    }
    let room = c.create("mitsudomoe", Value::Null, None).await;
    c.send(&ClientMsg::AddBot {
        room: room.clone(),
        seat: Some(Seat(1)),
        strategy: Some("search:999999".into()),
    })
    .await;
    c.expect_error(ErrorCode::RoomUnknownStrategy).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

/// Prints a short game between two raw clients, frame by frame as sent
/// and received, for docs/protocol/mitsudomoe.md:
/// `cargo test -p parlor-tests --test e2e -- --ignored --nocapture mitsudomoe::capture_an_example_game`
#[tokio::test]
#[ignore]
async fn capture_an_example_game() {
    type Ws = tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >;
    async fn send(who: &str, ws: &mut Ws, text: String) {
        println!("{who} → {text}");
        ws.send(Message::Text(text.into())).await.unwrap();
    }
    async fn recv(who: &str, ws: &mut Ws) -> Value {
        loop {
            match tokio::time::timeout(PATIENCE, ws.next()).await.unwrap() {
                Some(Ok(Message::Text(t))) => {
                    println!("{who} ← {}", t.as_str());
                    return serde_json::from_str(t.as_str()).unwrap();
                }
                Some(Ok(_)) => {}
                other => panic!("{other:?}"),
            }
        }
    }
    let server = start_server(None).await;
    let url = server.url();
    let (mut alice, _) = tokio_tungstenite::connect_async(url.as_str())
        .await
        .unwrap();
    let (mut bob, _) = tokio_tungstenite::connect_async(url.as_str())
        .await
        .unwrap();
    let hello = |name: &str| format!(r#"{{"type":"hello","version":1,"name":"{name}"}}"#);
    send("alice", &mut alice, hello("alice")).await;
    recv("alice", &mut alice).await;
    send("bob", &mut bob, hello("bob")).await;
    recv("bob", &mut bob).await;
    send(
        "alice",
        &mut alice,
        format!(
            r#"{{"type":"create_room","game":"mitsudomoe","options":{{"position":"{ENDGAME}"}}}}"#
        ),
    )
    .await;
    let room = recv("alice", &mut alice).await["room"]
        .as_str()
        .unwrap()
        .to_owned();
    send(
        "alice",
        &mut alice,
        format!(r#"{{"type":"join","room":"{room}","seat":0}}"#),
    )
    .await;
    recv("alice", &mut alice).await;
    recv("alice", &mut alice).await;
    send(
        "bob",
        &mut bob,
        format!(r#"{{"type":"join","room":"{room}","seat":1}}"#),
    )
    .await;
    recv("bob", &mut bob).await;
    recv("bob", &mut bob).await;
    recv("alice", &mut alice).await;
    let play = |seat: u8, seq: u64, mv: &str| {
        format!(r#"{{"type":"play","room":"{room}","seat":{seat},"seq":{seq},"move":{mv}}}"#)
    };
    // Bob forgets that the ball needs a ring of his to land on.
    send(
        "bob",
        &mut bob,
        play(
            1,
            0,
            r#"{"ring":{"from":null,"to":"A3"},"ball":{"from":"A2","to":"B3"}}"#,
        ),
    )
    .await;
    recv("bob", &mut bob).await;
    send(
        "bob",
        &mut bob,
        play(
            1,
            0,
            r#"{"ring":{"from":null,"to":"A3"},"ball":{"from":"A2","to":"A3"},"relocate":[]}"#,
        ),
    )
    .await;
    recv("bob", &mut bob).await;
    recv("alice", &mut alice).await;
    send(
        "alice",
        &mut alice,
        play(
            0,
            1,
            r#"{"ring":{"from":null,"to":"E2"},"ball":{"from":"D2","to":"E2"},"relocate":[]}"#,
        ),
    )
    .await;
    recv("alice", &mut alice).await;
    recv("bob", &mut bob).await;
    send(
        "bob",
        &mut bob,
        format!(r#"{{"type":"get_log","room":"{room}"}}"#),
    )
    .await;
    recv("bob", &mut bob).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

/// Someone who starts watching while bots are in the middle of a match
/// sees each move as it is played, not only the end (the room handles
/// the commands that came in between two bot moves). The match is kept
/// short by the room's turn limit, so the test takes a few seconds
/// whatever the bots play: `search:20` thinks 20 ms a turn, leaving the
/// room idle between moves, which is what lets commands in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_joining_a_bots_match_midway_sees_it_progress() {
    const MAX_TURNS: u64 = 20;
    let server = start_server(None).await;
    let mut host = Raw::greeted(&server.url(), "host").await;
    let room = create_room(
        &mut host,
        "mitsudomoe",
        2,
        serde_json::json!({"max_turns": MAX_TURNS}),
    )
    .await;
    host.send(&ClientMsg::Spectate { room: room.clone() }).await;
    let mut watcher = Raw::greeted(&server.url(), "watcher").await;
    add_bot(&mut host, &room, 0, "search:20").await;
    add_bot(&mut host, &room, 1, "search:20").await;
    // Midway: the host, watching from the start, has seen two turns.
    host.update_at(&room, 2).await;
    watcher
        .send_json(serde_json::json!({"type": "spectate", "room": room}))
        .await;
    let mut seqs = Vec::new();
    let last = loop {
        let u = watcher.update(&room).await;
        seqs.push(u.seq);
        if u.outcome.is_some() {
            break u;
        }
    };
    assert!(seqs[0] >= 2, "joined before the match began: {seqs:?}");
    assert!(
        seqs.len() >= 3,
        "the spectator saw only {seqs:?} of a match of {} moves",
        seqs.last().copied().unwrap_or(0)
    );
    assert!(seqs.windows(2).all(|w| w[0] <= w[1]), "{seqs:?}");
    assert!(last.seq <= MAX_TURNS, "{seqs:?}");
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

/// Plays `players` through `room` (seat 0 first, the standard start)
/// with turns that reach positions not seen before and end nothing, as
/// far as the match goes; returns the last update.
async fn play_fresh_turns(players: &mut [Raw; 2], room: &parlor_protocol::RoomId) -> Update {
    let mut seen = std::collections::HashSet::new();
    let mut seq = 0;
    loop {
        let seat = (seq % 2) as usize;
        let u = players[seat].update_at(room, seq).await;
        if u.outcome.is_some() {
            return u;
        }
        let pos: Position = view(&u).position.parse().unwrap();
        seen.insert(pos);
        let legal = u.legal.clone().unwrap_or_else(|| panic!("no legal list"));
        let pick = legal
            .into_iter()
            .find(|m| {
                let mv: Move = serde_json::from_value(m.clone()).unwrap();
                let next = parlor_games::mitsudomoe::play(&pos, &mv).unwrap().position;
                !seen.contains(&next) && next.end_after_turn().is_none()
            })
            .unwrap_or_else(|| panic!("no fresh turn at {pos}"));
        players[seat].play(room, seat as u8, seq, pick).await;
        seq += 1;
    }
}

#[tokio::test]
async fn the_turn_limit_ends_a_hosted_match_drawn() {
    let server = start_server(None).await;
    let url = server.url();
    let mut alice = Raw::greeted(&url, "alice").await;
    let mut bob = Raw::greeted(&url, "bob").await;
    let room = alice
        .create("mitsudomoe", json!({"max_turns": 20}), None)
        .await;
    alice.join(&room, 0).await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    let last = play_fresh_turns(&mut players, &room).await;
    assert_eq!(last.seq, 20);
    assert_eq!(last.outcome, Some(Outcome::Draw));
    let v = view(&last);
    assert_eq!((v.turns, v.max_turns), (20, Some(20)));
    assert_eq!(
        serde_json::to_value(v.end).unwrap(),
        json!({"winner": null, "reason": "turn_limit"})
    );
    let log = match_log(&mut players[1], &room).await;
    assert_eq!(log.header.options, json!({"max_turns": 20}));
    let (game, _) =
        parlor_protocol::replay(&log.header, &log.moves).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(game.outcome(), Some(Outcome::Draw));
    // `parlor verify` reaches the same end from the log alone.
    let report = parlor_cli::verify::match_log::verify(&log);
    assert!(report.verified, "{:?}", report.failures);
    assert_eq!(report.replay.replayed_outcome, Some(Outcome::Draw));
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn a_third_occurrence_ends_a_hosted_match_drawn() {
    let server = start_server(None).await;
    let url = server.url();
    // By hand: each side walks a ball round a triangle of rings; the
    // start comes back after six turns, and the third time draws.
    let shuffle = ".,.,bB,.,./w,wW,.,.,./.,.,bB,b,bB/.,.,.,.,./.,.,.,wW,wW b";
    let lap = [
        json!({"ring": {"from": "C4", "to": "D3"}, "ball": {"from": "C3", "to": "D3"}}),
        json!({"ring": {"from": "B1", "to": "A2"}, "ball": {"from": "B2", "to": "A2"}}),
        json!({"ring": {"from": "C3", "to": "C4"}, "ball": {"from": "D3", "to": "C4"}}),
        json!({"ring": {"from": "B2", "to": "B1"}, "ball": {"from": "A2", "to": "B1"}}),
        json!({"ring": {"from": "D3", "to": "C3"}, "ball": {"from": "C4", "to": "C3"}}),
        json!({"ring": {"from": "A2", "to": "B2"}, "ball": {"from": "B1", "to": "B2"}}),
    ];
    let mut alice = Raw::greeted(&url, "alice").await;
    let mut bob = Raw::greeted(&url, "bob").await;
    let room = alice
        .create("mitsudomoe", json!({"position": shuffle}), None)
        .await;
    alice.join(&room, 0).await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    for (seq, mv) in lap.iter().chain(lap.iter()).enumerate() {
        let seat = seq % 2;
        let seq = seq as u64;
        let u = players[seat].update_at(&room, seq).await;
        if seq == 6 {
            // Back at the start: one occurrence short of a draw.
            assert_eq!(view(&u).repeated, vec![shuffle.to_owned()]);
        }
        players[seat].play(&room, seat as u8, seq, mv.clone()).await;
    }
    let done = players[0].update_at(&room, 12).await;
    assert_eq!(done.outcome, Some(Outcome::Draw));
    assert_eq!(
        serde_json::to_value(view(&done).end).unwrap(),
        json!({"winner": null, "reason": "repetition"})
    );
    let log = match_log(&mut players[1], &room).await;
    let (game, _) =
        parlor_protocol::replay(&log.header, &log.moves).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(game.outcome(), Some(Outcome::Draw));
    let report = parlor_cli::verify::match_log::verify(&log);
    assert!(report.verified, "{:?}", report.failures);
    assert_eq!(report.replay.replayed_outcome, Some(Outcome::Draw));
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}
