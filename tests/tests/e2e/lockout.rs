//! Strangers cannot lock an owner out (OWASP's device cookies): a login
//! gives its browser or CLI a `parlor_device` cookie; later logins for
//! that account presenting it are limited per device, so failures for
//! the name from anywhere else never keep it out, while logins without
//! one keep the per-name and per-address limits. Clients' addresses come
//! from a trusted proxy's `X-Forwarded-For` (with `X-Forwarded-Proto:
//! https`, so passwords are accepted from them).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Instant;

use parlor_server::http::Proxies;
use parlor_server::Config;
use parlor_tests::http::{register, request, Answer};
use parlor_tests::start_server_with;
use serde_json::json;

/// A login for `name` with `password` from `from`, presenting the device
/// cookie `device` if given.
async fn login_from(
    addr: SocketAddr,
    from: &str,
    name: &str,
    password: &str,
    device: Option<&str>,
) -> Answer {
    let mut headers = vec![
        ("X-Forwarded-For", from.to_owned()),
        ("X-Forwarded-Proto", "https".to_owned()),
    ];
    if let Some(d) = device {
        headers.push(("Cookie", format!("parlor_device={d}")));
    }
    request(
        addr,
        "POST",
        "/api/login",
        &headers,
        Some(json!({"name": name, "password": password})),
    )
    .await
}

/// The device cookie an answer set, with its attributes checked.
fn device_of(a: &Answer) -> String {
    let set = a
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, v)| v.as_str())
        .find(|v| v.starts_with("parlor_device="))
        .unwrap_or_else(|| panic!("no device cookie (status {})", a.status));
    for attribute in ["HttpOnly", "SameSite=Strict", "Secure", "Path=/"] {
        assert!(set.contains(attribute), "{attribute} missing: {set}");
    }
    let max_age: u64 = set
        .split("Max-Age=")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(max_age >= 30 * 24 * 3600, "long-lived: {set}");
    set.split(';')
        .next()
        .and_then(|p| p.strip_prefix("parlor_device="))
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_wrong_passwords_from_ten_addresses_do_not_lock_out_the_owners_device() {
    let server = start_server_with(Config {
        proxies: Proxies::new(vec!["127.0.0.0/8".parse().unwrap()]),
        ..Config::default()
    })
    .await;
    let addr = server.addr();
    assert_eq!(register(addr, "owner", "human").await.status, 201);
    assert_eq!(register(addr, "eve", "human").await.status, 201);
    let home = "203.0.113.9";
    let first = login_from(addr, home, "owner", "correct horse", None).await;
    assert_eq!(first.status, 200, "{}", first.code());
    let device = device_of(&first);
    let eves = device_of(&login_from(addr, "203.0.113.66", "eve", "correct horse", None).await);

    let mut refused = 0;
    for i in 0..50 {
        let from = format!("198.51.100.{}", i % 10 + 1);
        let a = login_from(addr, &from, "owner", "wrong horse", None).await;
        match a.status {
            401 => {}
            429 => refused += 1,
            s => panic!("{s}: {}", a.code()),
        }
    }
    assert!(
        refused >= 40,
        "the name's limit holds for strangers: {refused}"
    );
    // Without the device cookie (or with another account's) the owner
    // waits out the window, as before...
    for cookie in [None, Some(eves.as_str())] {
        let a = login_from(addr, home, "owner", "correct horse", cookie).await;
        assert_eq!((a.status, a.code()), (429, "auth/rate_limited"));
    }
    // ...but with it, they are in at once, and given no second cookie.
    let started = Instant::now();
    let a = login_from(addr, home, "owner", "correct horse", Some(&device)).await;
    assert_eq!(a.status, 200, "{}", a.code());
    assert!(started.elapsed().as_secs() < 5);
    assert!(!a
        .headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("set-cookie") && v.starts_with("parlor_device=")));

    // A device has its own allowance: a stolen cookie guesses no faster.
    let mut limited = false;
    for _ in 0..12 {
        let a = login_from(addr, home, "owner", "wrong horse", Some(&device)).await;
        limited |= a.status == 429;
    }
    assert!(limited, "the device's failures are limited");
    server.stop().await.unwrap();
}
