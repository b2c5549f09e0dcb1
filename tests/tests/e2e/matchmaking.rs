//! Finding opponents end to end: seeks paired into rooms (casual, rated,
//! with bots), cancelled and dropped with their connection; challenges
//! accepted, declined and refused; rematches with seats rotated.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{ChallengeEnd, DeclineReason, ErrorCode, RoomStatus, SeekEnd, ServerMsg};
use parlor_server::limits::{SEEKS_PER_MINUTE, SEEK_BURST};
use parlor_tests::http::{account_with_token, request};
use parlor_tests::seeking::{
    by_seat, challenge_ended, challenge_made, matched, playing, seek_id, signed_in,
};
use parlor_tests::{match_log, play_out_nimrod, start_server, Raw, Received};
use serde_json::{json, Value};

fn seek(game: &str, rated: bool) -> Value {
    json!({"type": "seek", "game": game, "rated": rated})
}

#[tokio::test]
async fn two_guests_seeking_are_seated_together_play_and_rematch_with_seats_rotated() {
    let server = start_server(None).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let mut bo = Raw::greeted(&url, "bo").await;
    let a = seek_id(
        &mut al,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [3, 4]}}),
    )
    .await;
    let b = seek_id(
        &mut bo,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [3, 4]}}),
    )
    .await;
    let (room, sa, players, ua) = matched(&mut al, a).await;
    let (room_b, sb, players_b, ub) = matched(&mut bo, b).await;
    assert_eq!(room, room_b);
    assert_eq!(players, players_b);
    assert_eq!(players[usize::from(sa)], "al");
    assert_eq!(players[usize::from(sb)], "bo");
    let first = if sa == 0 { ua } else { ub };
    let mut seated = by_seat((al, sa), (bo, sb));
    let u = playing(&mut seated[0], &room, first).await;
    assert_eq!(u.seats.len(), 2);
    let end = play_out_nimrod(&mut seated, &room, u).await;
    assert!(end.outcome.is_some());

    // Rematch: the first offer is shown to both, the second starts it.
    seated[0]
        .send_json(json!({"type": "rematch", "room": room}))
        .await;
    let offered = seated[1]
        .expect(|m| match m {
            ServerMsg::RematchOffered { room: r, seats } if *r == room => Some(seats.clone()),
            _ => None,
        })
        .await;
    assert_eq!(offered.iter().map(|s| s.0).collect::<Vec<_>>(), vec![0]);
    seated[1]
        .send_json(json!({"type": "rematch", "room": room}))
        .await;
    let mut next_rooms = Vec::new();
    for (old_seat, c) in seated.iter_mut().enumerate() {
        let (next, seat) = c
            .expect(|m| match m {
                ServerMsg::RematchStarted {
                    room: r,
                    next,
                    seat,
                } if *r == room => Some((next.clone(), seat.0)),
                _ => None,
            })
            .await;
        assert_eq!(usize::from(seat), (old_seat + 1) % 2, "seats move one on");
        let u = c.update(&next).await;
        assert_eq!(u.you.map(|s| s.0), Some(seat));
        next_rooms.push(next);
    }
    assert_eq!(next_rooms[0], next_rooms[1]);
    assert_ne!(next_rooms[0], room);
    // A second rematch of the same room is refused.
    seated[0]
        .send_json(json!({"type": "rematch", "room": room}))
        .await;
    seated[0].expect_error(ErrorCode::RematchUnavailable).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_rematch_is_refused_before_the_end_and_to_spectators() {
    let server = start_server(None).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let mut bo = Raw::greeted(&url, "bo").await;
    let a = seek_id(&mut al, seek("nimrod", false)).await;
    seek_id(&mut bo, seek("nimrod", false)).await;
    let (room, ..) = matched(&mut al, a).await;
    al.send_json(json!({"type": "rematch", "room": room})).await;
    al.expect_error(ErrorCode::RematchUnavailable).await;
    let mut cy = Raw::greeted(&url, "cy").await;
    cy.send_json(json!({"type": "rematch", "room": room})).await;
    cy.expect_error(ErrorCode::RematchUnavailable).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn seeks_pair_only_like_with_like_and_end_with_their_connection() {
    let server = start_server(None).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let mut bo = Raw::greeted(&url, "bo").await;
    seek_id(
        &mut al,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [3, 4]}}),
    )
    .await;
    // Other options, another game: no pairing.
    let b1 = seek_id(
        &mut bo,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [5, 6]}}),
    )
    .await;
    let b2 = seek_id(&mut bo, seek("mitsudomoe", false)).await;
    // Al leaves: his seek goes with him, so a new seeker of his kind waits.
    al.close().await;
    let mut cy = Raw::greeted(&url, "cy").await;
    let c = seek_id(
        &mut cy,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [3, 4]}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    // Bo cancels one seek by id and the rest at once.
    bo.send_json(json!({"type": "cancel_seek", "seek": b1}))
        .await;
    let ended = bo
        .expect(|m| match m {
            ServerMsg::Matched { .. } => panic!("bo was matched"),
            ServerMsg::SeekEnded { seek, reason } => Some((*seek, *reason)),
            _ => None,
        })
        .await;
    assert_eq!(ended, (b1, SeekEnd::Cancelled));
    bo.send_json(json!({"type": "cancel_seek"})).await;
    let ended = bo
        .expect(|m| match m {
            ServerMsg::SeekEnded { seek, .. } => Some(*seek),
            _ => None,
        })
        .await;
    assert_eq!(ended, b2);
    bo.send_json(json!({"type": "cancel_seek", "seek": b2}))
        .await;
    bo.expect_error(ErrorCode::SeekNotFound).await;
    // Cy is still waiting, and pairs with the next like seek.
    let mut dee = Raw::greeted(&url, "dee").await;
    let d = seek_id(
        &mut dee,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [3, 4]}}),
    )
    .await;
    let (room_c, ..) = matched(&mut cy, c).await;
    let (room_d, ..) = matched(&mut dee, d).await;
    assert_eq!(room_c, room_d);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn bad_seeks_are_refused_with_their_codes() {
    let server = start_server(None).await;
    let url = server.url();
    let mut guest = Raw::greeted(&url, "guest").await;
    guest.send_json(seek("nimrod", true)).await;
    guest.expect_error(ErrorCode::AuthRequired).await;
    guest
        .send_json(json!({"type": "seek", "game": "nimrod", "clock": {"days_per_move": 2}}))
        .await;
    guest.expect_error(ErrorCode::AuthRequired).await;
    guest
        .send_json(json!({"type": "seek", "game": "nimrod", "seats": 7}))
        .await;
    guest.expect_error(ErrorCode::RoomBadOptions).await;
    guest
        .send_json(json!({"type": "seek", "game": "nimrod", "bots": true, "bots_after_ms": 10}))
        .await;
    guest.expect_error(ErrorCode::SeekInvalid).await;
    for _ in 0..4 {
        seek_id(&mut guest, seek("cribbage", false)).await;
    }
    guest.send_json(seek("cribbage", false)).await;
    guest.expect_error(ErrorCode::SeekTooMany).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_seek_with_bots_gets_a_bot_opponent_after_its_wait() {
    let server = start_server(None).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let a = seek_id(
        &mut al,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [2, 3]}, "bots": true, "bots_after_ms": 1000}),
    )
    .await;
    let (room, seat, players, u) = matched(&mut al, a).await;
    let bot = players[usize::from(1 - seat)].clone();
    assert!(bot.starts_with("bot:"), "{players:?}");
    let mut u = playing(&mut al, &room, u).await;
    // Al plays; the bot answers; the match ends.
    while u.outcome.is_none() {
        if u.to_act.contains(parlor_games::Seat(seat)) {
            al.play(&room, seat, u.seq, parlor_tests::nimrod_move(&u))
                .await;
        }
        u = al.update_at(&room, u.seq + 1).await;
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn rated_seeks_pair_accounts_into_a_rated_match_on_the_default_clock() {
    let server = start_server(None).await;
    let url = server.url();
    let (ta, _) = account_with_token(server.addr(), "alice").await;
    let (tb, _) = account_with_token(server.addr(), "bobby").await;
    let mut al = signed_in(&url, &ta).await;
    let mut bo = signed_in(&url, &tb).await;
    let a = seek_id(
        &mut al,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [2, 2]}, "rated": true}),
    )
    .await;
    let b = seek_id(
        &mut bo,
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [2, 2]}, "rated": true}),
    )
    .await;
    let (room, sa, players, ua) = matched(&mut al, a).await;
    let (_, sb, _, ub) = matched(&mut bo, b).await;
    let u = if sa == 0 { ua } else { ub };
    let mut names = players.clone();
    names.sort();
    assert_eq!(names, vec!["alice", "bobby"]);
    assert!(u.clocks.is_some(), "a rated match runs on a clock");
    let mut seated = by_seat((al, sa), (bo, sb));
    let u = playing(&mut seated[0], &room, u).await;
    let end = play_out_nimrod(&mut seated, &room, u).await;
    assert!(end.outcome.is_some());
    let log = match_log(&mut seated[0], &room).await;
    assert!(log.header.rated);
    assert_eq!(
        log.header.clock,
        Some(parlor_protocol::Clock::Increment {
            main_ms: 180_000,
            increment_ms: 2_000
        })
    );
    // Each player's page counts the match.
    let winners = match end.outcome {
        Some(parlor_games::Outcome::Win { winners }) => winners,
        other => panic!("{other:?}"),
    };
    for (name, seat) in [("alice", sa), ("bobby", sb)] {
        let page = request(
            server.addr(),
            "GET",
            &format!("/api/players/{name}"),
            &[],
            None,
        )
        .await;
        assert_eq!(page.status, 200);
        let nimrod = &page.body["games"]["nimrod"];
        let won = u64::from(winners.contains(parlor_games::Seat(seat)));
        assert_eq!(nimrod["played"], 1, "{}", page.body);
        assert_eq!(nimrod["won"], won, "{}", page.body);
        assert_eq!(nimrod["lost"], 1 - won, "{}", page.body);
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn challenges_are_accepted_declined_withdrawn_and_refused() {
    let server = start_server(None).await;
    let url = server.url();
    let (ta, _) = account_with_token(server.addr(), "alice").await;
    let (tb, _) = account_with_token(server.addr(), "Bobby").await;
    let (_tc, _) = account_with_token(server.addr(), "carol").await;
    let mut al = signed_in(&url, &ta).await;
    let mut bo = signed_in(&url, &tb).await;
    // A second connection of Bobby's sees the challenge too.
    let mut bo2 = signed_in(&url, &tb).await;

    al.send_json(json!({"type": "challenge", "to": "bobby", "game": "nimrod", "options": {"piles": [1, 2]}, "seat": 1}))
        .await;
    let mine = challenge_made(&mut al).await;
    let theirs = challenge_made(&mut bo).await;
    assert_eq!(mine, theirs);
    assert_eq!((mine.from.as_str(), mine.to.as_str()), ("alice", "Bobby"));
    assert_eq!(challenge_made(&mut bo2).await.challenge, mine.challenge);
    // So does one that signs in after it was made (another device).
    let mut bo3 = signed_in(&url, &tb).await;
    assert_eq!(challenge_made(&mut bo3).await, mine);
    // Only the challenged may answer.
    al.send_json(json!({"type": "accept", "challenge": mine.challenge}))
        .await;
    al.expect_error(ErrorCode::ChallengeNotFound).await;
    bo.send_json(json!({"type": "accept", "challenge": mine.challenge}))
        .await;
    let (id, end, _, room) = challenge_ended(&mut al).await;
    assert_eq!((id, end), (mine.challenge, ChallengeEnd::Accepted));
    let room = room.unwrap();
    let ua = al.update(&room).await;
    assert_eq!(ua.you.map(|s| s.0), Some(1), "the challenger chose seat 1");
    let ub = bo.update(&room).await;
    assert_eq!(ub.you.map(|s| s.0), Some(0));
    let (_, end2, _, _) = challenge_ended(&mut bo2).await;
    assert_eq!(end2, ChallengeEnd::Accepted);
    // Once answered it is shown to no connection signing in later.
    let mut bo4 = signed_in(&url, &tb).await;
    bo4.send_json(json!({"type": "ping", "id": 4})).await;
    match bo4.next().await {
        Received::Msg(ServerMsg::Pong { id: Some(4) }) => {}
        other => panic!("an answered challenge was shown again: {other:?}"),
    }

    // Declined, with a reason both sides see.
    al.send_json(json!({"type": "challenge", "to": "bobby", "game": "mitsudomoe"}))
        .await;
    let c2 = challenge_made(&mut al).await;
    bo.send_json(json!({"type": "decline", "challenge": c2.challenge, "reason": "later"}))
        .await;
    let got = challenge_ended(&mut al).await;
    assert_eq!(got.1, ChallengeEnd::Declined);
    assert_eq!(got.2, Some(DeclineReason::Later));

    // Withdrawn by the challenger.
    al.send_json(json!({"type": "challenge", "to": "bobby", "game": "nimrod"}))
        .await;
    let c3 = challenge_made(&mut al).await;
    al.send_json(json!({"type": "cancel_challenge", "challenge": c3.challenge}))
        .await;
    loop {
        let got = challenge_ended(&mut bo).await;
        if got.0 == c3.challenge {
            assert_eq!(got.1, ChallengeEnd::Cancelled);
            break;
        }
    }

    // Refusals.
    al.send_json(json!({"type": "challenge", "to": "carol", "game": "nimrod"}))
        .await;
    al.expect_error(ErrorCode::ChallengeOffline).await;
    al.send_json(json!({"type": "challenge", "to": "nobody-here", "game": "nimrod"}))
        .await;
    al.expect_error(ErrorCode::ChallengeUnknownPlayer).await;
    al.send_json(json!({"type": "challenge", "to": "ALICE", "game": "nimrod"}))
        .await;
    al.expect_error(ErrorCode::ChallengeSelf).await;
    al.send_json(json!({"type": "challenge", "to": "bobby", "game": "cribbage", "seat": 3}))
        .await;
    al.expect_error(ErrorCode::ChallengeInvalid).await;
    let mut guest = Raw::greeted(&url, "guest").await;
    guest
        .send_json(json!({"type": "challenge", "to": "bobby", "game": "nimrod"}))
        .await;
    guest.expect_error(ErrorCode::AuthRequired).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_challenge_whose_challenger_leaves_is_gone() {
    let server = start_server(None).await;
    let url = server.url();
    let (ta, _) = account_with_token(server.addr(), "alice").await;
    let (tb, _) = account_with_token(server.addr(), "bobby").await;
    let mut al = signed_in(&url, &ta).await;
    let mut bo = signed_in(&url, &tb).await;
    al.send_json(json!({"type": "challenge", "to": "bobby", "game": "nimrod"}))
        .await;
    let c = challenge_made(&mut bo).await;
    al.close().await;
    let got = challenge_ended(&mut bo).await;
    assert_eq!((got.0, got.1), (c.challenge, ChallengeEnd::Gone));
    bo.send_json(json!({"type": "accept", "challenge": c.challenge}))
        .await;
    bo.expect_error(ErrorCode::ChallengeNotFound).await;
    // Nothing else arrives for it.
    bo.send_json(json!({"type": "ping", "id": 5})).await;
    match bo.next().await {
        Received::Msg(ServerMsg::Pong { id: Some(5) }) => {}
        other => panic!("{other:?}"),
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn seeks_that_end_in_matches_are_free_and_a_churn_of_seeks_waits() {
    let server = start_server(None).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let mut bo = Raw::greeted(&url, "bo").await;
    let spec = json!({"type": "seek", "game": "nimrod", "options": {"piles": [2, 3]}});
    // More games than the burst, one after another, as two bots play them.
    for _ in 0..SEEK_BURST + 4 {
        let a = seek_id(&mut al, spec.clone()).await;
        let b = seek_id(&mut bo, spec.clone()).await;
        let (room, ..) = matched(&mut al, a).await;
        matched(&mut bo, b).await;
        al.send_json(json!({"type": "leave", "room": room})).await;
        while bo.update(&room).await.status != RoomStatus::Finished {}
    }
    // One who seeks and cancels has the burst (and what refills while it
    // is spent), then waits.
    let mut cy = Raw::greeted(&url, "cy").await;
    let alone = json!({"type": "seek", "game": "nimrod", "options": {"piles": [7, 9]}});
    let started = std::time::Instant::now();
    let mut made = 0u32;
    let message = loop {
        cy.send_json(alone.clone()).await;
        let s = cy
            .expect(|m| match m {
                ServerMsg::Seeking { seek, .. } => Some(Ok(*seek)),
                ServerMsg::Error {
                    code: ErrorCode::SeekTooFast,
                    message,
                    ..
                } => Some(Err(message.clone())),
                ServerMsg::Error { code, .. } => panic!("refused {code}"),
                _ => None,
            })
            .await;
        let s = match s {
            Ok(s) => s,
            Err(message) => break message,
        };
        made += 1;
        cy.send_json(json!({"type": "cancel_seek", "seek": s}))
            .await;
        cy.expect(|m| matches!(m, ServerMsg::SeekEnded { seek, .. } if *seek == s).then_some(()))
            .await;
    };
    let refilled = (started.elapsed().as_secs_f64() * f64::from(SEEKS_PER_MINUTE) / 60.0).ceil();
    assert!(made >= SEEK_BURST, "{made}");
    assert!(
        f64::from(made) <= f64::from(SEEK_BURST) + refilled,
        "{made}"
    );
    let wait: u64 = message
        .rsplit("seek again in ")
        .next()
        .and_then(|w| w.strip_suffix(" ms"))
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no wait in {message:?}"));
    let per_seek = 60_000 / u64::from(SEEKS_PER_MINUTE);
    assert!((1..=per_seek).contains(&wait), "{message}");
    // When the message says, it may seek again.
    tokio::time::sleep(Duration::from_millis(wait + 50)).await;
    seek_id(&mut cy, alone).await;
    server.stop().await.unwrap();
}
