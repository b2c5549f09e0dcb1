//! Finding opponents across a cluster's nodes (skipped without PostgreSQL
//! or Redis, except under `CI=true`): seekers on different nodes are
//! paired, a challenge reaches its player on another node, and a rematch
//! seats players who reached the room through another node.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{ChallengeEnd, ChallengeInfo, ErrorCode, SeekEnd, ServerMsg};
use parlor_server::testing::ScratchSchema;
use parlor_tests::http::account_with_token;
use parlor_tests::seeking::{
    by_seat, challenge_ended, challenge_made, matched, playing, seek_id, signed_in,
};
use parlor_tests::{play_out_nimrod, Raw, TestServer};
use serde_json::json;

/// As in `bus.rs`: no test here waits for a lease to run out.
const LEASE: Duration = Duration::from_millis(2_000);

/// Two nodes of one cluster, or `None` if a service is missing.
async fn cluster() -> Option<(ScratchSchema, TestServer, TestServer)> {
    parlor_tests::two_nodes(LEASE).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seekers_on_two_nodes_are_paired_play_and_rematch() {
    let Some((_scratch, a, b)) = cluster().await else {
        return;
    };
    let mut al = Raw::greeted(&a.url(), "al").await;
    let mut bo = Raw::greeted(&b.url(), "bo").await;
    let seek = json!({"type": "seek", "game": "nimrod", "options": {"piles": [3, 5]}});
    let sa = seek_id(&mut al, seek.clone()).await;
    let sb = seek_id(&mut bo, seek).await;
    let (room, seat_a, _, ua) = matched(&mut al, sa).await;
    let (room_b, seat_b, _, ub) = matched(&mut bo, sb).await;
    assert_eq!(room, room_b);
    let first = if seat_a == 0 { ua } else { ub };
    let mut seated = by_seat((al, seat_a), (bo, seat_b));
    let u = playing(&mut seated[0], &room, first).await;
    let end = play_out_nimrod(&mut seated, &room, u).await;
    assert!(end.outcome.is_some());
    for c in seated.iter_mut() {
        c.send_json(json!({"type": "rematch", "room": room})).await;
    }
    let mut next = Vec::new();
    for (old, c) in seated.iter_mut().enumerate() {
        let (room2, seat) = c
            .expect(|m| match m {
                ServerMsg::RematchStarted { next, seat, .. } => Some((next.clone(), seat.0)),
                _ => None,
            })
            .await;
        assert_eq!(usize::from(seat), (old + 1) % 2);
        // Seated by the server, wherever the player is connected.
        let u = c.update(&room2).await;
        assert_eq!(u.you.map(|s| s.0), Some(seat));
        next.push(room2);
    }
    assert_eq!(next[0], next[1]);
}

/// The accounts alice, signed in on `a`, and bobby, on `b`.
async fn alice_and_bobby(a: &TestServer, b: &TestServer) -> (Raw, Raw) {
    let (ta, _) = account_with_token(a.addr(), "alice").await;
    let (tb, _) = account_with_token(a.addr(), "bobby").await;
    (
        signed_in(&a.url(), &ta).await,
        signed_in(&b.url(), &tb).await,
    )
}

/// Challenges `to` to `game` from `c` once `to` shows as connected
/// (presence is recorded as a connection signs in, and reaches the
/// database a moment later); the challenge made.
async fn challenge_when_seen(c: &mut Raw, to: &str, game: &str) -> ChallengeInfo {
    for _ in 0..50 {
        c.send_json(json!({"type": "challenge", "to": to, "game": game}))
            .await;
        let got = c
            .expect(|m| match m {
                ServerMsg::ChallengeMade(info) => Some(Ok(info.clone())),
                ServerMsg::Error { code, .. } => Some(Err(*code)),
                _ => None,
            })
            .await;
        match got {
            Ok(info) => return info,
            Err(ErrorCode::ChallengeOffline) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(other) => panic!("{other}"),
        }
    }
    panic!("{to} never showed as connected")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_reaches_its_player_on_another_node() {
    let Some((_scratch, a, b)) = cluster().await else {
        return;
    };
    let (ta, _) = account_with_token(a.addr(), "alice").await;
    let (tb, _) = account_with_token(a.addr(), "bobby").await;
    let mut al = signed_in(&a.url(), &ta).await;
    let mut bo = signed_in(&b.url(), &tb).await;
    let made = challenge_when_seen(&mut al, "bobby", "nimrod").await;
    let theirs = challenge_made(&mut bo).await;
    assert_eq!(theirs.challenge, made.challenge);
    // A connection of bobby's signing in later, on the challenger's node,
    // is shown it too (from the shared books).
    let mut later = signed_in(&a.url(), &tb).await;
    assert_eq!(challenge_made(&mut later).await, theirs);
    bo.send_json(json!({"type": "accept", "challenge": made.challenge}))
        .await;
    let (_, end, _, room) = challenge_ended(&mut al).await;
    assert_eq!(end, ChallengeEnd::Accepted);
    let room = room.unwrap();
    let ua = al.update(&room).await;
    let ub = bo.update(&room).await;
    assert!(ua.you.is_some() && ub.you.is_some() && ua.you != ub.you);

    // Declined on B, heard on A.
    al.send_json(json!({"type": "challenge", "to": "bobby", "game": "mitsudomoe"}))
        .await;
    let c2 = challenge_made(&mut bo).await;
    bo.send_json(json!({"type": "decline", "challenge": c2.challenge}))
        .await;
    loop {
        let got = challenge_ended(&mut al).await;
        if got.0 == c2.challenge {
            assert_eq!(got.1, ChallengeEnd::Declined);
            break;
        }
    }
}

/// A database crash empties matchmaking's books (they are unlogged) while
/// every node's connections live on, and tells nobody: an open challenge's
/// players are told it was lost, a waiting seek ends as lost, everyone's
/// presence is written again (a new challenge reaches its player with no
/// reconnection), and no id comes back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_database_crash_takes_from_matchmaking_is_made_good() {
    let Some((scratch, a, b)) = cluster().await else {
        return;
    };
    let (mut al, mut bo) = alice_and_bobby(&a, &b).await;
    let made = challenge_when_seen(&mut al, "bobby", "nimrod").await;
    assert_eq!(challenge_made(&mut bo).await.challenge, made.challenge);
    let mut cy = Raw::greeted(&b.url(), "cy").await;
    let seek = json!({"type": "seek", "game": "nimrod", "options": {"piles": [4, 9]}});
    let seek = seek_id(&mut cy, seek).await;

    // What recovery from a crash does to unlogged tables (their
    // identities too).
    empty_the_books(&scratch).await;

    for c in [&mut al, &mut bo] {
        let (id, end, ..) = challenge_ended(c).await;
        assert_eq!((id, end), (made.challenge, ChallengeEnd::Lost));
    }
    let why = cy
        .expect(|m| match m {
            ServerMsg::SeekEnded { seek: s, reason } if *s == seek => Some(*reason),
            _ => None,
        })
        .await;
    assert_eq!(why, SeekEnd::Lost);
    // Nobody reconnected, and bobby is seen again.
    let again = challenge_when_seen(&mut al, "bobby", "nimrod").await;
    assert!(
        again.challenge > made.challenge.max(seek),
        "ids never come back: {} after {} and {seek}",
        again.challenge,
        made.challenge
    );
    assert_eq!(challenge_made(&mut bo).await.challenge, again.challenge);
    bo.send_json(json!({"type": "accept", "challenge": again.challenge}))
        .await;
    let (_, end, _, room) = challenge_ended(&mut al).await;
    assert_eq!(end, ChallengeEnd::Accepted);
    assert!(room.is_some());
}

/// Empties matchmaking's unlogged tables as a crash's recovery does. A
/// crash takes no locks, but this stand-in does, table by table in its
/// list's order, while the nodes' statements lock them in other orders (a
/// beat's sweep takes `mm_presence` before `mm_nodes`): PostgreSQL may then
/// end the stand-in as a deadlock's victim (seen once in CI), and it is
/// simply made again, as PostgreSQL advises. Anything else is a failure.
async fn empty_the_books(scratch: &ScratchSchema) {
    /// A deadlock needs a beat at that very moment; a few in a row would
    /// be something else.
    const TRIES: usize = 5;
    for tried in 1..=TRIES {
        match scratch
            .execute(
                "TRUNCATE mm_nodes, mm_presence, mm_seeks, mm_challenges, mm_epoch RESTART IDENTITY",
            )
            .await
        {
            Ok(()) => return,
            Err(e) if e.contains("deadlock detected") && tried < TRIES => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("emptying the books: {e}"),
        }
    }
}
