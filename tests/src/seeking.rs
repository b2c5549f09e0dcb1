//! Finding opponents from a test: signing in with a token, seeking,
//! waiting to be matched, and reading challenges.

use parlor_protocol::{
    ChallengeEnd, ChallengeInfo, ClientMsg, DeclineReason, RoomId, ServerMsg, Update,
    PROTOCOL_VERSION,
};
use serde_json::Value;

use crate::Raw;

/// Connects as the account whose API token is `token`.
pub async fn signed_in(url: &str, token: &str) -> Raw {
    let mut c = Raw::connect(url).await;
    c.send(&ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        name: None,
        token: Some(token.into()),
    })
    .await;
    c.token = c
        .expect(|m| match m {
            ServerMsg::Welcome {
                token,
                account: Some(_),
                ..
            } => Some(*token),
            ServerMsg::Welcome { .. } => panic!("not signed in"),
            _ => None,
        })
        .await;
    c
}

/// Sends a seek and reads its id.
pub async fn seek_id(c: &mut Raw, msg: Value) -> u64 {
    c.send_json(msg).await;
    c.expect(|m| match m {
        ServerMsg::Seeking { seek, .. } => Some(*seek),
        ServerMsg::Error { code, message, .. } => panic!("seek refused: {code} {message}"),
        _ => None,
    })
    .await
}

/// Waits for `matched`, then the first update of the room: (room, seat,
/// players, update).
pub async fn matched(c: &mut Raw, seek: u64) -> (RoomId, u8, Vec<String>, Update) {
    let (room, seat, players) = c
        .expect(|m| match m {
            ServerMsg::Matched {
                seek: s,
                room,
                seat,
                players,
            } if *s == seek => Some((room.clone(), seat.0, players.clone())),
            _ => None,
        })
        .await;
    c.expect(|m| matches!(m, ServerMsg::Joined { room: r, .. } if *r == room).then_some(()))
        .await;
    let u = c.update(&room).await;
    assert_eq!(u.you.map(|s| s.0), Some(seat));
    (room, seat, players, u)
}

/// Orders two clients by their seats.
pub fn by_seat(a: (Raw, u8), b: (Raw, u8)) -> Vec<Raw> {
    assert_ne!(a.1, b.1, "two players in one seat");
    if a.1 == 0 {
        vec![a.0, b.0]
    } else {
        vec![b.0, a.0]
    }
}

/// Reads updates of `room` until the match is on.
pub async fn playing(c: &mut Raw, room: &RoomId, mut u: Update) -> Update {
    while u.status != parlor_protocol::RoomStatus::Playing {
        u = c.update(room).await;
    }
    u
}

/// Reads the next `challenge_made`.
pub async fn challenge_made(c: &mut Raw) -> ChallengeInfo {
    c.expect(|m| match m {
        ServerMsg::ChallengeMade(info) => Some(info.clone()),
        ServerMsg::Error { code, message, .. } => panic!("refused: {code} {message}"),
        _ => None,
    })
    .await
}

/// Reads the next `challenge_ended`.
pub async fn challenge_ended(
    c: &mut Raw,
) -> (u64, ChallengeEnd, Option<DeclineReason>, Option<RoomId>) {
    c.expect(|m| match m {
        ServerMsg::ChallengeEnded {
            challenge,
            end,
            reason,
            room,
        } => Some((*challenge, *end, *reason, room.clone())),
        _ => None,
    })
    .await
}
