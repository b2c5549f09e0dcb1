//! A seat answers only to the connection that holds it now: after a
//! resume elsewhere, the old connection's moves are refused.

use crate::common;

use common::{directory, nimrod_room, route, seat_all, Player};
use parlor_games::Seat;
use parlor_protocol::{ErrorCode, ServerMsg};
use parlor_server::limits::Limits;
use parlor_server::room::{RoomCmd, RoomRequest};
use serde_json::json;

#[tokio::test]
async fn the_old_connection_cannot_move_a_seat_resumed_elsewhere() {
    let dir = directory(Limits::default());
    let room = nimrod_room(&dir, [3, 5], None).await;
    let (mut old, b) = (Player::new(&dir, "a"), Player::new(&dir, "b"));
    seat_all(&dir, &room, &[&old, &b]);
    old.update_at(0).await;
    // The same token resumes on a new connection.
    let mut new = Player::new(&dir, "a again");
    new.member.token = old.member.token;
    route(
        &dir,
        &room,
        RoomCmd::request(new.member.clone(), RoomRequest::Resume),
    );
    let resumed = new.update_at(0).await;
    assert_eq!(resumed.you, Some(Seat(0)));
    // The old connection, though it still carries the token, may not move.
    let play = |who: &Player| {
        RoomCmd::request(
            who.member.clone(),
            RoomRequest::Play {
                seat: Seat(0),
                seq: 0,
                mv: json!({"take": [0, 1]}),
            },
        )
    };
    route(&dir, &room, play(&old));
    let code = loop {
        if let ServerMsg::Error { code, .. } = old.next().await {
            break code;
        }
    };
    assert_eq!(code, ErrorCode::ActionNotYourSeat);
    // The new one may, and the position had not moved.
    route(&dir, &room, play(&new));
    let after = new.update_at(1).await;
    assert_eq!(after.seq, 1);
    assert_eq!(after.view["piles"], json!([3, 4]));
}
