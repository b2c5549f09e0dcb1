//! Rating farming is bounded: rated results between the same two accounts
//! count at most 5 in any 24 hours, whatever the route. Two puppets that
//! resign twelve rated challenges to a third give it at most ten ledger
//! lines; past the cap a rated challenge (`challenge/rated_limit`) and a
//! rated rematch between them are refused, and their rated seeks do not
//! pair them, though each still pairs with others.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{ErrorCode, RoomId, RoomStatus, ServerMsg, Update};
use parlor_tests::http::account_with_token;
use parlor_tests::rating::{ledger, play_out_first_legal};
use parlor_tests::seeking::{challenge_ended, challenge_made, matched, seek_id, signed_in};
use parlor_tests::{start_server, Raw, Received};
use serde_json::json;

/// `puppet` challenges `farmer` to a rated game: the room, or the code of
/// the refusal.
async fn challenge(puppet: &mut Raw, farmer: &mut Raw, to: &str) -> Result<RoomId, ErrorCode> {
    puppet
        .send_json(json!({"type": "challenge", "to": to, "game": "nimrod",
                          "options": {"piles": [3, 5]}, "rated": true}))
        .await;
    let made = puppet
        .expect(|m| match m {
            ServerMsg::ChallengeMade(info) => Some(Ok(info.challenge)),
            ServerMsg::Error { code, .. } => Some(Err(*code)),
            _ => None,
        })
        .await?;
    let told = challenge_made(farmer).await;
    assert_eq!(told.challenge, made);
    farmer
        .send_json(json!({"type": "accept", "challenge": made}))
        .await;
    let (_, _, _, room) = challenge_ended(puppet).await;
    Ok(room.expect("accepted"))
}

/// Reads `room`'s updates until it is `status`.
async fn until(c: &mut Raw, room: &RoomId, status: RoomStatus) -> Update {
    loop {
        let u = c.update(room).await;
        if u.status == status {
            return u;
        }
    }
}

#[tokio::test]
async fn twelve_resigned_rated_challenges_give_the_farmer_at_most_ten_lines() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_with_token(addr, "farmer").await;
    let mut farmer = signed_in(&url, &token).await;
    let mut puppets = Vec::new();
    for name in ["puppet1", "puppet2"] {
        let (token, _) = account_with_token(addr, name).await;
        puppets.push(signed_in(&url, &token).await);
    }

    let mut refused = 0;
    let mut last_room = None;
    for attempt in 0..12 {
        let puppet = &mut puppets[attempt % 2];
        match challenge(puppet, &mut farmer, "farmer").await {
            Ok(room) => {
                until(puppet, &room, RoomStatus::Playing).await;
                until(&mut farmer, &room, RoomStatus::Playing).await;
                // The puppet resigns: leaving a running match loses it.
                puppet
                    .send_json(json!({"type": "leave", "room": room}))
                    .await;
                until(&mut farmer, &room, RoomStatus::Finished).await;
                last_room = Some(room);
            }
            Err(code) => {
                assert_eq!(code, ErrorCode::ChallengeRatedLimit);
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 2, "the sixth challenge of each puppet is refused");
    let lines = ledger(addr, None).await;
    let farmer_lines = lines
        .iter()
        .filter(|l| l.players.iter().any(|p| p.name == "farmer"))
        .count();
    assert!(farmer_lines <= 10, "{farmer_lines} ledger lines");
    assert_eq!(farmer_lines, 10);
    assert!(last_room.is_some());

    // Past the cap, rated seeks of the two do not pair, in any game...
    let seek = json!({"type": "seek", "game": "mitsudomoe", "rated": true});
    let f = seek_id(&mut farmer, seek.clone()).await;
    seek_id(&mut puppets[0], seek.clone()).await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    // ...but each still pairs with someone else.
    let (token, _) = account_with_token(addr, "carol").await;
    let mut carol = signed_in(&url, &token).await;
    let c = seek_id(&mut carol, seek).await;
    let (room, _, players, _) = matched(&mut farmer, f).await;
    let (room_c, ..) = matched(&mut carol, c).await;
    assert_eq!(room, room_c);
    assert!(players.contains(&"carol".to_owned()), "{players:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_rated_rematch_past_the_cap_is_refused() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_with_token(addr, "farmer").await;
    let mut farmer = signed_in(&url, &token).await;
    let (token, _) = account_with_token(addr, "puppet").await;
    let mut puppet = signed_in(&url, &token).await;
    for game in 0..5 {
        let room = challenge(&mut puppet, &mut farmer, "farmer").await.unwrap();
        let a = until(&mut puppet, &room, RoomStatus::Playing).await;
        let b = until(&mut farmer, &room, RoomStatus::Playing).await;
        if game < 4 {
            puppet
                .send_json(json!({"type": "leave", "room": room}))
                .await;
            until(&mut farmer, &room, RoomStatus::Finished).await;
            continue;
        }
        // The fifth is played out, both staying seated, and both offer a
        // rematch: it would be the sixth rated game of the day.
        let mut players = if a.you.map(|s| s.0) == Some(0) {
            vec![puppet, farmer]
        } else {
            vec![farmer, puppet]
        };
        let firsts = if a.you.map(|s| s.0) == Some(0) {
            vec![a, b]
        } else {
            vec![b, a]
        };
        play_out_first_legal(&mut players, &room, firsts).await;
        for c in &mut players {
            c.send_json(json!({"type": "rematch", "room": room})).await;
        }
        for c in &mut players {
            loop {
                match c.next().await {
                    Received::Msg(ServerMsg::Error { code, .. }) => {
                        assert_eq!(code, ErrorCode::ChallengeRatedLimit);
                        break;
                    }
                    Received::Msg(ServerMsg::RematchStarted { .. }) => {
                        panic!("a sixth rated game was made")
                    }
                    Received::Msg(_) => {}
                    Received::Closed(f) => panic!("closed: {f:?}"),
                }
            }
        }
        break;
    }
    assert_eq!(ledger(addr, None).await.len(), 5);
    server.stop().await.unwrap();
}
