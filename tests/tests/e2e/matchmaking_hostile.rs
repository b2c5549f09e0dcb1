//! Unfriendly uses of matchmaking, each bounded with a code while other
//! players' matchmaking goes on: one address seeking from many
//! connections, one pairing with itself to make rooms, a flood of seeks
//! and cancels, challenge spam to one player, and a thousand failed
//! logins from one address. The figures printed here are the README's
//! (run with `--nocapture`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use parlor_protocol::{ErrorCode, SeekEnd, ServerMsg};
use parlor_server::limits::{Limits, SEEKS_PER_MINUTE, SEEK_BURST};
use parlor_server::Config;
use parlor_tests::http::{account_with_token, request_on};
use parlor_tests::seeking::{challenge_made, matched, seek_id, signed_in};
use parlor_tests::{greeted_from, start_server_with, Raw, Received, TestServer};
use serde_json::json;
use tokio::net::TcpSocket;

/// A server that lets one address connect and register as fast as it
/// likes, so that only matchmaking's own bounds are tested.
async fn server() -> TestServer {
    start_server_with(Config {
        limits: Limits {
            admission: None,
            accounts_per_address_hour: 0,
            ..Limits::default()
        },
        ..Config::default()
    })
    .await
}

/// Two players elsewhere seek and are matched; how long it took.
async fn others_still_pair(server: &TestServer) -> Duration {
    let started = Instant::now();
    let mut a = Raw::greeted(&server.url(), "fair-a").await;
    let mut b = Raw::greeted(&server.url(), "fair-b").await;
    let spec = json!({"type": "seek", "game": "nimrod", "options": {"piles": [6, 9]}});
    let sa = seek_id(&mut a, spec.clone()).await;
    let sb = seek_id(&mut b, spec).await;
    let (ra, ..) = matched(&mut a, sa).await;
    let (rb, ..) = matched(&mut b, sb).await;
    assert_eq!(ra, rb);
    started.elapsed()
}

#[tokio::test]
async fn one_address_seeking_from_many_connections_is_capped() {
    let server = server().await;
    let flooder = Ipv4Addr::new(127, 0, 0, 2);
    let mut held = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for i in 0..40u64 {
        let mut c = greeted_from(server.addr(), flooder, "many").await;
        // Options of its own each, so that none pairs with another.
        c.send_json(
            json!({"type": "seek", "game": "nimrod", "options": {"piles": [i + 1, i + 50]}}),
        )
        .await;
        let got = c
            .expect(|m| match m {
                ServerMsg::Seeking { .. } => Some(Ok(())),
                ServerMsg::Error { code, .. } => Some(Err(*code)),
                _ => None,
            })
            .await;
        match got {
            Ok(()) => accepted += 1,
            Err(code) => {
                assert_eq!(code, ErrorCode::SeekTooMany);
                refused += 1;
            }
        }
        held.push(c);
    }
    println!("40 connections from one address: {accepted} seeks waiting, {refused} refused seek/too_many");
    assert_eq!((accepted, refused), (32, 8));
    let took = others_still_pair(&server).await;
    println!("meanwhile two other players were matched in {took:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn one_address_pairing_with_itself_makes_no_more_rooms_than_its_cap() {
    let server = server().await;
    let flooder = Ipv4Addr::new(127, 0, 0, 3);
    let mut clients = Vec::new();
    for _ in 0..80 {
        let mut c = greeted_from(server.addr(), flooder, "self").await;
        c.send_json(json!({"type": "seek", "game": "nimrod"})).await;
        clients.push(c);
    }
    let (mut seated, mut refused) = (0, 0);
    for c in clients.iter_mut() {
        let got = c
            .expect(|m| match m {
                ServerMsg::Matched { .. } => Some(true),
                ServerMsg::SeekEnded {
                    reason: SeekEnd::Refused,
                    ..
                } => Some(false),
                _ => None,
            })
            .await;
        if got {
            seated += 1;
        } else {
            refused += 1;
        }
    }
    println!("80 seekers from one address: {seated} seated, {refused} refused (room/too_many)");
    assert_eq!(seated, 2 * Limits::default().rooms_per_address);
    assert_eq!(seated + refused, 80);
    let took = others_still_pair(&server).await;
    println!("meanwhile two other players were matched in {took:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_flood_of_seeks_and_cancels_is_cut_off_and_others_still_pair() {
    let server = server().await;
    let mut flood = greeted_from(server.addr(), Ipv4Addr::new(127, 0, 0, 4), "flood").await;
    let started = Instant::now();
    let mut sent = 0;
    for _ in 0..2_000 {
        let seek = json!({"type": "seek", "game": "cribbage"}).to_string();
        let cancel = json!({"type": "cancel_seek"}).to_string();
        // A server that stops reading a flooding connection (its replies
        // are not being read either) may leave a send waiting: that ends
        // the flood as surely as an error; what it answered comes next.
        let pair = async {
            flood.send_raw(seek.into()).await.is_ok() && flood.send_raw(cancel.into()).await.is_ok()
        };
        if !tokio::time::timeout(Duration::from_secs(5), pair)
            .await
            .unwrap_or(false)
        {
            break;
        }
        sent += 2;
    }
    // Past its seek budget the seeks are refused before they cost the
    // store anything (so the flood is as cheap to answer on PostgreSQL as
    // in memory); then the connection is rate limited, and closed for
    // flooding.
    let (mut seeking, mut too_fast, mut limited) = (0u32, 0u32, false);
    loop {
        match flood.next().await {
            Received::Msg(ServerMsg::Seeking { .. }) => seeking += 1,
            Received::Msg(ServerMsg::Error {
                code: ErrorCode::SeekTooFast,
                ..
            }) => too_fast += 1,
            Received::Msg(ServerMsg::Error {
                code: ErrorCode::RequestRateLimited,
                ..
            }) => limited = true,
            Received::Msg(_) => {}
            Received::Closed(_) => break,
        }
    }
    let took = started.elapsed();
    println!(
        "a flood of {sent} seek/cancel frames: {seeking} seeks made, {too_fast} refused seek/too_fast, rate limited and closed after {took:?}"
    );
    assert!(limited);
    assert!(too_fast > 0);
    // The burst, and what the budget refilled while the flood lasted.
    let refilled = (took.as_secs_f64() * f64::from(SEEKS_PER_MINUTE) / 60.0).ceil();
    assert!(
        f64::from(seeking) <= f64::from(SEEK_BURST) + refilled,
        "{seeking} seeks in {took:?}"
    );
    let took = others_still_pair(&server).await;
    println!("meanwhile two other players were matched in {took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn challenge_spam_is_bounded_for_the_spammer_and_for_its_target() {
    let server = server().await;
    let url = server.url();
    let (star_token, _) = account_with_token(server.addr(), "star").await;
    let mut star = signed_in(&url, &star_token).await;
    let mut spammers = Vec::new();
    let (mut made, mut refused) = (0, 0);
    for i in 0..20 {
        let (t, _) = account_with_token(server.addr(), &format!("fan-{i}")).await;
        let mut c = signed_in(&url, &t).await;
        c.send_json(json!({"type": "challenge", "to": "star", "game": "nimrod"}))
            .await;
        let got = c
            .expect(|m| match m {
                ServerMsg::ChallengeMade(_) => Some(Ok(())),
                ServerMsg::Error { code, .. } => Some(Err(*code)),
                _ => None,
            })
            .await;
        match got {
            Ok(()) => made += 1,
            Err(code) => {
                assert_eq!(code, ErrorCode::ChallengeTooMany);
                refused += 1;
            }
        }
        spammers.push(c);
    }
    println!("20 players challenging one: {made} reach it, {refused} refused challenge/too_many");
    assert_eq!((made, refused), (16, 4));
    let mut seen = 0;
    while seen < 16 {
        challenge_made(&mut star).await;
        seen += 1;
    }
    // One player challenging many: four open at most.
    let spammer = &mut spammers[19];
    let mut codes = Vec::new();
    for i in 0..6 {
        spammer
            .send_json(json!({"type": "challenge", "to": format!("fan-{i}"), "game": "nimrod"}))
            .await;
        let code = spammer
            .expect(|m| match m {
                ServerMsg::ChallengeMade(_) => Some(None),
                ServerMsg::Error { code, .. } => Some(Some(*code)),
                _ => None,
            })
            .await;
        codes.push(code);
    }
    assert_eq!(codes.iter().filter(|c| c.is_none()).count(), 4, "{codes:?}");
    assert!(codes[4..]
        .iter()
        .all(|c| *c == Some(ErrorCode::ChallengeTooMany)));
    server.stop().await.unwrap();
}

/// A login attempt from `source`; the status.
async fn login_from(addr: SocketAddr, source: Ipv4Addr, name: &str, password: &str) -> u16 {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((source, 0).into()).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    request_on(
        stream,
        addr,
        "POST",
        "/api/login",
        &[],
        Some(json!({"name": name, "password": password})),
    )
    .await
    .status
}

#[tokio::test]
async fn a_thousand_failed_logins_from_one_address_cost_others_nothing() {
    let server = server().await;
    let addr = server.addr();
    account_with_token(addr, "owner").await;
    let attacker = Ipv4Addr::new(127, 0, 0, 5);
    let started = Instant::now();
    let mut statuses = std::collections::BTreeMap::new();
    for i in 0..1_000 {
        let status = login_from(addr, attacker, &format!("victim-{}", i % 50), "wrong guess").await;
        *statuses.entry(status).or_insert(0) += 1;
    }
    let took = started.elapsed();
    println!("1,000 failed logins from one address in {took:?}: {statuses:?}");
    // The first few are checked (and fail); the rest are refused at once.
    assert_eq!(
        statuses.get(&429).copied().unwrap_or(0) + statuses.get(&401).copied().unwrap_or(0),
        1_000
    );
    assert!(
        statuses.get(&401).copied().unwrap_or(0) <= 20,
        "{statuses:?}"
    );
    // The owner, from another address, logs in at once.
    let owner = Instant::now();
    let status = login_from(addr, Ipv4Addr::new(127, 0, 0, 6), "owner", "correct horse").await;
    println!(
        "meanwhile the owner logged in from elsewhere in {:?}",
        owner.elapsed()
    );
    assert_eq!(status, 200);
    server.stop().await.unwrap();
}
