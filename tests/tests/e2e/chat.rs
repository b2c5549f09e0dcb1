//! Room chat end to end (on SQLite, or with `PARLOR_TEST_STORE=postgres`
//! on PostgreSQL; across two cluster nodes when PostgreSQL and Redis are
//! there): players and spectators each have their channel, which the
//! other side reads only after the end; the log keeps the players'
//! chat; the limits (length, control characters, rate); guests speak
//! only in casual rooms; a muted account is refused; a block keeps a
//! speaker's messages from the blocker; a resumed player gets the
//! recent chat.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_protocol::{Channel, ChatLine, ErrorCode, Phrase, RoomId, ServerMsg};
use parlor_server::store::{Store, StoreConfig, Sync};
use parlor_server::Config;
use parlor_tests::http::{account_of_kind_with_token, bearer, request};
use parlor_tests::rating::rated_match;
use parlor_tests::seeking::signed_in;
use parlor_tests::{
    match_log, nimrod_pair, play_out_nimrod, resume_at, start_server, start_server_with, Raw,
    TestStore, PATIENCE,
};
use serde_json::{json, Value};

async fn say(c: &mut Raw, room: &RoomId, fields: Value) {
    let mut msg = json!({"type": "say", "room": room});
    if let (Some(m), Some(f)) = (msg.as_object_mut(), fields.as_object()) {
        m.extend(f.clone());
    }
    c.send_json(msg).await;
}

/// The next `said` of `room` on `c` (an error instead fails the test).
async fn said(c: &mut Raw, room: &RoomId) -> ChatLine {
    c.expect(|m| match m {
        ServerMsg::Said { room: r, line } if r == room => Some(line.clone()),
        ServerMsg::Error { code, message, .. } => panic!("refused: {code} {message}"),
        _ => None,
    })
    .await
}

/// The next error on `c`, which must be `code`: its message and detail.
async fn refused(c: &mut Raw, code: ErrorCode) -> (String, Option<Value>) {
    let got = c
        .expect(|m| match m {
            ServerMsg::Error { .. } => Some(m.clone()),
            ServerMsg::Said { line, .. } => panic!("said instead of refused: {line:?}"),
            _ => None,
        })
        .await;
    match got {
        ServerMsg::Error {
            code: c,
            message,
            detail,
            ..
        } if c == code => (message, detail),
        other => panic!("expected {code}, got {other:?}"),
    }
}

async fn spectator(url: &str, name: &str, room: &RoomId) -> Raw {
    let mut w = Raw::greeted(url, name).await;
    w.send_json(json!({"type": "spectate", "room": room})).await;
    w.update(room).await;
    w
}

/// The finished room's log once it holds `n` chat lines (a message is
/// kept a moment after it is heard).
async fn log_with_chat(c: &mut Raw, room: &RoomId, n: usize) -> parlor_protocol::MatchLog {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let log = match_log(c, room).await;
        if log.chat.len() >= n || tokio::time::Instant::now() > deadline {
            return log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn players_and_spectators_each_have_a_channel_until_the_end_and_the_log_keeps_the_players() {
    let server = start_server(None).await;
    let url = server.url();
    let (mut a, mut b, room, start) = nimrod_pair(&url, [3, 4]).await;
    let mut w = spectator(&url, "watcher", &room).await;

    say(&mut a, &room, json!({"text": "  hello bob  "})).await;
    let first = said(&mut a, &room).await;
    assert_eq!(
        (first.id, first.name.as_str(), first.to, first.text.as_str()),
        (1, "alice", Channel::Players, "hello bob")
    );
    assert_eq!(said(&mut b, &room).await, first);

    // The spectator reads its own channel only: its first `said` is its own.
    say(&mut w, &room, json!({"text": "take two from the big pile"})).await;
    let psst = said(&mut w, &room).await;
    assert_eq!((psst.id, psst.to), (2, Channel::Spectators));
    // Wrong channels during the game.
    say(&mut w, &room, json!({"text": "hi", "to": "players"})).await;
    refused(&mut w, ErrorCode::ChatNotAllowed).await;
    say(&mut a, &room, json!({"text": "hi", "to": "spectators"})).await;
    refused(&mut a, ErrorCode::ChatNotAllowed).await;

    // A phrase; the players' next `said` is it, not the spectator's.
    say(&mut b, &room, json!({"phrase": "good_luck"})).await;
    for c in [&mut a, &mut b] {
        let line = said(c, &room).await;
        assert_eq!(
            (line.id, line.phrase, line.text.as_str(), line.name.as_str()),
            (3, Some(Phrase::GoodLuck), "Good luck", "bob")
        );
    }

    let mut players = [a, b];
    let end = play_out_nimrod(&mut players, &room, start).await;
    assert!(end.outcome.is_some());
    let [mut a, mut b] = players;

    // After the end everyone reads both channels.
    say(&mut a, &room, json!({"phrase": "good_game"})).await;
    let gg = said(&mut w, &room).await;
    assert_eq!(
        (gg.id, gg.to, gg.name.as_str()),
        (4, Channel::Players, "alice")
    );
    say(&mut w, &room, json!({"text": "well played both"})).await;
    let after = said(&mut b, &room).await;
    // b's first `said` since the phrase is a's gg, then the spectator's.
    assert_eq!(after.id, 4);
    let spect = said(&mut b, &room).await;
    assert_eq!((spect.id, spect.to), (5, Channel::Spectators));

    let log = log_with_chat(&mut a, &room, 3).await;
    let texts: Vec<&str> = log.chat.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["hello bob", "Good luck", "Good game"]);
    assert!(log.chat.iter().all(|l| l.to == Channel::Players));
    assert_eq!(log.chat[1].phrase, Some(Phrase::GoodLuck));
    // The replay shows it too.
    let replay = request(
        server.addr(),
        "GET",
        &format!("/api/replay/{room}"),
        &[],
        None,
    )
    .await;
    assert_eq!(replay.status, 200, "{replay:?}");
    assert_eq!(replay.body["chat"].as_array().map(Vec::len), Some(3));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn long_texts_control_characters_and_a_sixth_message_in_ten_seconds_are_refused() {
    let server = start_server(None).await;
    let (mut a, _b, room, _) = nimrod_pair(&server.url(), [3, 4]).await;
    say(&mut a, &room, json!({"text": "x".repeat(301)})).await;
    let (why, _) = refused(&mut a, ErrorCode::ChatBadText).await;
    assert!(why.contains("300"), "{why}");
    say(&mut a, &room, json!({"text": "tab\there"})).await;
    refused(&mut a, ErrorCode::ChatBadText).await;
    say(&mut a, &room, json!({"text": "   "})).await;
    refused(&mut a, ErrorCode::ChatBadText).await;
    say(&mut a, &room, json!({})).await;
    refused(&mut a, ErrorCode::ChatBadText).await;
    say(&mut a, &room, json!({"text": "hi", "phrase": "thanks"})).await;
    refused(&mut a, ErrorCode::ChatBadText).await;
    // 300 characters pass (not bytes: each is two).
    say(&mut a, &room, json!({"text": "é".repeat(300)})).await;
    assert_eq!(said(&mut a, &room).await.text.chars().count(), 300);
    for i in 2..=5 {
        say(&mut a, &room, json!({"text": format!("line {i}")})).await;
        assert_eq!(said(&mut a, &room).await.text, format!("line {i}"));
    }
    say(&mut a, &room, json!({"text": "one too many"})).await;
    let (_, detail) = refused(&mut a, ErrorCode::ChatRateLimited).await;
    let wait = detail.and_then(|d| d["retry_after_ms"].as_u64()).unwrap();
    assert!((1..=10_000).contains(&wait), "{wait}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn guests_read_but_speak_only_in_casual_rooms() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (mut players, rated, _) = rated_match(
        addr,
        &url,
        &["chatty", "quiet"],
        "nimrod",
        json!({"piles": [3, 4]}),
    )
    .await;
    let mut guest = spectator(&url, "visitor", &rated).await;
    say(&mut guest, &rated, json!({"text": "hello"})).await;
    refused(&mut guest, ErrorCode::ChatGuestsCasualOnly).await;
    // An account speaks there; the guest player of a casual room too.
    say(&mut players[0], &rated, json!({"text": "glhf"})).await;
    let own = said(&mut players[0], &rated).await;
    assert!(["chatty", "quiet"].contains(&own.name.as_str()), "{own:?}");
    assert_eq!(said(&mut players[1], &rated).await, own);
    let (mut a, mut b, casual, _) = nimrod_pair(&url, [3, 4]).await;
    say(&mut a, &casual, json!({"text": "guests welcome"})).await;
    assert_eq!(said(&mut b, &casual).await.text, "guests welcome");
    let mut casual_guest = spectator(&url, "visitor2", &casual).await;
    say(&mut casual_guest, &casual, json!({"text": "me too"})).await;
    assert_eq!(
        said(&mut casual_guest, &casual).await.to,
        Channel::Spectators
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_muted_account_is_refused_with_when_its_mute_ends() {
    let dir = tempfile::tempdir().unwrap();
    let store = StoreConfig::Sqlite {
        db: Some(dir.path().join("parlor.db")),
        sync: Sync::Normal,
    };
    let server = start_server_with(Config {
        store: store.clone(),
        ..Config::default()
    })
    .await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_of_kind_with_token(addr, "loud", "human").await;
    let mut a = signed_in(&url, &token).await;
    let room = a.create("nimrod", json!({"piles": [3, 4]}), None).await;
    a.join(&room, 0).await;
    let mut b = Raw::greeted(&url, "listener").await;
    b.join(&room, 1).await;

    let (db, _task) = Store::open(&store).await.unwrap();
    let until = parlor_server::clock::now_ms_signed() + 3_600_000;
    let beside = db.beside();
    let set = |v: Option<i64>| {
        let beside = beside.clone();
        async move {
            beside
                .exec(
                    "UPDATE accounts SET muted_until_ms = $1 WHERE name_key = 'loud'",
                    vec![v.into()],
                )
                .await
        }
    };
    assert_eq!(set(Some(until)).await.unwrap(), 1);
    say(&mut a, &room, json!({"text": "can you hear me"})).await;
    let (_, detail) = refused(&mut a, ErrorCode::ChatMuted).await;
    assert_eq!(detail.and_then(|d| d["until_ms"].as_i64()), Some(until));
    // The mute lifted, the same connection speaks at once.
    set(None).await.unwrap();
    say(&mut a, &room, json!({"text": "now?"})).await;
    assert_eq!(said(&mut b, &room).await.text, "now?");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_blocked_speaker_never_reaches_the_blocker_nor_the_other_way() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let (ta, _) = account_of_kind_with_token(addr, "blocker", "human").await;
    let (tb, _) = account_of_kind_with_token(addr, "pest", "human").await;
    let blocked = request(addr, "POST", "/api/blocks/pest", &[bearer(&ta)], None).await;
    assert_eq!(blocked.status, 201, "{blocked:?}");
    let mut a = signed_in(&url, &ta).await;
    let room = a.create("nimrod", json!({"piles": [3, 4]}), None).await;
    a.join(&room, 0).await;
    let mut b = signed_in(&url, &tb).await;
    b.join(&room, 1).await;
    say(&mut b, &room, json!({"text": "you there?"})).await;
    assert_eq!(said(&mut b, &room).await.text, "you there?");
    say(&mut a, &room, json!({"text": "mine"})).await;
    // The blocker's next `said` is its own, not the pest's.
    assert_eq!(said(&mut a, &room).await.text, "mine");
    say(&mut b, &room, json!({"text": "again"})).await;
    assert_eq!(said(&mut b, &room).await.text, "again");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_resumed_player_gets_the_recent_players_chat_and_a_spectator_its_own() {
    let server = start_server(None).await;
    let url = server.url();
    let (mut a, mut b, room, _) = nimrod_pair(&url, [3, 4]).await;
    let mut w = spectator(&url, "watcher", &room).await;
    say(&mut a, &room, json!({"text": "one"})).await;
    said(&mut b, &room).await;
    say(&mut b, &room, json!({"text": "two"})).await;
    said(&mut b, &room).await;
    say(&mut w, &room, json!({"text": "psst"})).await;
    said(&mut w, &room).await;
    let token = b.token;
    b.close().await;
    let mut again = resume_at(&url, token).await;
    let (to, lines) = again
        .expect(|m| match m {
            ServerMsg::ChatHistory { room: r, to, lines } if *r == room => {
                Some((*to, lines.clone()))
            }
            _ => None,
        })
        .await;
    assert_eq!(to, Channel::Players);
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["one", "two"]);
    let mut late = Raw::greeted(&url, "late").await;
    late.send_json(json!({"type": "spectate", "room": room}))
        .await;
    let (to, lines) = late
        .expect(|m| match m {
            ServerMsg::ChatHistory { to, lines, .. } => Some((*to, lines.clone())),
            _ => None,
        })
        .await;
    assert_eq!(to, Channel::Spectators);
    assert_eq!(
        lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(),
        ["psst"]
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_message_said_on_one_node_reaches_a_player_on_the_other() {
    let Some((_scratch, na, nb)) = parlor_tests::two_nodes(Duration::from_millis(2_000)).await
    else {
        return;
    };
    let mut a = Raw::greeted(&na.url(), "alice").await;
    let room = a.create("nimrod", json!({"piles": [3, 4]}), None).await;
    a.join(&room, 0).await;
    let mut b = Raw::greeted(&nb.url(), "bob").await;
    b.join(&room, 1).await;
    say(&mut a, &room, json!({"text": "from node A"})).await;
    let heard = said(&mut b, &room).await;
    assert_eq!(
        (heard.text.as_str(), heard.name.as_str()),
        ("from node A", "alice")
    );
    assert_eq!(said(&mut a, &room).await, heard);
    say(&mut b, &room, json!({"text": "from node B"})).await;
    let back = said(&mut a, &room).await;
    assert_eq!((back.text.as_str(), back.id), ("from node B", heard.id + 1));
}

#[tokio::test]
async fn the_chat_outlives_a_restart_and_its_ids_go_on_rising() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let (mut a, mut b, room, _) = nimrod_pair(&server.url(), [3, 4]).await;
    say(&mut a, &room, json!({"text": "before the restart"})).await;
    assert_eq!(said(&mut b, &room).await.id, 1);
    let token = a.token;
    drop((a, b));
    server.stop().await.unwrap();

    let server = start_server(Some(&store)).await;
    let mut a = resume_at(&server.url(), token).await;
    let lines = a
        .expect(|m| match m {
            ServerMsg::ChatHistory { room: r, lines, .. } if *r == room => Some(lines.clone()),
            _ => None,
        })
        .await;
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["before the restart"]);
    say(&mut a, &room, json!({"text": "and after"})).await;
    assert_eq!(said(&mut a, &room).await.id, 2);
    server.stop().await.unwrap();
}
