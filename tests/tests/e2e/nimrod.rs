//! Nimrod end to end: a real server, real WebSocket clients.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_cli::{bot, Client};
use parlor_games::{GameRng, Outcome, Seat, SeatSet};
use parlor_protocol::{ClientMsg, ErrorCode, RoomStatus, ServerMsg};
use parlor_tests::{
    match_log, nimrod_move, nimrod_pair, nimrod_piles, play_out_nimrod, start_server, Raw,
    Received, TestStore,
};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn two_bots_finish_and_a_spectator_sees_every_move_and_cannot_play() {
    let server = start_server(None).await;
    let url = server.url();
    let mut host = Raw::greeted(&url, "host").await;
    let room = host
        .create("nimrod", json!({"piles": [21, 34]}), None)
        .await;

    let mut watcher = Raw::greeted(&url, "watcher").await;
    watcher
        .send(&ClientMsg::Spectate { room: room.clone() })
        .await;
    let first = watcher.update(&room).await;
    assert_eq!(first.status, RoomStatus::Waiting);
    assert_eq!(first.you, None);

    let mut bots = Vec::new();
    for (seat, strategy) in [(0u8, "optimal"), (1u8, "random")] {
        let url = url.clone();
        let room = room.clone();
        bots.push(tokio::spawn(async move {
            let mut c = Client::connect(&url, strategy)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            c.request(
                &ClientMsg::Join {
                    room: room.clone(),
                    seat: Some(Seat(seat)),
                    client_seed: None,
                },
                |m| matches!(m, ServerMsg::Joined { .. }).then_some(()),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
            let mut rng = GameRng::from_seed(u64::from(seat) + 7);
            bot::play(&mut c, &room, Seat(seat), Some(strategy), &mut rng)
                .await
                .unwrap_or_else(|e| panic!("bot failed: {e}"))
        }));
    }

    // The spectator sees every position, in order, with no gaps.
    let mut seqs = vec![first.seq];
    let mut tried_to_play = false;
    let last = loop {
        let u = watcher.update(&room).await;
        if u.status == RoomStatus::Playing && !tried_to_play {
            tried_to_play = true;
            watcher.play(&room, 0, u.seq, json!({"take": [0, 1]})).await;
        }
        if seqs.last() != Some(&u.seq) {
            seqs.push(u.seq);
        }
        if u.outcome.is_some() {
            break u;
        }
    };
    assert!(tried_to_play);
    assert_eq!(
        seqs,
        (0..=last.seq).collect::<Vec<_>>(),
        "the spectator missed a move"
    );
    assert!(nimrod_piles(&last).is_empty());

    let mut outcomes = Vec::new();
    for b in bots {
        outcomes.push(b.await.unwrap_or_else(|e| panic!("{e}")));
    }
    let seen = last.outcome.unwrap_or_else(|| panic!("no outcome"));
    assert!(outcomes.iter().all(|o| *o == seen));
    // 21/34 is not a lose position, so perfect play as first mover wins.
    assert_eq!(
        seen,
        Outcome::Win {
            winners: SeatSet::single(Seat(0))
        }
    );

    // The spectator's attempt to play was refused (the error arrived among
    // the updates it skipped): ask the room's log to check nothing of it
    // was recorded.
    let log = match_log(&mut host, &room).await;
    assert_eq!(log.moves.len() as u64, last.seq);
    assert_eq!(log.outcome, Some(seen));
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn a_spectator_cannot_move_for_a_seat() {
    let server = start_server(None).await;
    let url = server.url();
    let (_a, _b, room, u) = nimrod_pair(&url, [3, 4]).await;
    let mut watcher = Raw::greeted(&url, "watcher").await;
    watcher
        .send(&ClientMsg::Spectate { room: room.clone() })
        .await;
    watcher.update(&room).await;
    watcher.play(&room, 0, u.seq, json!({"take": [1, 0]})).await;
    watcher.expect_error(ErrorCode::ActionNotYourSeat).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn every_bad_request_gets_its_code_and_the_game_still_finishes() {
    let server = start_server(None).await;
    let url = server.url();
    let (mut a, mut b, room, start) = nimrod_pair(&url, [10, 15]).await;
    assert_eq!(start.status, RoomStatus::Playing);
    assert_eq!(start.to_act, SeatSet::single(Seat(0)));
    let piles = nimrod_piles(&start);

    // An illegal move, with the game's reason.
    a.play(&room, 0, start.seq, json!({"take": [3, 4]})).await;
    match a.expect_error(ErrorCode::ActionIllegalMove).await {
        ServerMsg::Error {
            detail, message, ..
        } => {
            assert_eq!(
                detail.and_then(|d| d.get("reason").cloned()),
                Some(json!("shape"))
            );
            assert!(message.contains("same number"), "{message}");
        }
        _ => unreachable!(),
    }
    a.play(&room, 0, start.seq, json!({"take": [11, 0]})).await;
    a.expect_error(ErrorCode::ActionIllegalMove).await;
    // Out of turn, for the other seat, stale, undecodable.
    b.play(&room, 1, start.seq, json!({"take": [1, 0]})).await;
    b.expect_error(ErrorCode::ActionNotYourTurn).await;
    a.play(&room, 1, start.seq, json!({"take": [1, 0]})).await;
    a.expect_error(ErrorCode::ActionNotYourSeat).await;
    a.play(&room, 0, start.seq + 5, json!({"take": [1, 0]}))
        .await;
    a.expect_error(ErrorCode::ActionStaleSeq).await;
    a.play(&room, 0, start.seq, json!({"take": "all"})).await;
    a.expect_error(ErrorCode::ActionBadMove).await;
    // Frames that are not requests.
    a.send_text("{this is not json").await;
    a.expect_error(ErrorCode::RequestMalformed).await;
    a.send_json(json!({"type": "teleport"})).await;
    a.expect_error(ErrorCode::RequestUnknownType).await;
    a.send_json(json!({"type": "play", "room": room, "seat": 0}))
        .await;
    a.expect_error(ErrorCode::RequestMalformed).await;
    a.send_raw(Message::Binary(vec![1u8, 2, 3].into()))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    a.expect_error(ErrorCode::RequestBinary).await;
    a.send_json(json!({"type": "join", "room": "no-such-room"}))
        .await;
    a.expect_error(ErrorCode::RoomNotFound).await;
    a.send_json(json!({"type": "hello", "version": 1})).await;
    a.expect_error(ErrorCode::RequestHelloTwice).await;

    // An oversized frame closes this connection with 1009...
    let huge = format!(r#"{{"type":"ping","pad":"{}"}}"#, "x".repeat(200 * 1024));
    let _ = a.send_raw(Message::Text(huge.into())).await;
    a.expect_error(ErrorCode::RequestTooLarge).await;
    match a.next().await {
        Received::Closed(Some(frame)) => {
            assert_eq!(u16::from(frame.code), 1009);
            assert_eq!(frame.reason.as_str(), "request/too_large");
        }
        other => panic!("expected a close frame, got {other:?}"),
    }
    // ...and the player resumes with the token, finding nothing changed.
    let token = a.token;
    let mut a = Raw::greeted(&url, "alice").await;
    a.send(&ClientMsg::Resume { token }).await;
    let seats = a
        .expect(|m| match m {
            ServerMsg::Resumed { seats, .. } => Some(seats.clone()),
            _ => None,
        })
        .await;
    assert_eq!(seats.len(), 1);
    assert_eq!(seats[0].seat, Seat(0));
    let again = a.update(&room).await;
    assert_eq!(again.seq, start.seq);
    assert_eq!(nimrod_piles(&again), piles);
    assert_eq!(again.you, Some(Seat(0)));

    // Now the game plays out normally.
    let mut players = [a, b];
    let u = again;
    let u = play_out_nimrod(&mut players, &room, u).await;
    assert!(matches!(u.outcome, Some(Outcome::Win { .. })));
    // Moves after the end are refused.
    players[0]
        .play(&room, 0, u.seq, json!({"take": [0, 1]}))
        .await;
    players[0].expect_error(ErrorCode::ActionGameOver).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn a_dropped_player_resumes_and_finishes_and_the_other_is_told() {
    let server = start_server(None).await;
    let url = server.url();
    let (mut a, mut b, room, u) = nimrod_pair(&url, [6, 9]).await;
    a.play(&room, 0, u.seq, nimrod_move(&u)).await;
    let u = b.update_at(&room, 1).await;

    let token = b.token;
    b.close().await;
    let left = a
        .expect(|m| match m {
            ServerMsg::Presence {
                seat, connected, ..
            } => Some((*seat, *connected)),
            _ => None,
        })
        .await;
    assert_eq!(left, (Seat(1), false));

    let mut b = Raw::greeted(&url, "b").await;
    b.send(&ClientMsg::Resume { token }).await;
    let back = b.update(&room).await;
    assert_eq!(back.seq, u.seq);
    assert_eq!(back.you, Some(Seat(1)));
    let came_back = a
        .expect(|m| match m {
            ServerMsg::Presence {
                seat, connected, ..
            } => Some((*seat, *connected)),
            _ => None,
        })
        .await;
    assert_eq!(came_back, (Seat(1), true));

    let mut players = [a, b];
    let u = back;
    let u = play_out_nimrod(&mut players, &room, u).await;
    // 6/9 is not a lose position: perfect play from seat 0 wins.
    assert_eq!(
        u.outcome,
        Some(Outcome::Win {
            winners: SeatSet::single(Seat(0))
        })
    );
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn a_restarted_server_brings_the_match_back_with_no_move_lost() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let url = server.url();
    let (mut a, mut b, room, mut u) = nimrod_pair(&url, [40, 70]).await;
    let mut played = Vec::new();
    for _ in 0..3 {
        let seat = u
            .to_act
            .iter()
            .next()
            .unwrap_or_else(|| panic!("nobody to act"));
        let p = if seat.0 == 0 { &mut a } else { &mut b };
        let mv = json!({"take": [0, 1]});
        p.play(&room, seat.0, u.seq, mv.clone()).await;
        played.push(mv);
        u = p.update_at(&room, u.seq + 1).await;
    }
    let before = nimrod_piles(&u);
    let (ta, tb) = (a.token, b.token);
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
    // A graceful shutdown tells players why and closes with 1001.
    a.expect_error(ErrorCode::ServerShuttingDown).await;
    match a.next().await {
        Received::Closed(Some(frame)) => assert_eq!(u16::from(frame.code), 1001),
        other => panic!("expected a close frame, got {other:?}"),
    }

    let server = start_server(Some(&store)).await;
    let url = server.url();
    let mut players = Vec::new();
    for token in [ta, tb] {
        let mut p = Raw::greeted(&url, "again").await;
        p.send(&ClientMsg::Resume { token }).await;
        let back = p.update(&room).await;
        assert_eq!(back.seq, 3, "a move was lost");
        assert_eq!(nimrod_piles(&back), before);
        u = back;
        players.push(p);
    }
    let u = play_out_nimrod(&mut players, &room, u).await;
    let p = &mut players[0];
    let log = match_log(p, &room).await;
    assert_eq!(log.moves.len() as u64, u.seq);
    assert_eq!(log.header.options, json!({"piles": [40, 70]}));
    for (entry, mv) in log.moves.iter().zip(&played) {
        assert_eq!(
            entry.action,
            parlor_protocol::LoggedAction::Move(mv.clone())
        );
    }
    assert_eq!(log.outcome, u.outcome);
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn requests_before_hello_and_bad_versions_are_refused() {
    let server = start_server(None).await;
    let url = server.url();
    let mut c = Raw::connect(&url).await;
    c.send(&ClientMsg::ListRooms {
        game: None,
        status: None,
        cursor: None,
        limit: None,
    })
    .await;
    c.expect_error(ErrorCode::RequestHelloFirst).await;
    c.send_json(json!({"type": "hello", "version": 0})).await;
    c.expect_error(ErrorCode::ProtocolVersion).await;
    c.send_json(json!({"type": "hello", "version": 99, "name": "future"}))
        .await;
    let version = c
        .expect(|m| match m {
            ServerMsg::Welcome { version, .. } => Some(*version),
            _ => None,
        })
        .await;
    assert_eq!(version, parlor_protocol::PROTOCOL_VERSION);
    c.send(&ClientMsg::Resume {
        token: uuid::Uuid::new_v4(),
    })
    .await;
    c.expect_error(ErrorCode::SessionUnknownToken).await;
    c.send_json(json!({"type": "create_room", "game": "nimrod", "seats": 3}))
        .await;
    c.expect_error(ErrorCode::RoomBadOptions).await;
    c.send_json(json!({"type": "create_room", "game": "nimrod", "options": {"piles": [0, 0]}}))
        .await;
    c.expect_error(ErrorCode::RoomBadOptions).await;
    c.send_json(json!({"type": "create_room", "game": "chess"}))
        .await;
    c.expect_error(ErrorCode::RequestMalformed).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn only_members_seat_bots_spectating_twice_does_not_double_and_resume_cannot_strand_seats() {
    let server = start_server(None).await;
    let url = server.url();
    let mut host = Raw::greeted(&url, "host").await;
    let room = host.create("nimrod", json!({"piles": [4, 9]}), None).await;

    // A stranger who learns the id cannot fill the room with bots.
    let mut stranger = Raw::greeted(&url, "stranger").await;
    stranger
        .send(&ClientMsg::AddBot {
            room: room.clone(),
            seat: None,
            strategy: None,
        })
        .await;
    stranger.expect_error(ErrorCode::RoomNotAllowed).await;

    // Watching twice still gives one update per change.
    let mut watcher = Raw::greeted(&url, "watcher").await;
    for _ in 0..2 {
        watcher
            .send(&ClientMsg::Spectate { room: room.clone() })
            .await;
        watcher.update(&room).await;
    }
    let mut player = Raw::greeted(&url, "player").await;
    player.join(&room, 0).await;
    watcher
        .send(&ClientMsg::Spectate { room: room.clone() })
        .await;
    let mut updates = 0;
    loop {
        match watcher.next().await {
            Received::Msg(ServerMsg::Update(_)) => updates += 1,
            Received::Msg(ServerMsg::Spectating { .. }) => break,
            Received::Msg(_) => {}
            Received::Closed(f) => panic!("closed: {f:?}"),
        }
    }
    assert_eq!(
        updates, 1,
        "the join was broadcast to the watcher more than once"
    );

    // A connection holding seats under its own token cannot switch tokens.
    let other = host.token;
    player.send(&ClientMsg::Resume { token: other }).await;
    player.expect_error(ErrorCode::SessionResumeConflict).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn one_player_cannot_hoard_rooms() {
    let server = start_server(None).await;
    let mut c = Raw::greeted(&server.url(), "hoarder").await;
    for _ in 0..parlor_server::limits::MAX_OPEN_ROOMS_PER_CREATOR {
        c.create("nimrod", json!(null), None).await;
    }
    c.send_json(json!({"type": "create_room", "game": "nimrod"}))
        .await;
    c.expect_error(ErrorCode::RoomTooMany).await;
    // Someone else still can.
    let mut d = Raw::greeted(&server.url(), "other").await;
    d.create("nimrod", json!(null), None).await;
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}
