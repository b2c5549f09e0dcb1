//! Talking at the table through the binary: `/say` and `/gg` typed in
//! `parlor play` reach the other player, whose messages are printed as
//! `[chat] NAME: TEXT`; `parlor watch` speaks on the spectators' channel.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::session;

use parlor_cli::Client;
use parlor_games::Seat;
use parlor_protocol::{ChatLine, ClientMsg, Phrase, RoomId, ServerMsg};
use parlor_server::{Config, Server};
use session::Session;

/// The next chat message `c` hears.
async fn said(c: &mut Client) -> ChatLine {
    loop {
        match c.recv().await.unwrap_or_else(|e| panic!("{e}")) {
            ServerMsg::Said { line, .. } => return line,
            ServerMsg::Error { code, message, .. } => panic!("refused: {code} {message}"),
            _ => {}
        }
    }
}

#[test]
fn say_reaches_the_other_player_and_their_answer_is_printed() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt
        .block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap();
    let url = server.url();
    let mut p = Session::start(&[
        "play",
        "nimrod",
        "--server",
        &url,
        "--vs",
        "none",
        "--seat",
        "1",
        "--name",
        "typist",
        "--options",
        r#"{"piles":[5,9]}"#,
    ]);
    let created = p.expect("Created room ");
    let room = created
        .trim_start_matches("Created room ")
        .trim_end_matches('.')
        .to_owned();
    let room = RoomId::new(&room).unwrap();
    let mut other = rt.block_on(Client::connect(&url, "other")).unwrap();
    rt.block_on(other.request(
        &ClientMsg::Join {
            room: room.clone(),
            seat: Some(Seat(0)),
            client_seed: None,
        },
        |m| matches!(m, ServerMsg::Joined { .. }).then_some(()),
    ))
    .unwrap();
    p.expect("Waiting for other (guest)");

    p.send("/say hello there");
    let heard = rt.block_on(said(&mut other));
    assert_eq!(
        (heard.name.as_str(), heard.text.as_str()),
        ("typist", "hello there")
    );
    rt.block_on(other.send(&ClientMsg::Say {
        room: room.clone(),
        text: Some("hi back".into()),
        phrase: None,
        to: None,
    }))
    .unwrap();
    p.expect("[chat] other: hi back");
    p.send("/gg");
    // `other` hears its own message first, then the phrase.
    assert_eq!(rt.block_on(said(&mut other)).text, "hi back");
    let gg = rt.block_on(said(&mut other));
    assert_eq!(gg.phrase, Some(Phrase::GoodGame));
    // A chat refusal is told and the game goes on.
    p.send(&format!("/say {}", "x".repeat(301)));
    p.expect("Chat refused:");

    // A spectator in `parlor watch` talks on its own channel.
    let mut w = Session::start(&["watch", room.as_str(), "--server", &url]);
    w.expect("== nimrod");
    w.send("/say who wins?");
    w.expect("[spectators] parlor-watch: who wins?");

    rt.block_on(other.send(&ClientMsg::Leave { room })).unwrap();
    p.expect("You win!");
    assert!(p.wait_exit().success(), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}
