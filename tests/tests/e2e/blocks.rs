//! Blocks end to end (on SQLite, or with `PARLOR_TEST_STORE=postgres` on
//! PostgreSQL; the cluster's shared seeks with two nodes when PostgreSQL
//! and Redis are there): the list, idempotence and refusals; a block
//! stops challenges both ways (the blocked side is not told of a block)
//! until it is lifted, also one accepted after the block; seekers who
//! block each other are paired with others; the ladder never pairs them;
//! no rematch between them.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_protocol::{ChallengeEnd, ErrorCode, ServerMsg};
use parlor_server::limits::{LadderSettings, Limits};
use parlor_server::Config;
use parlor_tests::http::{account_of_kind_with_token, account_with_token, bearer, request, Answer};
use parlor_tests::ladder::{page, play_ladder, Played};
use parlor_tests::seeking::{
    by_seat, challenge_ended, challenge_made, matched, playing, seek_id, signed_in,
};
use parlor_tests::{play_out_nimrod, start_server, start_server_with, Raw, Received, TestServer};
use serde_json::json;

async fn block(addr: SocketAddr, token: &str, method: &str, name: &str) -> Answer {
    let path = format!("/api/blocks/{name}");
    request(addr, method, &path, &[bearer(token)], None).await
}

async fn listed(addr: SocketAddr, token: &str) -> Vec<String> {
    let a = request(addr, "GET", "/api/blocks", &[bearer(token)], None).await;
    assert_eq!(a.status, 200, "{a:?}");
    a.body["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["player"].as_str().unwrap().to_owned())
        .collect()
}

/// The message of the next error, which must be `code`.
async fn refused(c: &mut Raw, code: ErrorCode) -> String {
    match c.expect_error(code).await {
        ServerMsg::Error { message, .. } => message,
        _ => unreachable!(),
    }
}

/// Nothing matching `want` arrives on `c` within `wait`.
async fn nothing_for(c: &mut Raw, wait: Duration, want: impl Fn(&ServerMsg) -> bool) {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, c.next()).await {
            Err(_) => return,
            Ok(Received::Msg(m)) => assert!(!want(&m), "unexpected {m:?}"),
            Ok(Received::Closed(f)) => panic!("closed: {f:?}"),
        }
    }
}

#[tokio::test]
async fn blocks_are_listed_idempotent_and_refused_for_oneself_and_strangers() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (al, _) = account_of_kind_with_token(addr, "alice", "human").await;
    account_of_kind_with_token(addr, "Bobby", "human").await;
    assert!(listed(addr, &al).await.is_empty());
    for _ in 0..2 {
        let a = block(addr, &al, "POST", "bobby").await;
        assert_eq!(a.status, 201, "{a:?}");
        assert_eq!(a.body, json!({"player": "Bobby", "blocked": true}));
    }
    assert_eq!(listed(addr, &al).await, vec!["Bobby"]);
    for name in ["ALICE", "nobody-here"] {
        let a = block(addr, &al, "POST", name).await;
        assert_eq!((a.status, a.code()), (400, "block/bad_request"), "{name}");
    }
    let guest = request(addr, "POST", "/api/blocks/bobby", &[], None).await;
    assert_eq!((guest.status, guest.code()), (401, "auth/required"));
    let wrong = request(addr, "PUT", "/api/blocks/bobby", &[bearer(&al)], None).await;
    assert_eq!(wrong.status, 405);
    for _ in 0..2 {
        assert_eq!(block(addr, &al, "DELETE", "BOBBY").await.status, 204);
    }
    assert!(listed(addr, &al).await.is_empty());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_block_stops_challenges_both_ways_until_it_is_lifted() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (ta, _) = account_of_kind_with_token(addr, "alice", "human").await;
    let (tb, _) = account_of_kind_with_token(addr, "bobby", "human").await;
    let mut al = signed_in(&url, &ta).await;
    let mut bo = signed_in(&url, &tb).await;
    let challenge = |to: &str| json!({"type": "challenge", "to": to, "game": "nimrod"});

    // A challenge made before the block cannot be accepted after it.
    bo.send_json(challenge("alice")).await;
    let waiting = challenge_made(&mut bo).await;
    challenge_made(&mut al).await;
    assert_eq!(block(addr, &ta, "POST", "bobby").await.status, 201);
    al.send_json(json!({"type": "accept", "challenge": waiting.challenge}))
        .await;
    let to_alice = refused(&mut al, ErrorCode::ChallengeBlocked).await;
    assert!(to_alice.contains("you block bobby"), "{to_alice}");
    let (id, end, _, _) = challenge_ended(&mut bo).await;
    assert_eq!((id, end), (waiting.challenge, ChallengeEnd::Cancelled));

    // The blocked player is told only that its challenges are not taken.
    bo.send_json(challenge("alice")).await;
    let to_bobby = refused(&mut bo, ErrorCode::ChallengeBlocked).await;
    assert_eq!(to_bobby, "alice does not accept challenges from you");
    // The one who blocks is told plainly.
    al.send_json(challenge("bobby")).await;
    let to_alice = refused(&mut al, ErrorCode::ChallengeBlocked).await;
    assert!(to_alice.contains("you block bobby"), "{to_alice}");
    nothing_for(&mut al, Duration::from_millis(300), |m| {
        matches!(m, ServerMsg::ChallengeMade(_))
    })
    .await;

    // Lifted: challenges pass again.
    assert_eq!(block(addr, &ta, "DELETE", "bobby").await.status, 204);
    bo.send_json(challenge("alice")).await;
    let made = challenge_made(&mut bo).await;
    assert_eq!(challenge_made(&mut al).await.challenge, made.challenge);
    server.stop().await.unwrap();
}

/// The first seeker blocks the second (with `token`, on `block_on`):
/// they are not paired; the third and fourth, seeking after them, are
/// paired one with each.
async fn blocked_seekers_pair_with_others(
    (block_on, token): (&TestServer, &str),
    seekers: [(&mut Raw, &str); 4],
) {
    let seek = json!({"type": "seek", "game": "nimrod", "options": {"piles": [2, 3]}});
    let [(al, _), (bo, bo_name), (cy, cy_name), (dy, dy_name)] = seekers;
    assert_eq!(
        block(block_on.addr(), token, "POST", bo_name).await.status,
        201
    );
    let sa = seek_id(al, seek.clone()).await;
    let sb = seek_id(bo, seek.clone()).await;
    // Several pairing rounds pass: they stay apart.
    nothing_for(al, Duration::from_millis(2_500), |m| {
        matches!(m, ServerMsg::Matched { .. })
    })
    .await;
    let sc = seek_id(cy, seek.clone()).await;
    let (room_a, _, players_a, _) = matched(al, sa).await;
    let (room_c, _, _, _) = matched(cy, sc).await;
    assert_eq!(room_a, room_c);
    assert!(players_a.iter().any(|p| p == cy_name), "{players_a:?}");
    let sd = seek_id(dy, seek).await;
    let (room_b, _, players_b, _) = matched(bo, sb).await;
    let (room_d, _, _, _) = matched(dy, sd).await;
    assert_eq!(room_b, room_d);
    assert!(players_b.iter().any(|p| p == dy_name), "{players_b:?}");
}

#[tokio::test]
async fn seekers_who_block_each_other_are_paired_with_others() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let mut clients = Vec::new();
    let mut tokens = Vec::new();
    for name in ["alice", "bobby", "carol", "dave"] {
        let (t, _) = account_of_kind_with_token(addr, name, "human").await;
        clients.push(signed_in(&url, &t).await);
        tokens.push(t);
    }
    let [al, bo, cy, dy] = &mut clients[..] else {
        unreachable!()
    };
    // Bobby blocks Alice: the block holds for the one blocked too.
    blocked_seekers_pair_with_others(
        (&server, &tokens[1]),
        [(bo, "bobby"), (al, "alice"), (cy, "carol"), (dy, "dave")],
    )
    .await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn no_rematch_between_players_one_of_whom_blocks_the_other() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (ta, _) = account_of_kind_with_token(addr, "alice", "human").await;
    let (tb, _) = account_of_kind_with_token(addr, "bobby", "human").await;
    let mut al = signed_in(&url, &ta).await;
    let mut bo = signed_in(&url, &tb).await;
    al.send_json(json!({"type": "challenge", "to": "bobby", "game": "nimrod", "options": {"piles": [1, 2]}, "seat": 0}))
        .await;
    let c = challenge_made(&mut bo).await;
    bo.send_json(json!({"type": "accept", "challenge": c.challenge}))
        .await;
    let (_, _, _, room) = challenge_ended(&mut al).await;
    let room = room.unwrap();
    let ua = al.update(&room).await;
    bo.update(&room).await;
    let mut seated = by_seat((al, 0), (bo, 1));
    let u = playing(&mut seated[0], &room, ua).await;
    let end = play_out_nimrod(&mut seated, &room, u).await;
    assert!(end.outcome.is_some());
    assert_eq!(block(addr, &tb, "POST", "alice").await.status, 201);
    for c in seated.iter_mut() {
        c.send_json(json!({"type": "rematch", "room": room})).await;
    }
    for c in seated.iter_mut() {
        let message = refused(c, ErrorCode::RematchUnavailable).await;
        assert!(!message.contains("block"), "{message}");
    }
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seekers_on_two_nodes_who_block_each_other_are_paired_with_others() {
    let Some((_scratch, a, b)) = parlor_tests::two_nodes(Duration::from_millis(2_000)).await else {
        return;
    };
    let mut clients = Vec::new();
    let mut tokens = Vec::new();
    for (i, name) in ["alice", "bobby", "carol", "dave"].into_iter().enumerate() {
        let node = if i % 2 == 0 { &a } else { &b };
        let (t, _) = account_of_kind_with_token(node.addr(), name, "human").await;
        clients.push(signed_in(&node.url(), &t).await);
        tokens.push(t);
    }
    let [al, bo, cy, dy] = &mut clients[..] else {
        unreachable!()
    };
    blocked_seekers_pair_with_others(
        (&a, &tokens[0]),
        [(al, "alice"), (bo, "bobby"), (cy, "carol"), (dy, "dave")],
    )
    .await;
}

/// The ladder's tick in the ladder test: fast, so that pairing is prompt.
const LADDER_TICK: Duration = Duration::from_millis(200);

#[tokio::test]
async fn the_ladder_never_pairs_bots_one_of_whom_blocks_the_other() {
    // One game at once and one a day per pair: each bot can meet the
    // three anchors and the other bot once.
    let server = start_server_with(Config {
        limits: Limits {
            ladder: LadderSettings {
                max_games: 1,
                daily_cap: 1,
                tick: LADDER_TICK,
                ..LadderSettings::default()
            },
            ..Limits::default()
        },
        ..Config::default()
    })
    .await;
    let (addr, url) = (server.addr(), server.url());
    let mut bots = Vec::new();
    for name in ["climber", "scaler"] {
        let (token, _) = account_with_token(addr, name).await;
        let joined = request(
            addr,
            "POST",
            "/api/ladder/nimrod/join",
            &[bearer(&token)],
            None,
        )
        .await;
        assert_eq!(joined.status, 200, "{joined:?}");
        bots.push(token);
    }
    assert_eq!(block(addr, &bots[1], "POST", "climber").await.status, 201);
    let anchors: Vec<String> = page(addr, "nimrod")
        .await
        .entrants
        .into_iter()
        .filter(|e| e.builtin)
        .map(|e| e.name)
        .collect();
    assert_eq!(anchors.len(), 3);
    let mut a = signed_in(&url, &bots[0]).await;
    let mut b = signed_in(&url, &bots[1]).await;
    let (mut pa, mut pb) = (Played::default(), Played::default());
    tokio::join!(
        play_ladder(&mut a, anchors.len(), &mut pa),
        play_ladder(&mut b, anchors.len(), &mut pb)
    );
    for played in [&pa, &pb] {
        let mut met: Vec<String> = played.given.iter().map(|g| g.opponent.clone()).collect();
        met.sort();
        assert_eq!(met, anchors, "each anchor once, never the other bot");
    }
    // Only the blocked pair is left under the cap: it is never paired.
    for c in [&mut a, &mut b] {
        nothing_for(c, 5 * LADDER_TICK, |m| {
            matches!(m, ServerMsg::LadderGame(_))
        })
        .await;
    }
    server.stop().await.unwrap();
}
