//! Credentials that really end: revoking an API token, logging a session
//! out or changing the password (ending other sessions and, with
//! `revoke_tokens`, the tokens) tells every connection made with what
//! ended `auth/revoked` and closes it (code 4002), its seeks cancelled;
//! across a cluster's nodes too (skipped without PostgreSQL and Redis,
//! except under `CI=true`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_protocol::{ClientMsg, ErrorCode, ServerMsg};
use parlor_tests::http::{
    account_of_kind_with_token, account_with_token, basic, bearer, login, register, request,
};
use parlor_tests::seeking::{matched, seek_id, signed_in};
use parlor_tests::{start_server, Raw, Received};
use serde_json::{json, Value};

/// The close code of a connection whose credential ended.
const CLOSE_REVOKED: u16 = 4002;

/// As in `matchmaking_cluster.rs`: no test here waits for a lease.
const LEASE: Duration = Duration::from_millis(2_000);

/// How many requests may still be answered on another node before the
/// credential's end reaches it over the bus (50 ms apart: 5 s at most).
const MAX_ANSWERS_BEFORE_END: u32 = 100;

fn rated_seek() -> Value {
    json!({"type": "seek", "game": "nimrod", "options": {"piles": [2, 3]}, "rated": true})
}

/// Asks `c` for its games (the server may have closed already: a failed
/// send is fine).
async fn ask_games(c: &mut Raw) {
    let games = parlor_protocol::encode(&ClientMsg::MyGames);
    let _ = c
        .send_raw(tokio_tungstenite::tungstenite::Message::Text(games.into()))
        .await;
}

/// Asks `c` for its games until, instead of an answer, the end of its
/// credential comes: `auth/revoked`, then the close frame with code 4002.
/// (On another node the end travels over the bus: a request may still be
/// answered just before it arrives.)
async fn expect_revoked(c: &mut Raw) {
    ask_games(c).await;
    let mut answered = 0;
    loop {
        match c.next().await {
            Received::Msg(ServerMsg::Error {
                code: ErrorCode::AuthRevoked,
                ..
            }) => break,
            Received::Msg(ServerMsg::Seeking { .. }) => {}
            Received::Msg(ServerMsg::Games { .. }) if answered < MAX_ANSWERS_BEFORE_END => {
                answered += 1;
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                ask_games(c).await;
            }
            other => panic!("expected auth/revoked, got {other:?}"),
        }
    }
    match c.next().await {
        Received::Closed(Some(f)) => {
            assert_eq!(u16::from(f.code), CLOSE_REVOKED, "{f:?}");
            assert_eq!(f.reason.as_str(), "auth/revoked");
        }
        other => panic!("expected the close frame, got {other:?}"),
    }
}

/// `c` is still served: a ping is answered.
async fn still_served(c: &mut Raw) {
    c.send(&ClientMsg::Ping { id: Some(7) }).await;
    c.expect(|m| matches!(m, ServerMsg::Pong { .. }).then_some(()))
        .await;
}

/// Two seekers after the revoked one are paired with each other: the
/// revoked connection's rated seek was cancelled, not left to be matched.
async fn its_seek_is_gone(at_b: &str, at_c: &str, revoked: &str) {
    let (tb, _) = account_with_token(addr_of(at_b), "bea").await;
    let (tc, _) = account_with_token(addr_of(at_c), "cyd").await;
    let mut b = signed_in(at_b, &tb).await;
    let sb = seek_id(&mut b, rated_seek()).await;
    let mut c = signed_in(at_c, &tc).await;
    let sc = seek_id(&mut c, rated_seek()).await;
    let (room, _, players, _) = matched(&mut b, sb).await;
    let (room_c, _, _, _) = matched(&mut c, sc).await;
    assert_eq!(room, room_c);
    assert!(!players.iter().any(|p| p == revoked), "{players:?}");
}

/// The address of the server at WebSocket URL `url`.
fn addr_of(url: &str) -> SocketAddr {
    url.trim_start_matches("ws://")
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|e| panic!("{url}: {e}"))
}

/// A WebSocket connection signed in with the session cookie `session`.
async fn with_session(addr: SocketAddr, session: &str) -> Raw {
    let cookie = format!("parlor_session={session}");
    let origin = format!("http://{addr}");
    Raw::greeted_with_headers(
        &format!("ws://{addr}/"),
        &[("Cookie", &cookie), ("Origin", &origin)],
        "",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_tokens_socket_is_told_and_closed_and_its_rated_seek_cancelled() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (token, id) = account_with_token(addr, "ada").await;
    let mut ada = signed_in(&server.url(), &token).await;
    seek_id(&mut ada, rated_seek()).await;
    let revoked = request(
        addr,
        "DELETE",
        &format!("/api/tokens/{id}"),
        &[bearer(&token)],
        None,
    )
    .await;
    assert_eq!(revoked.status, 204, "{}", revoked.code());
    expect_revoked(&mut ada).await;
    its_seek_is_gone(&server.url(), &server.url(), "ada").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_out_ends_the_sessions_socket() {
    let server = start_server(None).await;
    let addr = server.addr();
    assert_eq!(register(addr, "lou", "human").await.status, 201);
    let session = login(addr, "lou", "correct horse").await.session();
    let other = login(addr, "lou", "correct horse").await.session();
    let mut lou = with_session(addr, &session).await;
    let mut elsewhere = with_session(addr, &other).await;
    let out = request(
        addr,
        "POST",
        "/api/logout",
        &[
            ("Cookie", format!("parlor_session={session}")),
            ("Origin", format!("http://{addr}")),
        ],
        None,
    )
    .await;
    assert_eq!(out.status, 204, "{}", out.code());
    expect_revoked(&mut lou).await;
    still_served(&mut elsewhere).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_other_sessions_and_with_revoke_tokens_every_token() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (token, _) = account_of_kind_with_token(addr, "pat", "human").await;
    let mine = login(addr, "pat", "correct horse").await.session();
    let other = login(addr, "pat", "correct horse").await.session();
    let mut here = with_session(addr, &mine).await;
    let mut there = with_session(addr, &other).await;
    let mut bot = signed_in(&server.url(), &token).await;
    let cookie = [
        ("Cookie", format!("parlor_session={mine}")),
        ("Origin", format!("http://{addr}")),
    ];
    let change = |old: &str, new: &str, revoke: bool| json!({"old_password": old, "new_password": new, "revoke_tokens": revoke});

    let wrong = request(
        addr,
        "POST",
        "/api/password",
        &cookie,
        Some(change("wrong horse", "battery staple", false)),
    )
    .await;
    assert_eq!((wrong.status, wrong.code()), (401, "auth/bad_credentials"));
    let changed = request(
        addr,
        "POST",
        "/api/password",
        &cookie,
        Some(change("correct horse", "battery staple", false)),
    )
    .await;
    assert_eq!(changed.status, 200, "{}", changed.code());
    assert_eq!(changed.body["ended"], 1, "the other session alone");
    expect_revoked(&mut there).await;
    still_served(&mut here).await;
    still_served(&mut bot).await;
    assert_eq!(login(addr, "pat", "correct horse").await.status, 401);
    assert_eq!(login(addr, "pat", "battery staple").await.status, 200);

    // Under HTTP Basic, with `revoke_tokens`: every session and token.
    let again = request(
        addr,
        "POST",
        "/api/password",
        &[basic("pat", "battery staple")],
        Some(json!({"new_password": "horse battery", "revoke_tokens": true})),
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.code());
    expect_revoked(&mut here).await;
    expect_revoked(&mut bot).await;
    let listed = request(
        addr,
        "GET",
        "/api/tokens",
        &[basic("pat", "horse battery")],
        None,
    )
    .await;
    assert_eq!(listed.status, 401, "GET /api/tokens takes no Basic");
    let made = request(
        addr,
        "POST",
        "/api/tokens",
        &[basic("pat", "horse battery")],
        None,
    )
    .await;
    let fresh = made.body["token"].as_str().unwrap().to_owned();
    let listed = request(addr, "GET", "/api/tokens", &[bearer(&fresh)], None).await;
    assert_eq!(listed.body["tokens"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        request(addr, "GET", "/api/tokens", &[bearer(&token)], None)
            .await
            .status,
        401
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_revoked_on_one_node_closes_its_socket_on_another() {
    let Some((_scratch, a, b)) = parlor_tests::two_nodes(LEASE).await else {
        return;
    };
    let (token, id) = account_with_token(a.addr(), "nod").await;
    let mut nod = signed_in(&b.url(), &token).await;
    seek_id(&mut nod, rated_seek()).await;
    let revoked = request(
        a.addr(),
        "DELETE",
        &format!("/api/tokens/{id}"),
        &[bearer(&token)],
        None,
    )
    .await;
    assert_eq!(revoked.status, 204, "{}", revoked.code());
    expect_revoked(&mut nod).await;
    its_seek_is_gone(&b.url(), &a.url(), "nod").await;
}
