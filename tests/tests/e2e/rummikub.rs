//! Rummikub Lite end to end: hosted matches, cheating attempts, and what
//! each player's frames may contain.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use parlor_games::rummikub::{is_valid_table, View};
use parlor_games::{Outcome, Seat};
use parlor_protocol::{ClientMsg, ErrorCode, ServerMsg, Update};
use parlor_tests::{
    add_bot, blocks_in, create_room, deal_secrets, match_log, snapshot, start_server, Raw,
};
use serde_json::{json, Value};

fn view(u: &Update) -> View {
    serde_json::from_value(u.view.clone()).unwrap_or_else(|e| panic!("not a rummikub view: {e}"))
}

/// No block in a seat's frame is hidden from it: each is in its own rack,
/// on the table, or the block it just drew itself.
fn assert_no_leak(u: &Update, secrets: &[String]) {
    let me = u.you.unwrap_or_else(|| panic!("not a seat's update"));
    let v = view(u);
    let mut allowed: HashSet<String> = HashSet::new();
    let key = |b: &Value| b.to_string();
    for b in v.rack.iter().flatten() {
        allowed.insert(key(&json!(b)));
    }
    for row in &v.table {
        for b in row.blocks() {
            allowed.insert(key(&json!(b)));
        }
    }
    if let Some(last) = &v.last {
        if last.seat == me {
            if let Some(b) = last.drew {
                allowed.insert(key(&json!(b)));
            }
        } else {
            assert!(last.drew.is_none(), "another seat's draw shown: {last:?}");
        }
    }
    for b in blocks_in(&u.view).iter().chain(
        u.legal
            .iter()
            .flatten()
            .flat_map(blocks_in)
            .collect::<Vec<_>>()
            .iter(),
    ) {
        assert!(
            allowed.contains(&key(b)),
            "seat {} was sent hidden block {b}",
            me.0
        );
    }
    assert!(
        u.view["bag"].is_u64(),
        "the bag must be a count, not its contents"
    );
    let text = serde_json::to_string(u).unwrap_or_default();
    for secret in secrets {
        assert!(!text.contains(secret.as_str()), "the deal's secret leaked");
    }
}

#[tokio::test]
async fn two_bots_finish_a_hosted_match_and_the_log_replays_it() {
    let server = start_server(None).await;
    let url = server.url();
    for seats in [2u8, 3, 4] {
        let mut host = Raw::greeted(&url, "host").await;
        let room = create_room(&mut host, "rummikub", seats, json!({"rack_size": 7})).await;
        host.send(&ClientMsg::Spectate { room: room.clone() }).await;
        for (seat, strategy) in (0..seats).zip(["greedy", "random", "greedy", "random"]) {
            add_bot(&mut host, &room, seat, strategy).await;
        }
        let mut last = host.update(&room).await;
        while last.outcome.is_none() {
            last = host.update(&room).await;
            // The table the server shows is always a valid one.
            assert!(
                is_valid_table(&view(&last).table),
                "{:?}",
                view(&last).table
            );
            assert!(view(&last).rack.is_none(), "a spectator saw a rack");
        }
        let log = match_log(&mut host, &room).await;
        assert_eq!(log.moves.len() as u64, last.seq);
        let (game, _) =
            parlor_protocol::replay(&log.header, &log.moves).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(game.outcome(), last.outcome);
    }
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn cheating_attempts_are_refused_with_reasons_and_change_nothing() {
    let server = start_server(None).await;
    let url = server.url();
    // A start where seat 0 has something to play (13-block racks nearly
    // always do; a few rooms make it certain in practice).
    let mut found = None;
    for _ in 0..20 {
        let mut a = Raw::greeted(&url, "alice").await;
        let room = create_room(&mut a, "rummikub", 2, json!({"rack_size": 13})).await;
        a.join(&room, 0).await;
        let mut b = Raw::greeted(&url, "bob").await;
        let ub = b.join(&room, 1).await;
        let u = a.update_at(&room, 0).await;
        let playable = u.legal.iter().flatten().any(|m| m != &json!("draw"));
        if playable {
            found = Some((a, b, room, u, ub));
            break;
        }
    }
    let (mut a, mut b, room, start, start_b) =
        found.unwrap_or_else(|| panic!("no start with a play in 20 deals"));
    let before = snapshot(&url, &room).await;
    let rack: Vec<Value> = view(&start)
        .rack
        .unwrap_or_default()
        .iter()
        .map(|b| json!(b))
        .collect();
    let held = |n: i64, c: &str| rack.contains(&json!({"number": n, "color": c}));

    // 1. Blocks it does not hold.
    let colours = ["black", "blue", "red", "yellow"];
    let (n, free): (i64, Vec<&str>) = (1..=13)
        .map(|n| {
            (
                n,
                colours
                    .iter()
                    .copied()
                    .filter(|c| !held(n, c))
                    .collect::<Vec<_>>(),
            )
        })
        .find(|(_, free)| free.len() >= 3)
        .unwrap_or_else(|| panic!("every number held in two colours?"));
    let fake: Vec<Value> = free[..3]
        .iter()
        .map(|c| json!({"number": n, "color": c}))
        .collect();
    a.play(&room, 0, start.seq, json!({"playrow": {"crow": fake}}))
        .await;
    let reason = |m: ServerMsg| match m {
        ServerMsg::Error {
            detail, message, ..
        } => (detail.unwrap_or_default()["reason"].clone(), message),
        other => panic!("{other:?}"),
    };
    let (why, message) = reason(a.expect_error(ErrorCode::ActionIllegalMove).await);
    assert_eq!(why, json!("not_in_rack"), "{message}");

    // 2. Three held blocks that do not make a row.
    let n_held = rack.len();
    let broken = (0..n_held)
        .flat_map(|i| (i + 1..n_held).flat_map(move |j| (j + 1..n_held).map(move |k| [i, j, k])))
        .map(|ix| ix.map(|i| rack[i].clone()))
        .find(|bs| {
            let same_number = bs.iter().all(|b| b["number"] == bs[0]["number"]);
            let same_colour = bs.iter().all(|b| b["color"] == bs[0]["color"]);
            !same_number && !same_colour
        })
        .unwrap_or_else(|| panic!("no broken triple in {rack:?}"));
    a.play(&room, 0, start.seq, json!({"playrow": {"nrow": broken}}))
        .await;
    let (why, message) = reason(a.expect_error(ErrorCode::ActionIllegalMove).await);
    assert_eq!(why, json!("broken_row"), "{message}");
    assert!(!message.is_empty());

    // 3. Drawing while a play exists.
    a.play(&room, 0, start.seq, json!("draw")).await;
    let (why, message) = reason(a.expect_error(ErrorCode::ActionIllegalMove).await);
    assert_eq!(why, json!("must_play"), "{message}");

    // 4. Playing out of turn.
    b.play(&room, 1, start.seq, json!("draw")).await;
    b.expect_error(ErrorCode::ActionNotYourTurn).await;

    // Nothing changed.
    let after = snapshot(&url, &room).await;
    assert_eq!(after.seq, before.seq);
    assert_eq!(after.view, before.view);

    // The match then plays out, every frame checked for hidden blocks.
    let mut seen: [Vec<Update>; 2] = [vec![start.clone()], vec![start_b.clone()]];
    let mut players = [a, b];
    let mut latest = [start.clone(), start_b];
    let mut u = start;
    while u.outcome.is_none() {
        let seat = u
            .to_act
            .iter()
            .next()
            .unwrap_or_else(|| panic!("nobody to act"));
        let mine = &latest[seat.index()];
        let mv = mine
            .legal
            .as_ref()
            .and_then(|l| l.first().cloned())
            .unwrap_or_else(|| panic!("no legal move"));
        let seq = mine.seq;
        players[seat.index()].play(&room, seat.0, seq, mv).await;
        for (i, p) in players.iter_mut().enumerate() {
            latest[i] = p.read_to(&room, seq + 1, &mut seen[i]).await;
        }
        u = latest[0].clone();
        assert!(is_valid_table(&view(&u).table));
    }
    assert!(matches!(
        u.outcome,
        Some(Outcome::Win { .. } | Outcome::Draw)
    ));
    let secrets = deal_secrets(&match_log(&mut players[0], &room).await);
    let frames: usize = seen.iter().map(Vec::len).sum();
    for (i, updates) in seen.iter().enumerate() {
        for up in updates {
            assert_eq!(up.you, Some(Seat(i as u8)));
            assert_no_leak(up, &secrets);
        }
    }
    assert!(frames > 4);
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn a_finished_matchs_log_comes_with_predictions_on_request() {
    let server = start_server(None).await;
    let url = server.url();
    let mut host = Raw::greeted(&url, "host").await;
    let room = create_room(&mut host, "rummikub", 2, json!({"rack_size": 13})).await;
    host.send(&ClientMsg::Spectate { room: room.clone() }).await;
    add_bot(&mut host, &room, 0, "greedy").await;
    add_bot(&mut host, &room, 1, "random").await;
    let mut last = host.update(&room).await;
    while last.outcome.is_none() {
        last = host.update(&room).await;
    }
    host.send(&ClientMsg::GetLog {
        room: room.clone(),
        predict: true,
    })
    .await;
    let log = host
        .expect(|m| match m {
            ServerMsg::Log(l) => Some(l.clone()),
            _ => None,
        })
        .await;
    let lines = host
        .expect(|m| match m {
            ServerMsg::Analysis { tool, results, .. } if tool == "replay" => Some(results.clone()),
            ServerMsg::Error { .. } => panic!("{m:?}"),
            _ => None,
        })
        .await;
    assert_eq!(lines.len(), log.moves.len() + 1);
    let end = &lines[lines.len() - 1];
    assert_eq!(end["outcomes"], json!(1));
    let p1_won = last.outcome
        == Some(Outcome::Win {
            winners: parlor_games::SeatSet::single(Seat(0)),
        });
    assert_eq!(end["win_fraction"], json!(if p1_won { 1.0 } else { 0.0 }));
    // Nimrod logs have no Rummikub predictions.
    let mut n = Raw::greeted(&url, "n").await;
    let nroom = n.create("nimrod", json!({"piles": [1, 1]}), None).await;
    n.join(&nroom, 0).await;
    add_bot(&mut n, &nroom, 1, "optimal").await;
    n.play(&nroom, 0, 0, json!({"take": [1, 1]})).await;
    n.update_at(&nroom, 1).await;
    n.send(&ClientMsg::GetLog {
        room: nroom,
        predict: true,
    })
    .await;
    n.expect_error(ErrorCode::AnalysisUnknownTool).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn options_that_end_the_game_before_anyone_moves_are_refused() {
    let server = start_server(None).await;
    let mut c = Raw::greeted(&server.url(), "host").await;
    for (seats, rack) in [(4, 13), (2, 26)] {
        c.send_json(json!({"type": "create_room", "game": "rummikub", "seats": seats, "options": {"rack_size": rack}}))
            .await;
        let refusal = c.expect_error(ErrorCode::RoomBadOptions).await;
        assert!(format!("{refusal:?}").contains("bag"), "{refusal:?}");
    }
    // One block fewer each leaves a bag, and the room is made.
    create_room(&mut c, "rummikub", 4, json!({"rack_size": 12})).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn an_unsorted_row_is_stored_and_shown_in_the_form_the_table_shows() {
    let server = start_server(None).await;
    let url = server.url();
    // Play against a bot until seat 0 may lay a new row of one number
    // (a crow); lay it with its blocks reversed.
    for _ in 0..30 {
        let mut a = Raw::greeted(&url, "alice").await;
        let room = create_room(&mut a, "rummikub", 2, json!({"rack_size": 13})).await;
        a.join(&room, 0).await;
        add_bot(&mut a, &room, 1, "random").await;
        let mut u = a.update_at(&room, 0).await;
        while u.outcome.is_none() {
            if !u.to_act.contains(Seat(0)) {
                u = a.update_at(&room, u.seq + 1).await;
                continue;
            }
            let legal = u.legal.clone().unwrap_or_default();
            let row = legal.iter().find_map(|m| {
                let blocks = m["playrow"]["crow"].as_array()?;
                (blocks.len() >= 3).then(|| (m.clone(), blocks.clone()))
            });
            let Some((listed, blocks)) = row else {
                let mv = legal.first().cloned().unwrap_or_else(|| json!("draw"));
                a.play(&room, 0, u.seq, mv).await;
                u = a.update_at(&room, u.seq + 1).await;
                continue;
            };
            let mut reversed = blocks.clone();
            reversed.reverse();
            let sent = json!({"playrow": {"crow": reversed}});
            assert_ne!(sent, listed, "the listed row was already in another order");
            a.play(&room, 0, u.seq, sent).await;
            let after = a.update_at(&room, u.seq + 1).await;
            // The view's last move, and the log, hold the listed form.
            assert_eq!(after.view["last"]["move"], listed, "{}", after.view["last"]);
            a.send_json(json!({"type": "leave", "room": room})).await;
            let log = loop {
                a.send_json(json!({"type": "get_log", "room": room})).await;
                let got = a
                    .expect(|m| match m {
                        ServerMsg::Log(l) => Some(Some(l.clone())),
                        ServerMsg::Error { code, .. } if *code == ErrorCode::RoomNotFinished => {
                            Some(None)
                        }
                        _ => None,
                    })
                    .await;
                if let Some(l) = got {
                    break l;
                }
            };
            let stored = log
                .moves
                .iter()
                .find(|e| e.seq == u.seq)
                .unwrap_or_else(|| panic!("the move is not in the log"));
            assert_eq!(
                stored.action,
                parlor_protocol::LoggedAction::Move(listed.clone())
            );
            server.stop().await.unwrap_or_else(|e| panic!("{e}"));
            return;
        }
    }
    panic!("no row to lay in 30 games");
}
