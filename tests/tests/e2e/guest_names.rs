//! A guest cannot pass for someone else: its name follows an account
//! name's character rules (no zero-width characters, bidirectional
//! overrides, Cyrillic or fullwidth look-alikes, combining marks) and is
//! never an account's name in any case (`room/bad_name`, and the
//! connection may say hello again); seats mark guests as not accounts.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_protocol::{ClientMsg, ErrorCode, Occupant, ServerMsg, PROTOCOL_VERSION};
use parlor_tests::http::account_with_token;
use parlor_tests::seeking::signed_in;
use parlor_tests::{start_server, Raw, Received};
use serde_json::json;

async fn hello(c: &mut Raw, name: &str) -> ServerMsg {
    c.send(&ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        name: Some(name.into()),
        token: None,
    })
    .await;
    match c.next().await {
        Received::Msg(m) => m,
        Received::Closed(f) => panic!("closed: {f:?}"),
    }
}

#[tokio::test]
async fn look_alike_and_account_names_are_refused_to_guests_and_guests_are_marked() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_with_token(addr, "Alice").await;

    let mut guest = Raw::connect(&url).await;
    for name in [
        "al\u{200b}ice", // a zero-width space
        "\u{202e}ecilA", // a right-to-left override
        "\u{0410}lice",  // Cyrillic A
        "\u{ff21}lice",  // fullwidth A
        "Alice\u{0301}", // a combining acute accent
        "ALICE",         // the account's name in another case
        "alice",
    ] {
        let answer = hello(&mut guest, name).await;
        assert!(
            matches!(
                answer,
                ServerMsg::Error {
                    code: ErrorCode::RoomBadName,
                    ..
                }
            ),
            "{name:?}: {answer:?}"
        );
    }
    // The connection survives and may greet again with a fair name.
    let answer = hello(&mut guest, "alice-fan").await;
    assert!(
        matches!(answer, ServerMsg::Welcome { account: None, .. }),
        "{answer:?}"
    );

    // Seats say who is an account and who a guest.
    let mut alice = signed_in(&url, &token).await;
    let room = guest.create("nimrod", json!({"piles": [2, 3]}), None).await;
    alice.join(&room, 0).await;
    let u = guest.join(&room, 1).await;
    match (&u.seats[0].occupant, &u.seats[1].occupant) {
        (
            Occupant::Player {
                name: a,
                account: true,
                ..
            },
            Occupant::Player {
                name: g,
                account: false,
                ..
            },
        ) => assert_eq!((a.as_str(), g.as_str()), ("Alice", "alice-fan")),
        other => panic!("{other:?}"),
    }
    server.stop().await.unwrap();
}
