//! Aborting on request: a seated player may end a started match without
//! a result until their own first move (the opponent may have moved),
//! as a silent seat's clock does: `"closed": "aborted"` to everyone, not
//! rated (the ledger stays empty), and each rated abort counts toward the
//! aborting account's `rated/cooldown`. Refused with its code after the
//! player's own first move, to a spectator, once over, and in a
//! tournament's game.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_protocol::{Closed, ErrorCode, RoomId, RoomStatus, ServerMsg, Update};
use parlor_tests::http::{account_with_token, bearer, request};
use parlor_tests::rating::ledger;
use parlor_tests::seeking::{challenge_ended, challenge_made, seek_id, signed_in};
use parlor_tests::{start_server, Raw};
use serde_json::{json, Value};

fn abort(room: &RoomId) -> Value {
    json!({"type": "abort", "room": room})
}

/// The next update of `room` on `c` once the match is being played.
async fn playing(c: &mut Raw, room: &RoomId) -> Update {
    loop {
        let u = c.update(room).await;
        if u.status == RoomStatus::Playing {
            return u;
        }
    }
}

/// The update of `room` on `c` that closes it as aborted.
async fn aborted(c: &mut Raw, room: &RoomId) -> Update {
    loop {
        let u = c.update(room).await;
        if u.closed == Some(Closed::Aborted) {
            return u;
        }
        assert!(
            u.outcome.is_none(),
            "the match ended with an outcome: {u:?}"
        );
    }
}

/// A rated Nimrod match by challenge: `quitter` at seat 1, `keeper` at
/// seat 0 (to move first), a clock far longer than the test; the room
/// and each one's first update of the match being played.
async fn rated_match(quitter: &mut Raw, keeper: &mut Raw) -> (RoomId, Update, Update) {
    quitter
        .send_json(
            json!({"type": "challenge", "to": "keeper", "game": "nimrod",
                          "options": {"piles": [3, 5]}, "clock": {"per_move": {"ms": 60_000}},
                          "rated": true, "seat": 1}),
        )
        .await;
    let made = challenge_made(keeper).await;
    keeper
        .send_json(json!({"type": "accept", "challenge": made.challenge}))
        .await;
    let (_, _, _, room) = challenge_ended(quitter).await;
    let room = room.expect("a room");
    let k = playing(keeper, &room).await;
    let q = playing(quitter, &room).await;
    (room, k, q)
}

#[tokio::test]
async fn a_player_aborts_before_their_first_move_unrated_and_three_cool_rated_play_down() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_with_token(addr, "quitter").await;
    let mut quitter = signed_in(&url, &token).await;
    let (token, _) = account_with_token(addr, "keeper").await;
    let mut keeper = signed_in(&url, &token).await;

    for round in 0..3 {
        let (room, k, q) = rated_match(&mut quitter, &mut keeper).await;
        assert_eq!(k.you.map(|s| s.0), Some(0));
        assert!(k.may_abort && q.may_abort, "nobody has moved: {k:?} {q:?}");
        if round == 0 {
            // A spectator holds no seat to abort with.
            let mut watcher = Raw::greeted(&url, "watcher").await;
            watcher
                .send_json(json!({"type": "spectate", "room": room}))
                .await;
            let seen = watcher.update(&room).await;
            assert!(!seen.may_abort);
            watcher.send_json(abort(&room)).await;
            watcher.expect_error(ErrorCode::ActionNotYourSeat).await;
            // The keeper moves: it may abort no more, the quitter still may.
            let mv = k.legal.as_ref().and_then(|l| l.first()).cloned().unwrap();
            keeper.play(&room, 0, k.seq, mv).await;
            let k = keeper.update_at(&room, 1).await;
            let q = quitter.update_at(&room, 1).await;
            assert!(!k.may_abort, "{k:?}");
            assert!(q.may_abort, "{q:?}");
            keeper.send_json(abort(&room)).await;
            keeper.expect_error(ErrorCode::AbortTooLate).await;
        }
        quitter.send_json(abort(&room)).await;
        // Everyone is told: the match is over, aborted, with no outcome.
        for c in [&mut keeper, &mut quitter] {
            let u = aborted(c, &room).await;
            assert_eq!(u.status, RoomStatus::Finished);
            assert_eq!(u.outcome, None);
            assert!(!u.may_abort);
            assert!(u.rating_changes.is_none());
        }
        if round == 0 {
            quitter.send_json(abort(&room)).await;
            quitter.expect_error(ErrorCode::ActionGameOver).await;
            // The log says so too.
            let log = parlor_tests::match_log(&mut keeper, &room).await;
            assert_eq!(log.closed, Some(Closed::Aborted));
            assert_eq!(log.outcome, None);
        }
    }
    // Not rated: no ledger line.
    assert!(ledger(addr, Some("nimrod")).await.is_empty());
    // The aborts are recorded beside the closing: give them a moment.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // Three rated aborts in a day: the quitter's rated play cools down...
    quitter
        .send_json(json!({"type": "seek", "game": "nimrod", "rated": true}))
        .await;
    let refused = quitter.expect_error(ErrorCode::RatedCooldown).await;
    let ServerMsg::Error { detail, .. } = refused else {
        unreachable!()
    };
    assert!(detail.unwrap()["retry_after_ms"].as_u64().unwrap() > 3_000_000);
    // ...the keeper's, who aborted nothing, does not.
    seek_id(
        &mut keeper,
        json!({"type": "seek", "game": "nimrod", "rated": true}),
    )
    .await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_tournament_game_is_never_aborted() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (ann, _) = account_with_token(addr, "ab-ann").await;
    let (bob, _) = account_with_token(addr, "ab-bob").await;
    let made = request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(&ann)],
        Some(
            json!({"game": "nimrod", "format": "round-robin", "rounds": 1,
                    "options": {"piles": [3, 4]}, "clock": {"per_move": {"ms": 60_000}},
                    "starts_at_ms": parlor_server::clock::now_ms() + 2_000}),
        ),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let id = made.body["id"].as_str().unwrap().to_owned();
    let mut players = Vec::new();
    for token in [&ann, &bob] {
        let path = format!("/api/tournaments/{id}/join");
        let joined = request(addr, "POST", &path, &[bearer(token)], None).await;
        assert_eq!(joined.status, 200, "{joined:?}");
        players.push(signed_in(&url, token).await);
    }
    for c in &mut players {
        let seat = c
            .expect(|m| match m {
                ServerMsg::TournamentGame(t) => Some((**t).clone()),
                _ => None,
            })
            .await;
        let u = c.join(&seat.room, seat.seat.0).await;
        let u = if u.status == RoomStatus::Playing {
            u
        } else {
            playing(c, &seat.room).await
        };
        assert!(!u.may_abort, "{u:?}");
        c.send_json(abort(&seat.room)).await;
        c.expect_error(ErrorCode::AbortEventGame).await;
    }
    server.stop().await.unwrap();
}
