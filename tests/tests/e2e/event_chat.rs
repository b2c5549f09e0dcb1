//! A tournament page's chat end to end, over HTTP (on SQLite, or with
//! `PARLOR_TEST_STORE=postgres` on PostgreSQL as a cluster node):
//! entrants and watchers speak and read it, guests only read; the text,
//! the rate (per account, over every event), a moderator's mute and
//! blocks are held as room chat holds them; an event that is over keeps
//! its chat readable but takes no more messages; a report names a
//! message of it, which the server quotes for the moderators.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use parlor_tests::http::{account_of_kind_with_token, bearer, request, Answer};
use parlor_tests::{start_server, TestStore};
use serde_json::{json, Value};

fn now_ms() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// An event by the account of `token` starting `in_ms` from now; its id.
async fn event(addr: SocketAddr, token: &str, in_ms: u64) -> String {
    let made = request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(token)],
        Some(json!({"game": "nimrod", "format": "round-robin", "starts_at_ms": now_ms() + in_ms})),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    made.body["id"].as_str().unwrap().to_owned()
}

/// Says `body` in event `id`'s chat as `token` (`None`: a guest).
async fn say(addr: SocketAddr, id: &str, token: Option<&str>, body: Value) -> Answer {
    let headers: Vec<(&str, String)> = token.map(bearer).into_iter().collect();
    let path = format!("/api/tournaments/{id}/chat");
    request(addr, "POST", &path, &headers, Some(body)).await
}

/// Event `id`'s chat as `token` reads it (`None`: a guest), after
/// `after` if given.
async fn read(addr: SocketAddr, id: &str, token: Option<&str>, after: Option<u64>) -> Value {
    let headers: Vec<(&str, String)> = token.map(bearer).into_iter().collect();
    let path = match after {
        Some(n) => format!("/api/tournaments/{id}/chat?after={n}"),
        None => format!("/api/tournaments/{id}/chat"),
    };
    let a = request(addr, "GET", &path, &headers, None).await;
    assert_eq!(a.status, 200, "{a:?}");
    a.body
}

/// The (name, text) of each line read.
fn said(chat: &Value) -> Vec<(String, String)> {
    chat["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_owned(),
                l["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pair(name: &str, text: &str) -> (String, String) {
    (name.to_owned(), text.to_owned())
}

/// Runs `sql` (text `$1`, the account's name key, and a nullable
/// integer `$2`) in the server's database, as an operator would.
async fn operate(store: &TestStore, sql: &'static str, key: &str, n: Option<i64>) {
    assert_eq!(
        store.execute(sql, vec![key.into(), n.into()]).await,
        1,
        "{sql}"
    );
}

#[tokio::test]
async fn entrants_and_watchers_speak_guests_read_and_the_reader_asks_after_an_id() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (ann, _) = account_of_kind_with_token(addr, "ann", "human").await;
    let (bob, _) = account_of_kind_with_token(addr, "Bob", "human").await;
    let id = event(addr, &ann, 3_600_000).await;
    let joined = request(
        addr,
        "POST",
        &format!("/api/tournaments/{id}/join"),
        &[bearer(&ann)],
        None,
    )
    .await;
    assert_eq!(joined.status, 200, "{joined:?}");

    // Nothing said yet; the chat takes messages.
    let empty = read(addr, &id, None, None).await;
    assert_eq!(empty, json!({"lines": [], "open": true}));
    // An entrant (ann) and a watcher (Bob) speak; a phrase is its text.
    let first = say(addr, &id, Some(&ann), json!({"text": "  good luck all  "})).await;
    assert_eq!(first.status, 201, "{first:?}");
    assert_eq!(first.body["id"], 1);
    assert_eq!(first.body["name"], "ann");
    assert_eq!(first.body["text"], "good luck all", "trimmed");
    let gl = say(addr, &id, Some(&bob), json!({"phrase": "good_luck"})).await;
    assert_eq!(gl.status, 201, "{gl:?}");
    assert_eq!(
        (
            gl.body["id"].clone(),
            gl.body["phrase"].clone(),
            gl.body["text"].clone()
        ),
        (json!(2), json!("good_luck"), json!("Good luck"))
    );
    // A guest reads all of it, an account too; `after` gives the rest.
    let want = vec![pair("ann", "good luck all"), pair("Bob", "Good luck")];
    assert_eq!(said(&read(addr, &id, None, None).await), want);
    assert_eq!(said(&read(addr, &id, Some(&bob), None).await), want);
    assert_eq!(
        said(&read(addr, &id, None, Some(1)).await),
        vec![pair("Bob", "Good luck")]
    );
    assert!(said(&read(addr, &id, None, Some(2)).await).is_empty());

    // A guest may not speak.
    let guest = say(addr, &id, None, json!({"text": "hello?"})).await;
    assert_eq!(
        (guest.status, guest.code()),
        (401, "auth/required"),
        "{guest:?}"
    );
    assert!(guest.body["message"].as_str().unwrap().contains("chat"));
    // An unknown event, a malformed `after`, a method the path does not take.
    let missing = say(addr, "0123456789ab", Some(&ann), json!({"text": "hi"})).await;
    assert_eq!(
        (missing.status, missing.code()),
        (404, "tournament/not_found")
    );
    let gone = request(addr, "GET", "/api/tournaments/0123456789ab/chat", &[], None).await;
    assert_eq!((gone.status, gone.code()), (404, "tournament/not_found"));
    let path = format!("/api/tournaments/{id}/chat?after=x");
    let bad = request(addr, "GET", &path, &[], None).await;
    assert_eq!((bad.status, bad.code()), (400, "chat/bad_query"), "{bad:?}");
    let path = format!("/api/tournaments/{id}/chat");
    let put = request(addr, "PUT", &path, &[bearer(&ann)], None).await;
    assert_eq!(put.status, 405);
    assert_eq!(put.header("allow"), Some("GET, POST"));
    // A cookie from another site's page may not speak for its owner.
    let login = request(
        addr,
        "POST",
        "/api/login",
        &[],
        Some(json!({"name": "ann", "password": "correct horse"})),
    )
    .await;
    let cookie = ("Cookie", format!("parlor_session={}", login.session()));
    let foreign = request(
        addr,
        "POST",
        &path,
        &[
            cookie.clone(),
            ("Origin", "http://elsewhere.example".into()),
        ],
        Some(json!({"text": "csrf"})),
    )
    .await;
    assert_eq!((foreign.status, foreign.code()), (403, "auth/bad_origin"));
    let own = request(
        addr,
        "POST",
        &path,
        &[cookie, ("Origin", format!("http://{addr}"))],
        Some(json!({"text": "from the page"})),
    )
    .await;
    assert_eq!(own.status, 201, "{own:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn bad_texts_are_refused_and_nothing_is_stripped() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (ann, _) = account_of_kind_with_token(addr, "ann", "human").await;
    let id = event(addr, &ann, 3_600_000).await;
    let long = "é".repeat(parlor_protocol::MAX_CHAT_CHARS);
    for body in [
        json!({"text": "   "}),
        json!({"text": "two\nlines"}),
        json!({"text": "bell\u{7}"}),
        json!({"text": format!("{long}x")}),
        json!({"text": "hi", "phrase": "thanks"}),
        json!({}),
        json!({"phrase": "hello there"}),
    ] {
        let a = say(addr, &id, Some(&ann), body.clone()).await;
        assert_eq!(
            (a.status, a.code()),
            (400, "chat/bad_text"),
            "{body}: {a:?}"
        );
    }
    let a = say(addr, &id, Some(&ann), json!({"text": 5})).await;
    assert_eq!((a.status, a.code()), (400, "http/bad_json"), "{a:?}");
    assert!(said(&read(addr, &id, None, None).await).is_empty());
    // The longest text passes whole.
    let a = say(addr, &id, Some(&ann), json!({"text": long})).await;
    assert_eq!(a.status, 201, "{a:?}");
    assert_eq!(
        said(&read(addr, &id, None, None).await),
        vec![pair("ann", &long)]
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_account_says_five_messages_in_ten_seconds_over_all_events() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (ann, _) = account_of_kind_with_token(addr, "ann", "human").await;
    let (bob, _) = account_of_kind_with_token(addr, "bob", "human").await;
    let one = event(addr, &ann, 3_600_000).await;
    let two = event(addr, &ann, 3_600_000).await;
    for i in 0..parlor_server::chat::MAX_CHAT_PER_WINDOW {
        let id = if i % 2 == 0 { &one } else { &two };
        let a = say(addr, id, Some(&ann), json!({"text": format!("line {i}")})).await;
        assert_eq!(a.status, 201, "{i}: {a:?}");
    }
    let over = say(addr, &one, Some(&ann), json!({"text": "one more"})).await;
    assert_eq!(
        (over.status, over.code()),
        (429, "chat/rate_limited"),
        "{over:?}"
    );
    let wait = over.body["retry_after_ms"].as_u64().unwrap();
    assert!((1..=10_000).contains(&wait), "{wait}");
    assert!(over.header("retry-after").is_some(), "{over:?}");
    // Another account is not held by ann's rate.
    assert_eq!(
        say(addr, &one, Some(&bob), json!({"text": "hi"}))
            .await
            .status,
        201
    );
    // Once the oldest left the window, ann speaks again.
    tokio::time::sleep(Duration::from_millis(wait + 50)).await;
    let again = say(addr, &one, Some(&ann), json!({"text": "back"})).await;
    assert_eq!(again.status, 201, "{again:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_muted_account_is_refused_as_in_room_chat_until_its_mute_ends() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let addr = server.addr();
    let (loud, _) = account_of_kind_with_token(addr, "loud", "human").await;
    let id = event(addr, &loud, 3_600_000).await;
    let until = parlor_server::clock::now_ms_signed() + 3_600_000;
    const MUTE: &str = "UPDATE accounts SET muted_until_ms = $2 WHERE name_key = $1";
    operate(&store, MUTE, "loud", Some(until)).await;
    let a = say(addr, &id, Some(&loud), json!({"text": "can you hear me"})).await;
    assert_eq!((a.status, a.code()), (403, "chat/muted"), "{a:?}");
    assert_eq!(a.body["until_ms"].as_i64(), Some(until));
    let a = say(addr, &id, Some(&loud), json!({"phrase": "thanks"})).await;
    assert_eq!(a.code(), "chat/muted", "a phrase too");
    // The mute lifted, the account speaks at once.
    operate(&store, MUTE, "loud", None).await;
    let a = say(addr, &id, Some(&loud), json!({"text": "now?"})).await;
    assert_eq!(a.status, 201, "{a:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_block_keeps_each_ones_lines_from_the_other() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (blocker, _) = account_of_kind_with_token(addr, "blocker", "human").await;
    let (pest, _) = account_of_kind_with_token(addr, "pest", "human").await;
    let (carol, _) = account_of_kind_with_token(addr, "carol", "human").await;
    let id = event(addr, &carol, 3_600_000).await;
    let blocked = request(addr, "POST", "/api/blocks/pest", &[bearer(&blocker)], None).await;
    assert_eq!(blocked.status, 201, "{blocked:?}");
    for (token, text) in [(&pest, "psst"), (&blocker, "hello"), (&carol, "hi both")] {
        assert_eq!(
            say(addr, &id, Some(token), json!({"text": text}))
                .await
                .status,
            201
        );
    }
    let all = vec![
        pair("pest", "psst"),
        pair("blocker", "hello"),
        pair("carol", "hi both"),
    ];
    assert_eq!(said(&read(addr, &id, None, None).await), all);
    assert_eq!(said(&read(addr, &id, Some(&carol), None).await), all);
    assert_eq!(
        said(&read(addr, &id, Some(&blocker), None).await),
        vec![pair("blocker", "hello"), pair("carol", "hi both")],
        "the blocked speaker never reaches the blocker"
    );
    assert_eq!(
        said(&read(addr, &id, Some(&pest), Some(0)).await),
        vec![pair("pest", "psst"), pair("carol", "hi both")],
        "nor the other way"
    );
    // Unblocked, the lines are read again.
    let path = "/api/blocks/pest";
    assert_eq!(
        request(addr, "DELETE", path, &[bearer(&blocker)], None)
            .await
            .status,
        204
    );
    assert_eq!(said(&read(addr, &id, Some(&blocker), None).await), all);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_event_that_is_over_keeps_its_chat_readable_and_closed() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (ann, _) = account_of_kind_with_token(addr, "ann", "human").await;
    // Due in a moment with nobody entered: then cancelled.
    let id = event(addr, &ann, 1_500).await;
    assert_eq!(
        say(addr, &id, Some(&ann), json!({"text": "anyone?"}))
            .await
            .status,
        201
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let page = request(addr, "GET", &format!("/api/tournaments/{id}"), &[], None).await;
        if page.body["status"] == "cancelled" {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never cancelled: {page:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let late = say(addr, &id, Some(&ann), json!({"text": "hello?"})).await;
    assert_eq!((late.status, late.code()), (409, "chat/closed"), "{late:?}");
    let kept = read(addr, &id, None, None).await;
    assert_eq!(kept["open"], false);
    assert_eq!(said(&kept), vec![pair("ann", "anyone?")]);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_report_names_a_message_and_the_server_quotes_it() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let addr = server.addr();
    let (ann, _) = account_of_kind_with_token(addr, "ann", "human").await;
    let (rude, _) = account_of_kind_with_token(addr, "rude", "human").await;
    let (boss, _) = account_of_kind_with_token(addr, "boss", "human").await;
    let id = event(addr, &ann, 3_600_000).await;
    let line = say(addr, &id, Some(&rude), json!({"text": "you all stink"})).await;
    let message = line.body["id"].as_u64().unwrap();
    let kind = say(addr, &id, Some(&ann), json!({"text": "be nice"})).await;
    let ann_message = kind.body["id"].as_u64().unwrap();
    let report = |message: u64| {
        json!({"player": "rude", "reason": "abuse", "text": "insults",
               "event": id, "message": message})
    };
    // A message someone else said, or none, is refused.
    for body in [
        report(ann_message),
        report(99),
        json!({"player": "rude", "reason": "abuse", "message": message}),
    ] {
        let a = request(addr, "POST", "/api/reports", &[bearer(&ann)], Some(body)).await;
        assert_eq!((a.status, a.code()), (400, "report/bad_request"), "{a:?}");
    }
    let filed = request(
        addr,
        "POST",
        "/api/reports",
        &[bearer(&ann)],
        Some(report(message)),
    )
    .await;
    assert_eq!(filed.status, 201, "{filed:?}");
    // The moderators read the message as it was kept, then the reporter's words.
    operate(
        &store,
        "UPDATE accounts SET role = 'admin', muted_until_ms = $2 WHERE name_key = $1",
        "boss",
        None,
    )
    .await;
    let queue = request(addr, "GET", "/api/mod/reports", &[bearer(&boss)], None).await;
    assert_eq!(queue.status, 200, "{queue:?}");
    let text = queue.body["reports"][0]["text"].as_str().unwrap();
    assert!(text.contains("you all stink"), "{text}");
    assert!(text.contains(&id) && text.ends_with("insults"), "{text}");
    server.stop().await.unwrap();
}
