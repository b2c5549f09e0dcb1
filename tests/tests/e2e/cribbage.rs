//! Cribbage end to end: hosted 2-, 3- and 4-player matches, refused plays,
//! and what each player's frames may contain.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use parlor_games::cribbage::{Phase, View};
use parlor_games::{Outcome, Seat};
use parlor_protocol::{ClientMsg, ErrorCode, ServerMsg, Update};
use parlor_tests::{add_bot, cards_in, create_room, deal_secrets, match_log, start_server, Raw};
use serde_json::{json, Value};

fn view(u: &Update) -> View {
    serde_json::from_value(u.view.clone()).unwrap_or_else(|e| panic!("not a cribbage view: {e}"))
}

fn pips(card: &Value) -> u8 {
    match &card["rank"] {
        Value::Number(n) => n.as_u64().unwrap_or(0) as u8,
        Value::String(s) if s == "ace" => 1,
        _ => 10,
    }
}

/// Every card in a seat's frame is one it may know: its own, laid, the
/// start card, shown in the show, or from the finished previous hand.
fn assert_no_leak(u: &Update, secrets: &[String]) {
    let v = view(u);
    let mut allowed: HashSet<String> = HashSet::new();
    let mut allow = |c: &Value| {
        allowed.insert(c.to_string());
    };
    v.hand
        .iter()
        .chain(&v.discarded)
        .for_each(|c| allow(&json!(c)));
    v.laid
        .iter()
        .chain(&v.series)
        .for_each(|l| allow(&json!(l.card)));
    v.start.iter().for_each(|c| allow(&json!(c)));
    v.shown
        .iter()
        .flat_map(|s| &s.cards)
        .for_each(|c| allow(&json!(c)));
    if let Some(prev) = &v.previous {
        cards_in(&json!(prev)).iter().for_each(&mut allow);
    }
    for c in cards_in(&u.view).iter().chain(
        &u.legal
            .iter()
            .flatten()
            .flat_map(cards_in)
            .collect::<Vec<_>>(),
    ) {
        assert!(
            allowed.contains(&c.to_string()),
            "seat {:?} was sent hidden card {c}",
            u.you
        );
    }
    let text = serde_json::to_string(u).unwrap_or_default();
    for secret in secrets {
        assert!(!text.contains(secret.as_str()), "the deal's secret leaked");
    }
}

#[tokio::test]
async fn bots_finish_hosted_games_for_two_three_and_four_players() {
    let server = start_server(None).await;
    let url = server.url();
    for (seats, target) in [(2u8, 61u16), (3, 61), (4, 121)] {
        let mut host = Raw::greeted(&url, "host").await;
        let room = create_room(&mut host, "cribbage", seats, json!({"target": target})).await;
        host.send(&ClientMsg::Spectate { room: room.clone() }).await;
        for (seat, strategy) in (0..seats).zip(["expert", "seed", "random", "seed"]) {
            add_bot(&mut host, &room, seat, strategy).await;
        }
        let mut last = host.update(&room).await;
        while last.outcome.is_none() {
            last = host.update(&room).await;
            let v = view(&last);
            assert!(
                v.hand.is_empty() && v.discarded.is_empty(),
                "a spectator saw a hand"
            );
        }
        let v = view(&last);
        let Some(Outcome::Win { winners }) = last.outcome else {
            panic!("{:?}", last.outcome)
        };
        let side = |s: Seat| {
            if v.partnerships {
                s.index() % 2
            } else {
                s.index()
            }
        };
        let win_side = side(winners.iter().next().unwrap_or_else(|| panic!("no winner")));
        assert!(v.scores[win_side] >= target, "{:?}", v.scores);
        assert!(v
            .scores
            .iter()
            .enumerate()
            .all(|(i, s)| i == win_side || *s < target));
        if seats == 4 {
            assert_eq!(winners.len(), 2, "partners win together");
        }
        let log = match_log(&mut host, &room).await;
        let (game, _) =
            parlor_protocol::replay(&log.header, &log.moves).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(game.outcome(), last.outcome);
    }
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

/// Matches played at most until some seat holds a card that would pass
/// 31 at its turn (nearly every match has one; the deal is random).
const MAX_MATCHES: usize = 10;

#[tokio::test]
async fn illegal_and_out_of_phase_plays_are_refused_and_nothing_leaks() {
    let server = start_server(None).await;
    let url = server.url();
    let mut over_31 = false;
    for _ in 0..MAX_MATCHES {
        one_checked_match(&url, &mut over_31).await;
        if over_31 {
            break;
        }
    }
    assert!(
        over_31,
        "in {MAX_MATCHES} matches no seat ever held a card that would pass 31"
    );
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

/// Plays one 2-player match by hand: refused discards and plays, every
/// frame checked for leaks; sets `over_31` once a play over 31 was tried
/// (and refused).
async fn one_checked_match(url: &str, over_31: &mut bool) {
    let mut a = Raw::greeted(url, "alice").await;
    let room = create_room(&mut a, "cribbage", 2, json!({"target": 61})).await;
    a.join(&room, 0).await;
    let mut b = Raw::greeted(url, "bob").await;
    let start_b = b.join(&room, 1).await;
    let start_a = a.update_at(&room, 0).await;
    assert_eq!(view(&start_a).phase, Phase::Discard);
    assert_eq!(start_a.to_act.len(), 2, "discarding is simultaneous");

    let reason = |m: ServerMsg| match m {
        ServerMsg::Error { detail, .. } => detail.unwrap_or_default()["reason"].clone(),
        other => panic!("{other:?}"),
    };
    let hand: Vec<Value> = view(&start_a).hand.iter().map(|c| json!(c)).collect();
    assert_eq!(hand.len(), 6);
    // The wrong number of cards, a card not held, a play while discarding.
    a.play(&room, 0, 0, json!({"discard": [hand[0]]})).await;
    assert_eq!(
        reason(a.expect_error(ErrorCode::ActionIllegalMove).await),
        json!("discard_count")
    );
    let not_held = view(&start_b).hand[0];
    a.play(&room, 0, 0, json!({"discard": [hand[0], not_held]}))
        .await;
    assert_eq!(
        reason(a.expect_error(ErrorCode::ActionIllegalMove).await),
        json!("not_held")
    );
    a.play(&room, 0, 0, json!({"play": hand[0]})).await;
    assert_eq!(
        reason(a.expect_error(ErrorCode::ActionIllegalMove).await),
        json!("not_playing")
    );

    let mut players = [a, b];
    let mut seen: [Vec<Update>; 2] = [vec![start_a.clone()], vec![start_b.clone()]];
    let mut latest = [start_a, start_b];
    let mut out_of_turn = false;
    let mut u = latest[0].clone();
    while u.outcome.is_none() {
        let seat = u
            .to_act
            .iter()
            .next()
            .unwrap_or_else(|| panic!("nobody to act"));
        let mine = latest[seat.index()].clone();
        let v = view(&mine);
        let seq = mine.seq;
        if v.phase == Phase::Play {
            if !out_of_turn {
                let other = 1 - seat.index();
                let card = view(&latest[other]).hand.first().map(|c| json!(c));
                if let Some(card) = card {
                    players[other]
                        .play(&room, other as u8, seq, json!({"play": card}))
                        .await;
                    players[other]
                        .expect_error(ErrorCode::ActionNotYourTurn)
                        .await;
                    out_of_turn = true;
                }
            }
            let too_big = v
                .hand
                .iter()
                .map(|c| json!(c))
                .find(|c| u16::from(v.count) + u16::from(pips(c)) > 31);
            if let (false, Some(card)) = (*over_31, too_big) {
                players[seat.index()]
                    .play(&room, seat.0, seq, json!({"play": card}))
                    .await;
                let why = reason(
                    players[seat.index()]
                        .expect_error(ErrorCode::ActionIllegalMove)
                        .await,
                );
                assert_eq!(why, json!("over_thirty_one"));
                *over_31 = true;
            }
        }
        // Push the count up: the legal move laying the highest card.
        let legal = mine
            .legal
            .clone()
            .unwrap_or_else(|| panic!("no legal list"));
        let mv = legal
            .iter()
            .max_by_key(|m| m.get("play").map_or(0, pips))
            .cloned()
            .unwrap_or_else(|| panic!("no legal move"));
        players[seat.index()].play(&room, seat.0, seq, mv).await;
        for (i, p) in players.iter_mut().enumerate() {
            latest[i] = p.read_to(&room, seq + 1, &mut seen[i]).await;
        }
        u = latest[0].clone();
    }
    assert!(out_of_turn, "never reached the play");
    let secrets = deal_secrets(&match_log(&mut players[0], &room).await);
    let mut frames = 0;
    for (i, updates) in seen.iter().enumerate() {
        for up in updates {
            assert_eq!(up.you, Some(Seat(i as u8)));
            assert_no_leak(up, &secrets);
            frames += 1;
        }
    }
    assert!(frames > 20);
}
