//! Provably fair dealing over the protocol: the commitment published at
//! creation matches the revealed seed, every seat's client seed is in the
//! deal, and the deal is made only once every seat is in.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::{Seat, Viewer};
use parlor_protocol::{ClientMsg, ErrorCode, ServerMsg};
use parlor_tests::{match_log, start_server, Raw};
use serde_json::json;

#[tokio::test]
async fn the_deal_is_committed_to_and_depends_on_every_client_seed() {
    let server = start_server(None).await;
    let url = server.url();
    let mut a = Raw::greeted(&url, "alice").await;
    a.send_json(
        json!({"type": "create_room", "game": "rummikub", "seats": 2, "options": {"rack_size": 7}}),
    )
    .await;
    let (room, commitment) = a
        .expect(|m| match m {
            ServerMsg::RoomCreated {
                room, commitment, ..
            } => Some((room.clone(), commitment.clone())),
            _ => None,
        })
        .await;
    assert_eq!(commitment.len(), 64);
    // A bad client seed is refused and takes no seat.
    a.send(&ClientMsg::Join {
        room: room.clone(),
        seat: Some(Seat(0)),
        client_seed: Some("not ok!".into()),
    })
    .await;
    a.expect_error(ErrorCode::RequestMalformed).await;
    a.send(&ClientMsg::Join {
        room: room.clone(),
        seat: Some(Seat(0)),
        client_seed: Some("alice-entropy-1".into()),
    })
    .await;
    let joined = a
        .expect(|m| match m {
            ServerMsg::Joined { commitment, .. } => Some(commitment.clone()),
            _ => None,
        })
        .await;
    assert_eq!(joined.as_deref(), Some(commitment.as_str()));
    // While the room waits, a seat is shown no rack: nothing is dealt yet.
    let waiting = a.update(&room).await;
    assert!(waiting.view["rack"].is_null(), "{}", waiting.view);
    let mut b = Raw::greeted(&url, "bob").await;
    b.send(&ClientMsg::Join {
        room: room.clone(),
        seat: Some(Seat(1)),
        client_seed: Some("bob_2".into()),
    })
    .await;
    let started = b.update(&room).await;
    assert!(started.view["rack"].is_array());
    // Bob resigns at once; the log reveals the deal.
    b.send_json(json!({"type": "leave", "room": room})).await;
    b.expect(|m| matches!(m, ServerMsg::Left { .. }).then_some(()))
        .await;
    let log = match_log(&mut a, &room).await;
    let deal = log.header.deal.clone().expect("a fair deal");
    assert_eq!(deal.commitment, commitment);
    assert_eq!(
        deal.client_seeds,
        vec![Some("alice-entropy-1".to_owned()), Some("bob_2".to_owned())]
    );
    deal.check()
        .expect("the revealed seed matches the commitment");
    // The rack Bob was shown is the one the revealed deal gives him ...
    let (game, _) = parlor_protocol::replay(&log.header, &[]).unwrap();
    let dealt = serde_json::to_value(game.view(Viewer::Seat(Seat(1)))).unwrap();
    assert_eq!(dealt["rack"], started.view["rack"]);
    // ... and another client seed would have dealt something else.
    let mut other = log.header.clone();
    if let Some(d) = other.deal.as_mut() {
        d.client_seeds[0] = Some("alice-entropy-2".into());
    }
    let (game, _) = parlor_protocol::replay(&other, &[]).unwrap();
    let changed = serde_json::to_value(game.view(Viewer::Seat(Seat(1)))).unwrap();
    assert_ne!(changed["rack"], started.view["rack"]);
    // A tampered seed does not match the commitment.
    let mut forged = deal.clone();
    forged.server_seed = format!("{}0", &forged.server_seed[..63]);
    if forged.server_seed == deal.server_seed {
        forged.server_seed = format!("{}1", &forged.server_seed[..63]);
    }
    assert!(forged.check().is_err());
    server.stop().await.unwrap();
}
