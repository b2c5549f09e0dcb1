//! Accounts end to end over the game port: registration, login and its
//! cookie, API tokens, players' pages, the origin rule for cookies, rate
//! limits, and (see `identity`) tokens on the WebSocket. Runs on SQLite,
//! or with `PARLOR_TEST_STORE=postgres` on a cluster node.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use parlor_protocol::{AccountInfo, ClientMsg, ErrorCode, ServerMsg, PROTOCOL_VERSION};
use parlor_server::limits::Limits;
use parlor_server::Config;
use parlor_tests::http::{account_with_token, basic, bearer, login, register, request};
use parlor_tests::{start_server, start_server_with, Raw, Received, TestStore};
use serde_json::json;
use tokio::net::TcpStream;

#[tokio::test]
async fn register_login_and_names_unique_across_case() {
    let server = start_server(None).await;
    let addr = server.addr();
    let made = register(addr, "Alice", "human").await;
    assert_eq!(made.status, 201, "{made:?}");
    assert_eq!(made.body, json!({"name": "Alice", "kind": "human"}));
    let again = register(addr, "aLICE", "bot").await;
    assert_eq!((again.status, again.code()), (409, "account/name_taken"));
    let bad = register(addr, "a b", "human").await;
    assert_eq!((bad.status, bad.code()), (400, "account/bad_name"));
    let reserved = register(addr, "Admin", "human").await;
    assert_eq!(
        (reserved.status, reserved.code()),
        (400, "account/name_reserved")
    );
    let short = request(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(json!({"name": "bobby", "password": "short"})),
    )
    .await;
    assert_eq!((short.status, short.code()), (400, "account/bad_password"));
    let junk = request(addr, "POST", "/api/accounts", &[], Some(json!([1]))).await;
    assert_eq!((junk.status, junk.code()), (400, "http/bad_json"));

    let wrong = login(addr, "alice", "wrong password").await;
    assert_eq!((wrong.status, wrong.code()), (401, "auth/bad_credentials"));
    let ok = login(addr, "alice", "correct horse").await;
    assert_eq!(ok.status, 200, "{ok:?}");
    assert_eq!(ok.body["name"], "Alice", "the name as spelled at creation");
    let cookie = ok.header("set-cookie").unwrap();
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=2592000"] {
        assert!(cookie.contains(attr), "{cookie} lacks {attr}");
    }
    assert!(
        !cookie.contains("Secure"),
        "no Secure without TLS: {cookie}"
    );

    let page = request(addr, "GET", "/api/players/ALICE", &[], None).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.body["name"], "Alice");
    assert_eq!(page.body["kind"], "human");
    assert!(page.body["created"].as_i64().unwrap() > 0);
    assert_eq!(page.body["games"], json!({}));
    let none = request(addr, "GET", "/api/players/nobody", &[], None).await;
    assert_eq!((none.status, none.code()), (404, "account/not_found"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn tokens_are_made_listed_used_and_revoked_and_never_shown_again() {
    let server = start_server(None).await;
    let addr = server.addr();
    assert_eq!(register(addr, "botmaker", "bot").await.status, 201);
    let none = request(
        addr,
        "POST",
        "/api/tokens",
        &[],
        Some(json!({"label": "x"})),
    )
    .await;
    assert_eq!((none.status, none.code()), (401, "auth/required"));
    let wrong = request(
        addr,
        "POST",
        "/api/tokens",
        &[basic("botmaker", "not it at all")],
        Some(json!({"label": "x"})),
    )
    .await;
    assert_eq!((wrong.status, wrong.code()), (401, "auth/bad_credentials"));
    let made = request(
        addr,
        "POST",
        "/api/tokens",
        &[basic("botmaker", "correct horse")],
        Some(json!({"label": "ladder bot"})),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let token = made.body["token"].as_str().unwrap().to_owned();
    let id = made.body["id"].as_i64().unwrap();
    assert!(token.starts_with("parlor_"));

    let listed = request(addr, "GET", "/api/tokens", &[bearer(&token)], None).await;
    assert_eq!(listed.status, 200, "{listed:?}");
    let tokens = listed.body["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0]["id"], id);
    assert_eq!(tokens[0]["label"], "ladder bot");
    assert!(
        !listed.body.to_string().contains(&token),
        "listed, never shown"
    );

    // A session makes tokens too.
    let session = login(addr, "botmaker", "correct horse").await.session();
    let second = request(
        addr,
        "POST",
        "/api/tokens",
        &[
            ("Cookie", format!("parlor_session={session}")),
            ("Origin", format!("http://{addr}")),
        ],
        Some(json!({"label": "second"})),
    )
    .await;
    assert_eq!(second.status, 201, "{second:?}");

    let metrics = request(addr, "GET", "/metrics", &[], None).await;
    assert!(
        !format!("{metrics:?}").contains(&token),
        "not in the metrics"
    );

    let gone = request(
        addr,
        "DELETE",
        &format!("/api/tokens/{id}"),
        &[bearer(&token)],
        None,
    )
    .await;
    assert_eq!(gone.status, 204, "{gone:?}");
    let refused = request(addr, "GET", "/api/tokens", &[bearer(&token)], None).await;
    assert_eq!(
        (refused.status, refused.code()),
        (401, "auth/invalid_token")
    );
    let junk = request(
        addr,
        "GET",
        "/api/tokens",
        &[bearer("parlor_nonsense")],
        None,
    )
    .await;
    assert_eq!((junk.status, junk.code()), (401, "auth/invalid_token"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_cookie_from_a_foreign_origin_is_refused_and_logout_ends_the_session() {
    let server = start_server(None).await;
    let addr = server.addr();
    assert_eq!(register(addr, "carol", "human").await.status, 201);
    let session = login(addr, "carol", "correct horse").await.session();
    let cookie = ("Cookie", format!("parlor_session={session}"));
    let evil = request(
        addr,
        "POST",
        "/api/tokens",
        &[cookie.clone(), ("Origin", "http://evil.example".into())],
        None,
    )
    .await;
    assert_eq!((evil.status, evil.code()), (403, "auth/bad_origin"));
    let no_origin = request(
        addr,
        "POST",
        "/api/tokens",
        std::slice::from_ref(&cookie),
        None,
    )
    .await;
    assert_eq!(
        (no_origin.status, no_origin.code()),
        (403, "auth/bad_origin")
    );
    // Without the cookie the origin does not matter.
    let guest = request(
        addr,
        "POST",
        "/api/accounts",
        &[("Origin", "http://evil.example".into())],
        Some(json!({"name": "dave", "password": "correct horse"})),
    )
    .await;
    assert_eq!(guest.status, 201, "{guest:?}");
    // Reading with the cookie needs no origin.
    let listed = request(
        addr,
        "GET",
        "/api/tokens",
        std::slice::from_ref(&cookie),
        None,
    )
    .await;
    assert_eq!(listed.status, 200, "{listed:?}");
    let out = request(
        addr,
        "POST",
        "/api/logout",
        &[cookie.clone(), ("Origin", format!("http://{addr}"))],
        None,
    )
    .await;
    assert_eq!(out.status, 204, "{out:?}");
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    let after = request(addr, "GET", "/api/tokens", &[cookie], None).await;
    assert_eq!((after.status, after.code()), (401, "auth/invalid_token"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn failed_logins_are_rate_limited_with_a_retry_time() {
    let server = start_server(None).await;
    let addr = server.addr();
    assert_eq!(register(addr, "erin", "human").await.status, 201);
    let limit = parlor_server::limits::LOGIN_FAILURES_PER_NAME;
    for _ in 0..limit {
        let a = login(addr, "erin", "not the password").await;
        assert_eq!(a.code(), "auth/bad_credentials");
    }
    let limited = login(addr, "ERIN", "correct horse").await;
    assert_eq!((limited.status, limited.code()), (429, "auth/rate_limited"));
    assert!(limited.body["retry_after_ms"].as_u64().unwrap() > 0);
    assert!(limited.header("retry-after").is_some());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn account_creation_is_limited_per_address() {
    let server = start_server_with(Config {
        limits: Limits {
            accounts_per_address_hour: 2,
            ..Limits::default()
        },
        ..Config::default()
    })
    .await;
    let addr = server.addr();
    assert_eq!(register(addr, "one_1", "human").await.status, 201);
    assert_eq!(register(addr, "two_2", "human").await.status, 201);
    let third = register(addr, "three_3", "human").await;
    assert_eq!((third.status, third.code()), (429, "auth/rate_limited"));
    assert!(third.body["retry_after_ms"].as_u64().unwrap() > 0);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn oversized_and_chunked_bodies_are_refused() {
    let server = start_server(None).await;
    let addr = server.addr();
    let big = "x".repeat(parlor_server::api::MAX_API_BODY_BYTES);
    let a = request(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(json!({"name": "frank", "password": big})),
    )
    .await;
    assert_eq!((a.status, a.code()), (413, "http/too_large"));
    let m = request(addr, "GET", "/api/accounts", &[], None).await;
    assert_eq!(m.status, 405);
    server.stop().await.unwrap();
}

/// Registers `name` and makes it an API token.
/// Sends `hello` with `token` on `c` and reads the answer.
async fn hello_with(c: &mut Raw, name: &str, token: Option<&str>) -> ServerMsg {
    c.send(&ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        name: Some(name.into()),
        token: token.map(str::to_owned),
    })
    .await;
    match c.next().await {
        Received::Msg(m) => m,
        Received::Closed(f) => panic!("closed: {f:?}"),
    }
}

fn welcome_account(m: &ServerMsg) -> Option<AccountInfo> {
    match m {
        ServerMsg::Welcome { account, .. } => account.clone(),
        other => panic!("not a welcome: {other:?}"),
    }
}

#[tokio::test]
async fn a_token_in_hello_names_the_player_on_the_seat_for_everyone() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (token, id) = account_with_token(addr, "Nimbot").await;
    let mut bot = Raw::connect(&server.url()).await;
    let welcome = hello_with(&mut bot, "whatever", Some(&token)).await;
    assert_eq!(
        welcome_account(&welcome),
        Some(AccountInfo {
            name: "Nimbot".into(),
            kind: "bot".into(),
            role: Some("player".into()),
        })
    );
    // A guest asking for the account's name (in any case) is refused, and
    // may say hello again with another.
    let mut guest = Raw::connect(&server.url()).await;
    let refused = hello_with(&mut guest, "nimbot", None).await;
    assert!(
        matches!(
            refused,
            ServerMsg::Error {
                code: ErrorCode::RoomBadName,
                ..
            }
        ),
        "{refused:?}"
    );
    let welcome = hello_with(&mut guest, "nimfan", None).await;
    assert_eq!(welcome_account(&welcome), None);
    let room = guest.create("nimrod", json!({"piles": [2, 3]}), None).await;
    bot.join(&room, 0).await;
    let u = guest.join(&room, 1).await;
    let seats = serde_json::to_value(&u.seats).unwrap();
    assert_eq!(seats[0]["name"], "Nimbot");
    assert_eq!(seats[0]["account"], true);
    assert_eq!(seats[1]["name"], "nimfan");
    assert!(seats[1].get("account").is_none(), "{seats}");
    let mut watcher = Raw::greeted(&server.url(), "watcher").await;
    watcher
        .send_json(json!({"type": "spectate", "room": room.to_string()}))
        .await;
    let seen = watcher.update(&room).await;
    let seats = serde_json::to_value(&seen.seats).unwrap();
    assert_eq!(seats[0]["account"], true, "everyone sees the account");

    // Revoked: refused with its code, and the connection closes.
    let gone = request(
        addr,
        "DELETE",
        &format!("/api/tokens/{id}"),
        &[bearer(&token)],
        None,
    )
    .await;
    assert_eq!(gone.status, 204);
    let mut again = Raw::connect(&server.url()).await;
    match hello_with(&mut again, "x", Some(&token)).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::AuthInvalidToken),
        other => panic!("{other:?}"),
    }
    assert!(matches!(again.next().await, Received::Closed(_)));
    server.stop().await.unwrap();
}

/// Opens a WebSocket to `addr` with extra headers on the upgrade; the
/// handshake's error if it is refused.
async fn upgrade(addr: SocketAddr, headers: &[(&str, String)]) -> Result<Raw, String> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}").into_client_request().unwrap();
    for (n, v) in headers {
        req.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(n.as_bytes()).unwrap(),
            v.parse().unwrap(),
        );
    }
    let tcp = TcpStream::connect(addr).await.unwrap();
    match tokio_tungstenite::client_async(req, tokio_tungstenite::MaybeTlsStream::Plain(tcp)).await
    {
        Ok((ws, _)) => Ok(Raw::from_stream(ws)),
        Err(e) => Err(e.to_string()),
    }
}

#[tokio::test]
async fn bearer_and_cookie_on_the_upgrade_and_the_origin_rule() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (token, _) = account_with_token(addr, "upbot").await;
    let mut c = upgrade(addr, &[bearer(&token)]).await.unwrap();
    let welcome = hello_with(&mut c, "ignored", None).await;
    assert_eq!(
        welcome_account(&welcome).map(|a| a.name),
        Some("upbot".into())
    );

    let session = login(addr, "upbot", "correct horse").await.session();
    let cookie = ("Cookie", format!("parlor_session={session}"));
    let evil = upgrade(
        addr,
        &[cookie.clone(), ("Origin", "http://evil.example".into())],
    )
    .await;
    let err = evil.expect_err("a foreign origin with the cookie is refused");
    assert!(err.contains("403"), "{err}");
    let mut own = upgrade(addr, &[cookie, ("Origin", format!("http://{addr}"))])
        .await
        .unwrap();
    let welcome = hello_with(&mut own, "ignored", None).await;
    assert_eq!(
        welcome_account(&welcome).map(|a| a.name),
        Some("upbot".into())
    );
    // Without the cookie any origin is a guest as before.
    let mut guest = upgrade(addr, &[("Origin", "http://evil.example".into())])
        .await
        .unwrap();
    assert_eq!(
        welcome_account(&hello_with(&mut guest, "g", None).await),
        None
    );
    // A bad bearer token: refused at hello with its code.
    let mut bad = upgrade(addr, &[bearer("parlor_0")]).await.unwrap();
    match hello_with(&mut bad, "x", None).await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::AuthInvalidToken),
        other => panic!("{other:?}"),
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn passwords_from_this_machine_are_accepted_without_tls() {
    // The refusal for other addresses is decided by
    // `password_allowed` (unit-tested); tests reach only loopback.
    let server = start_server(None).await;
    let made = register(server.addr(), "local_1", "human").await;
    assert_eq!(made.status, 201);
    assert!(!parlor_server::accounts::service::password_allowed(
        false,
        [10, 0, 0, 2].into(),
        false
    ));
    server.stop().await.unwrap();
}

/// A seat rebuilt from the log after a restart keeps its name but not its
/// account mark (the log keeps names); the account resuming it with an
/// authenticated connection marks it again, for everyone.
#[tokio::test]
async fn an_account_seat_is_marked_again_when_its_player_resumes_after_a_restart() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let (token, _) = account_with_token(server.addr(), "Keeper").await;
    let mut bot = Raw::connect(&server.url()).await;
    let resume = match hello_with(&mut bot, "x", Some(&token)).await {
        ServerMsg::Welcome { token, .. } => token,
        other => panic!("not a welcome: {other:?}"),
    };
    let mut guest = Raw::greeted(&server.url(), "guest").await;
    let room = guest.create("nimrod", json!({"piles": [5, 9]}), None).await;
    bot.join(&room, 0).await;
    guest.join(&room, 1).await;
    drop((bot, guest));
    server.stop().await.unwrap();

    let server = start_server(Some(&store)).await;
    let mut back = Raw::connect(&server.url()).await;
    hello_with(&mut back, "x", Some(&token)).await;
    back.send(&ClientMsg::Resume { token: resume }).await;
    let u = back.update(&room).await;
    let seats = serde_json::to_value(&u.seats).unwrap();
    assert_eq!(seats[0]["name"], "Keeper");
    assert_eq!(seats[0]["account"], true, "{seats}");
    server.stop().await.unwrap();
}
