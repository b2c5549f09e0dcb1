//! Reports end to end, on SQLite or (`PARLOR_TEST_STORE=postgres`) on
//! PostgreSQL: filing within the limits and every refusal's code, the
//! queue only moderators read, and a resolution kept in the moderation
//! log. A moderator is made by setting `accounts.role` in the server's
//! database, as `parlor-server accounts role` does.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_server::moderation::log::ModAction;
use parlor_server::moderation::ModLog;
use parlor_server::reports::MAX_REPORTS_PER_HOUR;
use parlor_server::store::Store;
use parlor_server::testing::ScratchSchema;
use parlor_tests::http::{account_of_kind_with_token, bearer, request, Answer};
use parlor_tests::{start_server, TestStore};
use serde_json::{json, Value};

/// Makes the account keyed `key` a moderator, in the server's database
/// (as `parlor-server accounts role` does; the server reads roles with
/// every request).
async fn make_moderator(store: &TestStore, key: &str) {
    const GRANT: &str = "UPDATE accounts SET role = 'moderator' WHERE name_key = $1";
    assert_eq!(store.execute(GRANT, vec![key.into()]).await, 1);
}

/// The moderation log's entries about the account keyed `key`, newest
/// first, as (action, detail): through the server's own `ModLog` on
/// SQLite, by hand on PostgreSQL.
async fn log_about(store: &TestStore, key: &str) -> Vec<(String, Value)> {
    match store {
        TestStore::Sqlite(_) => {
            let (db, task) = Store::open(&store.config()).await.unwrap();
            let entries = ModLog::new(db.beside())
                .list(Some(key), None, 100)
                .await
                .unwrap();
            drop(db);
            task.finished().await.unwrap();
            entries
                .into_iter()
                .map(|e| {
                    (
                        e.action.as_str().to_owned(),
                        e.detail.unwrap_or(Value::Null),
                    )
                })
                .collect()
        }
        TestStore::Postgres(scratch) => pg(scratch)
            .await
            .query(
                "SELECT action, detail FROM mod_log WHERE account_key = $1 ORDER BY id DESC",
                &[&key],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| {
                let detail: Option<String> = r.get(1);
                (
                    r.get::<_, String>(0),
                    detail.map_or(Value::Null, |d| serde_json::from_str(&d).unwrap()),
                )
            })
            .collect(),
    }
}

/// A connection to the scratch schema.
async fn pg(scratch: &ScratchSchema) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(&scratch.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
}

async fn report(addr: std::net::SocketAddr, token: Option<&str>, body: Value) -> Answer {
    let headers: Vec<(&str, String)> = token.map(bearer).into_iter().collect();
    request(addr, "POST", "/api/reports", &headers, Some(body)).await
}

#[tokio::test]
async fn reports_are_limited_per_reporter_and_refused_with_their_codes() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (al, _) = account_of_kind_with_token(addr, "alice", "human").await;
    let (bo, _) = account_of_kind_with_token(addr, "bobby", "human").await;
    let mut others = Vec::new();
    for i in 0..=MAX_REPORTS_PER_HOUR {
        account_of_kind_with_token(addr, &format!("player{i}"), "human").await;
        others.push(format!("player{i}"));
    }
    let about = |p: &str| json!({"player": p, "reason": "cheat", "text": "too fast"});

    // A guest cannot report.
    let guest = report(addr, None, about("player0")).await;
    assert_eq!((guest.status, guest.code()), (401, "auth/required"));
    // Refusals that count nothing.
    for (body, why) in [
        (about("ALICE"), "yourself"),
        (about("nobody-here"), "no account"),
        (
            json!({"player": "player0", "reason": "rude", "text": ""}),
            "reason",
        ),
        (
            json!({"player": "player0", "reason": "abuse", "room": "a b", "text": ""}),
            "room",
        ),
        (
            json!({"player": "player0", "reason": "other", "text": "x".repeat(1001)}),
            "text",
        ),
        (json!({"reason": "other"}), "body"),
    ] {
        let a = report(addr, Some(&al), body).await;
        assert_eq!(
            (a.status, a.code()),
            (400, "report/bad_request"),
            "{why}: {a:?}"
        );
        assert!(a.body["message"].as_str().unwrap().contains(why), "{a:?}");
    }
    // The first is filed; a second open one about the same player is not.
    let first = report(
        addr,
        Some(&al),
        json!({"player": "PLAYER0", "reason": "abuse", "room": "3c32571558e3", "text": "rude"}),
    )
    .await;
    assert_eq!(first.status, 201, "{first:?}");
    assert!(first.body["id"].as_i64().unwrap() > 0);
    let again = report(addr, Some(&al), about("player0")).await;
    assert_eq!((again.status, again.code()), (409, "report/duplicate"));
    // Up to the limit in the hour, then refused with when to come back.
    for p in &others[1..MAX_REPORTS_PER_HOUR] {
        let a = report(addr, Some(&al), about(p)).await;
        assert_eq!(a.status, 201, "{p}: {a:?}");
    }
    let over = report(addr, Some(&al), about(&others[MAX_REPORTS_PER_HOUR])).await;
    assert_eq!(
        (over.status, over.code()),
        (429, "report/too_many"),
        "{over:?}"
    );
    let wait = over.body["retry_after_ms"].as_u64().unwrap();
    assert!(wait > 3_500_000 && wait <= 3_600_000, "{wait}");
    assert!(over.header("retry-after").is_some());
    // Another reporter is counted apart.
    let other = report(addr, Some(&bo), about(&others[MAX_REPORTS_PER_HOUR])).await;
    assert_eq!(other.status, 201, "{other:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn only_moderators_read_the_queue_and_a_resolution_is_logged() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let addr = server.addr();
    let (al, _) = account_of_kind_with_token(addr, "alice", "human").await;
    let (bo, _) = account_of_kind_with_token(addr, "bobby", "human").await;
    let (md, _) = account_of_kind_with_token(addr, "Warden", "human").await;
    account_of_kind_with_token(addr, "Cheater", "human").await;
    let by_al = report(
        addr,
        Some(&al),
        json!({"player": "cheater", "reason": "cheat", "text": "every move best"}),
    )
    .await;
    let by_bo = report(
        addr,
        Some(&bo),
        json!({"player": "Cheater", "reason": "boost", "text": ""}),
    )
    .await;
    let (id, id2) = (
        by_al.body["id"].as_i64().unwrap(),
        by_bo.body["id"].as_i64().unwrap(),
    );

    // Not a moderator yet: 403 on every route of the queue; a guest 401.
    let resolve_path = format!("/api/mod/reports/{id}/resolve");
    let resolution = json!({"action": "actioned", "reason": "fair_play", "text": "marked"});
    for token in [&al, &md] {
        let q = request(addr, "GET", "/api/mod/reports", &[bearer(token)], None).await;
        assert_eq!((q.status, q.code()), (403, "mod/forbidden"));
        let r = request(
            addr,
            "POST",
            &resolve_path,
            &[bearer(token)],
            Some(resolution.clone()),
        )
        .await;
        assert_eq!((r.status, r.code()), (403, "mod/forbidden"));
    }
    let q = request(addr, "GET", "/api/mod/reports", &[], None).await;
    assert_eq!(q.status, 401);

    make_moderator(&store, "warden").await;
    let q = request(
        addr,
        "GET",
        "/api/mod/reports?status=open",
        &[bearer(&md)],
        None,
    )
    .await;
    assert_eq!(q.status, 200, "{q:?}");
    let queue = q.body["reports"].as_array().unwrap();
    assert_eq!(queue.len(), 2);
    assert_eq!(queue[0]["id"], id, "oldest first");
    assert_eq!(queue[0]["reporter"], "alice");
    assert_eq!(queue[0]["player"], "Cheater");
    assert_eq!(queue[0]["reason"], "cheat");
    assert_eq!(queue[0]["text"], "every move best");
    assert_eq!(queue[0]["player_open"], 2);
    assert!(queue[0]["at_ms"].as_i64().unwrap() > 0);
    let bad = request(
        addr,
        "GET",
        "/api/mod/reports?status=closed",
        &[bearer(&md)],
        None,
    )
    .await;
    assert_eq!((bad.status, bad.code()), (400, "mod/bad_request"));

    // Resolving: bad bodies refused, then once, then not found.
    for body in [
        json!({"action": "ignored", "reason": "fair_play", "text": ""}),
        json!({"action": "actioned", "reason": "because", "text": ""}),
    ] {
        let r = request(addr, "POST", &resolve_path, &[bearer(&md)], Some(body)).await;
        assert_eq!((r.status, r.code()), (400, "mod/bad_request"), "{r:?}");
    }
    let r = request(
        addr,
        "POST",
        &resolve_path,
        &[bearer(&md)],
        Some(resolution.clone()),
    )
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.body, json!({"id": id, "resolution": "actioned"}));
    let r = request(
        addr,
        "POST",
        &resolve_path,
        &[bearer(&md)],
        Some(resolution.clone()),
    )
    .await;
    assert_eq!((r.status, r.code()), (404, "mod/report_not_found"));
    let r = request(
        addr,
        "POST",
        "/api/mod/reports/999999/resolve",
        &[bearer(&md)],
        Some(resolution),
    )
    .await;
    assert_eq!((r.status, r.code()), (404, "mod/report_not_found"));

    // The queue holds the other; all of them shows how the first ended.
    let q = request(addr, "GET", "/api/mod/reports", &[bearer(&md)], None).await;
    let queue = q.body["reports"].as_array().unwrap();
    assert_eq!(queue.len(), 1);
    assert_eq!(
        (queue[0]["id"].as_i64(), &queue[0]["player_open"]),
        (Some(id2), &json!(1))
    );
    let all = request(
        addr,
        "GET",
        "/api/mod/reports?status=all",
        &[bearer(&md)],
        None,
    )
    .await;
    let all = all.body["reports"].as_array().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[1]["id"], id, "newest first");
    assert_eq!(all[1]["resolution"], "actioned");
    assert_eq!(all[1]["resolved_by"], "Warden");

    // The moderation log has the resolution, about the reported player.
    let log = log_about(&store, "cheater").await;
    assert_eq!(
        log,
        vec![(
            ModAction::Resolve.as_str().to_owned(),
            json!({"report": id, "resolution": "actioned"})
        )]
    );
    // Alice may report Cheater again now that hers is closed.
    let again = report(
        addr,
        Some(&al),
        json!({"player": "cheater", "reason": "other", "text": ""}),
    )
    .await;
    assert_eq!(again.status, 201, "{again:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn reports_sent_at_once_stop_at_the_limit() {
    let server = start_server(None).await;
    let addr = server.addr();
    let (al, _) = account_of_kind_with_token(addr, "alice", "human").await;
    // (Within the accounts one address may make in an hour.)
    let flood = MAX_REPORTS_PER_HOUR + 3;
    for i in 0..flood {
        account_of_kind_with_token(addr, &format!("target{i}"), "human").await;
    }
    // Every report at once, each about another player, and the same
    // player twice: only the limit's worth pass, and one per player.
    let sent = (0..flood).chain([0]).map(|i| {
        let al = al.clone();
        tokio::spawn(async move {
            report(
                addr,
                Some(&al),
                json!({"player": format!("target{i}"), "reason": "other", "text": ""}),
            )
            .await
        })
    });
    let mut filed = 0;
    for answer in futures_util::future::join_all(sent).await {
        let answer = answer.unwrap();
        match answer.status {
            201 => filed += 1,
            429 => assert_eq!(answer.code(), "report/too_many"),
            409 => assert_eq!(answer.code(), "report/duplicate"),
            other => panic!("{other}: {answer:?}"),
        }
    }
    assert_eq!(filed, MAX_REPORTS_PER_HOUR);
    server.stop().await.unwrap();
}
