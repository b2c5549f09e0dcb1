//! The HTTP API against its OpenAPI document, `docs/api/openapi.json`
//! (served at `GET /api/openapi.json`), so that neither can drift from
//! the other:
//!
//! - on a live server (SQLite, or PostgreSQL with
//!   `PARLOR_TEST_STORE=postgres`), every documented operation is driven
//!   on its success path and every family of routes on some of its
//!   refusals; each answer's status must be documented for its operation,
//!   its content type among the documented ones, its required headers
//!   present and its body (every line of an NDJSON answer) valid against
//!   the documented schema; an operation the run never reached fails it,
//!   named;
//! - without a server, every route constant of the API's modules
//!   (`*_PATH`, `*_PREFIX`, `*_SUFFIX` in `server/src/api/`) is in the
//!   document, every documented path and method is routed by the server's
//!   route table, and every other method of a documented path is refused
//!   there (with the `Allow` the document implies);
//! - the document's closed sets (games, reasons, actions, error codes) are
//!   the code's, its `$ref`s resolve and its schemas are JSON Schema
//!   2020-12.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;

use parlor_games::GameKind;
use parlor_protocol::ErrorCode;
use parlor_server::api::{route, Endpoint, Plain, Route};
use parlor_server::moderation::{ModAction, ModReason};
use parlor_server::reports::{ReportReason, Resolution};
use parlor_server::Config;
use parlor_tests::http::{account_of_kind_with_token, basic, bearer, request, Answer};
use parlor_tests::rating::{play_out_first_legal, rated_match};
use parlor_tests::{start_server_with, TestStore};
use serde_json::{json, Value};

/// The document as the repository holds it.
const DOCUMENT: &str = include_str!("../../../docs/api/openapi.json");

/// The methods a route may be asked with, as the document spells them.
const METHODS: [&str; 6] = ["get", "head", "post", "put", "patch", "delete"];

/// The password `account_of_kind_with_token` gives.
const PASSWORD: &str = "correct horse";

fn document() -> Value {
    serde_json::from_str(DOCUMENT).unwrap_or_else(|e| panic!("docs/api/openapi.json: {e}"))
}

/// The documented paths, each with its documented methods (lower case).
fn operations(doc: &Value) -> BTreeMap<String, BTreeSet<String>> {
    doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, item)| {
            let methods = item
                .as_object()
                .unwrap()
                .keys()
                .filter(|m| METHODS.contains(&m.as_str()))
                .cloned()
                .collect();
            (path.clone(), methods)
        })
        .collect()
}

/// The documented path `path` (no query) falls under: segment by segment,
/// `{param}` matching any one; of several, the one with more literal
/// segments.
fn template_of(doc: &Value, path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').collect();
    doc["paths"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|template| {
            let parts: Vec<&str> = template.split('/').collect();
            if parts.len() != segments.len() {
                return None;
            }
            let mut literal = 0;
            for (p, s) in parts.iter().zip(&segments) {
                if p.starts_with('{') && p.ends_with('}') {
                    if s.is_empty() {
                        return None;
                    }
                } else if p == s {
                    literal += 1;
                } else {
                    return None;
                }
            }
            Some((literal, template.clone()))
        })
        .max()
        .map(|(_, t)| t)
}

/// The value at the local `$ref` `pointer` (`#/components/...`).
fn resolve<'d>(doc: &'d Value, pointer: &str) -> &'d Value {
    let at = pointer
        .strip_prefix('#')
        .and_then(|p| doc.pointer(p))
        .unwrap_or_else(|| panic!("{pointer} does not resolve in the document"));
    assert!(!at.is_null(), "{pointer} does not resolve in the document");
    at
}

/// Why `instance` is not valid against `schema` (whose `$ref`s point into
/// the document's components); empty if it is.
fn invalid(doc: &Value, schema: &Value, instance: &Value) -> Vec<String> {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": doc["components"],
        "allOf": [schema],
    });
    let validator = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{schema}: {e}"));
    validator
        .iter_errors(instance)
        .map(|e| format!("at {}: {e}", e.instance_path()))
        .collect()
}

/// A live server's API, each answer checked against the document.
struct Api {
    doc: Value,
    addr: SocketAddr,
    /// The (METHOD, path template) pairs answered so far.
    exercised: BTreeSet<(String, String)>,
}

impl Api {
    /// Sends `method target` with `headers` and `body`, checks the answer
    /// against the document, and returns it.
    async fn call(
        &mut self,
        method: &str,
        target: &str,
        headers: &[(&str, String)],
        body: Option<Value>,
    ) -> Answer {
        let answer = request(self.addr, method, target, headers, body).await;
        self.check(method, target, &answer);
        answer
    }

    /// [`Api::call`], asserting the status.
    async fn expect(
        &mut self,
        status: u16,
        method: &str,
        target: &str,
        headers: &[(&str, String)],
        body: Option<Value>,
    ) -> Answer {
        let answer = self.call(method, target, headers, body).await;
        assert_eq!(answer.status, status, "{method} {target}: {answer:?}");
        answer
    }

    fn check(&mut self, method: &str, target: &str, answer: &Answer) {
        let path = target.split('?').next().unwrap();
        let template = template_of(&self.doc, path)
            .unwrap_or_else(|| panic!("{method} {path}: no documented path"));
        let op = &self.doc["paths"][&template][method.to_ascii_lowercase()];
        assert!(op.is_object(), "{method} {template} is not documented");
        let status = answer.status.to_string();
        let mut response = &op["responses"][&status];
        assert!(
            response.is_object(),
            "{method} {target} answered {status}, which the document does not list for {method} {template}: {}",
            answer.text
        );
        if let Some(r) = response["$ref"].as_str() {
            response = resolve(&self.doc, r);
        }
        if let Some(headers) = response["headers"].as_object() {
            for (name, h) in headers {
                if h["required"] == json!(true) {
                    assert!(
                        answer.header(name).is_some(),
                        "{method} {target} {status}: no {name} header: {:?}",
                        answer.headers
                    );
                }
            }
        }
        let Some(content) = response["content"].as_object() else {
            assert!(
                answer.text.is_empty(),
                "{method} {target} {status}: a body the document does not describe: {}",
                answer.text
            );
            self.exercised.insert((method.to_owned(), template));
            return;
        };
        let media = answer
            .header("content-type")
            .and_then(|c| c.split(';').next())
            .map(str::trim)
            .unwrap_or_else(|| panic!("{method} {target}: no Content-Type"));
        let schema = &content.get(media).unwrap_or_else(|| {
            panic!(
                "{method} {target} {status}: {media} is not among the documented {:?}",
                content.keys().collect::<Vec<_>>()
            )
        })["schema"];
        let instances: Vec<Value> = match media {
            "application/json" => vec![serde_json::from_str(&answer.text)
                .unwrap_or_else(|e| panic!("{method} {target}: not JSON ({e}): {}", answer.text))],
            "application/x-ndjson" => answer
                .text
                .lines()
                .map(|l| {
                    serde_json::from_str(l).unwrap_or_else(|e| {
                        panic!("{method} {target}: a line is not JSON ({e}): {l}")
                    })
                })
                .collect(),
            _ => vec![Value::String(answer.text.clone())],
        };
        for instance in &instances {
            let why = invalid(&self.doc, schema, instance);
            assert!(
                why.is_empty(),
                "{method} {target} {status}: the body is not as documented for {method} {template}:\n{}\n{instance}",
                why.join("\n")
            );
        }
        self.exercised.insert((method.to_owned(), template));
    }

    /// The documented operations never answered.
    fn unexercised(&self) -> Vec<String> {
        operations(&self.doc)
            .into_iter()
            .flat_map(|(path, methods)| {
                methods
                    .into_iter()
                    .map(move |m| (m.to_ascii_uppercase(), path.clone()))
            })
            .filter(|op| !self.exercised.contains(op))
            .map(|(m, p)| format!("{m} {p}"))
            .collect()
    }
}

/// Sets the role of the account keyed `key` in the server's database, as
/// `parlor-server accounts role` does (roles are never granted over the
/// network; the server reads them with every request).
async fn set_role(store: &TestStore, key: &str, role: &str) {
    const SET: &str = "UPDATE accounts SET role = $1 WHERE name_key = $2";
    assert_eq!(store.execute(SET, vec![role.into(), key.into()]).await, 1);
}

fn now_ms() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

#[tokio::test]
async fn every_documented_operation_answers_as_the_document_says() {
    let store = TestStore::new().await;
    let mut config = Config {
        store: store.config(),
        ..Config::default()
    };
    config.limits.accounts_per_address_hour = 0;
    // Every request is a new connection from one address: the per-address
    // connection rate (a 429 before any route is read) is not what this
    // test checks.
    config.limits.admission = None;
    let server = start_server_with(config).await;
    let (addr, url) = (server.addr(), server.url());
    let mut api = Api {
        doc: document(),
        addr,
        exercised: BTreeSet::new(),
    };
    let none: &[(&str, String)] = &[];
    let own_origin = ("Origin", format!("http://{addr}"));

    // The document itself, as served.
    let served = api
        .expect(200, "GET", "/api/openapi.json", none, None)
        .await;
    assert_eq!(served.text, DOCUMENT, "the server serves another document");
    assert_eq!(served.header("cache-control"), Some("max-age=3600"));

    // Operations.
    let health = api.call("GET", "/healthz", none, None).await;
    assert!(
        health.text.starts_with("ok") || health.status == 503,
        "{health:?}"
    );
    let metrics = api.call("GET", "/metrics", none, None).await;
    assert!(matches!(metrics.status, 200 | 503), "{metrics:?}");

    // Accounts.
    let made = api
        .expect(
            201,
            "POST",
            "/api/accounts",
            none,
            Some(json!({"name": "Alice", "password": PASSWORD, "kind": "human"})),
        )
        .await;
    assert_eq!(made.body, json!({"name": "Alice", "kind": "human"}));
    let taken = api
        .expect(
            409,
            "POST",
            "/api/accounts",
            none,
            Some(json!({"name": "alice", "password": PASSWORD})),
        )
        .await;
    assert_eq!(taken.code(), "account/name_taken");
    let bad = api
        .expect(
            400,
            "POST",
            "/api/accounts",
            none,
            Some(json!({"name": "a b", "password": PASSWORD})),
        )
        .await;
    assert_eq!(bad.code(), "account/bad_name");
    let big = "x".repeat(parlor_server::api::MAX_API_BODY_BYTES);
    api.expect(
        413,
        "POST",
        "/api/accounts",
        none,
        Some(json!({"name": "Big", "password": big})),
    )
    .await;
    let login = api
        .expect(
            200,
            "POST",
            "/api/login",
            none,
            Some(json!({"name": "alice", "password": PASSWORD})),
        )
        .await;
    let session = login.session();
    let cookie = ("Cookie", format!("parlor_session={session}"));
    let wrong = api
        .expect(
            401,
            "POST",
            "/api/login",
            none,
            Some(json!({"name": "alice", "password": "wrong horse"})),
        )
        .await;
    assert_eq!(wrong.code(), "auth/bad_credentials");
    let changed = api
        .expect(
            200,
            "POST",
            "/api/password",
            &[cookie.clone(), own_origin.clone()],
            Some(json!({"old_password": PASSWORD, "new_password": "a newer horse"})),
        )
        .await;
    assert_eq!(changed.body, json!({"ended": 0}), "no other session to end");
    let refused = api
        .expect(
            401,
            "POST",
            "/api/password",
            &[basic("alice", PASSWORD)],
            Some(json!({"new_password": "another horse"})),
        )
        .await;
    assert_eq!(refused.code(), "auth/bad_credentials");
    api.expect(
        200,
        "POST",
        "/api/password",
        &[basic("alice", "a newer horse")],
        Some(json!({"new_password": PASSWORD, "revoke_tokens": true})),
    )
    .await;
    // Under Basic every session ended, the cookie's too.
    let stale = api
        .expect(
            401,
            "GET",
            "/api/tokens",
            std::slice::from_ref(&cookie),
            None,
        )
        .await;
    assert_eq!(stale.code(), "auth/invalid_token");
    let session = api
        .expect(
            200,
            "POST",
            "/api/login",
            none,
            Some(json!({"name": "Alice", "password": PASSWORD})),
        )
        .await
        .session();
    let cookie = ("Cookie", format!("parlor_session={session}"));
    let by_basic = api
        .expect(
            201,
            "POST",
            "/api/tokens",
            &[basic("Alice", PASSWORD)],
            Some(json!({"label": "bot"})),
        )
        .await;
    let alice = by_basic.body["token"].as_str().unwrap().to_owned();
    let by_cookie = api
        .expect(
            201,
            "POST",
            "/api/tokens",
            &[cookie.clone(), own_origin.clone()],
            None,
        )
        .await;
    let listed = api
        .expect(200, "GET", "/api/tokens", &[bearer(&alice)], None)
        .await;
    assert_eq!(listed.body["tokens"].as_array().map(Vec::len), Some(2));
    api.expect(401, "GET", "/api/tokens", none, None).await;
    let id = by_cookie.body["id"].as_i64().unwrap();
    api.expect(
        204,
        "DELETE",
        &format!("/api/tokens/{id}"),
        &[bearer(&alice)],
        None,
    )
    .await;
    let gone = api
        .expect(
            404,
            "DELETE",
            &format!("/api/tokens/{id}"),
            &[bearer(&alice)],
            None,
        )
        .await;
    assert_eq!(gone.code(), "token/not_found");
    let foreign = api
        .expect(
            403,
            "POST",
            "/api/logout",
            &[
                cookie.clone(),
                ("Origin", "http://elsewhere.example".into()),
            ],
            None,
        )
        .await;
    assert_eq!(foreign.code(), "auth/bad_origin");
    api.expect(
        204,
        "POST",
        "/api/logout",
        &[cookie.clone(), own_origin.clone()],
        None,
    )
    .await;

    // The other accounts: a moderating admin, a player to act on, a bot.
    let boss = account_of_kind_with_token(addr, "Boss", "human").await.0;
    set_role(&store, "boss", "admin").await;
    let target = account_of_kind_with_token(addr, "Target", "human").await.0;
    account_of_kind_with_token(addr, "Helper", "human").await;
    let bot = account_of_kind_with_token(addr, "Botty", "bot").await.0;

    // A rated match between two bots, for the ratings, logs and replay.
    let (mut players, room, first) = rated_match(
        addr,
        &url,
        &["RatedA", "RatedB"],
        "nimrod",
        json!({"piles": [3, 5]}),
    )
    .await;
    play_out_first_legal(&mut players, &room, first).await;
    for p in players {
        p.close().await;
    }

    // Moderation: each action, and its refusals.
    let act = |action: &str, name: &str| format!("/api/mod/accounts/{name}/{action}");
    let by_boss = [bearer(&boss)];
    let marked = api
        .expect(200, "POST", &act("mark", "RatedB"), &by_boss,
            Some(json!({"reason": "fair_play", "mark": "engine", "void_from_ms": 0, "text": "a program"})))
        .await;
    assert_eq!(marked.body["detail"]["correction_lines"], json!([2]));
    api.expect(
        200,
        "POST",
        &act("unmark", "RatedB"),
        &by_boss,
        Some(json!({"reason": "mistake"})),
    )
    .await;
    api.expect(
        200,
        "POST",
        &act("mute", "Target"),
        &by_boss,
        Some(json!({"reason": "abuse", "minutes": 10})),
    )
    .await;
    api.expect(
        200,
        "POST",
        &act("playban", "Target"),
        &by_boss,
        Some(json!({"reason": "spam", "minutes": 10})),
    )
    .await;
    api.expect(
        200,
        "POST",
        &act("close", "Helper"),
        &by_boss,
        Some(json!({"reason": "request"})),
    )
    .await;
    api.expect(
        200,
        "POST",
        &act("reopen", "Helper"),
        &by_boss,
        Some(json!({"reason": "mistake"})),
    )
    .await;
    let role = api
        .expect(
            200,
            "POST",
            &act("role", "Helper"),
            &by_boss,
            Some(json!({"reason": "other", "role": "moderator"})),
        )
        .await;
    assert_eq!(role.body["detail"], json!({"role": "moderator"}));
    let forbidden = api
        .expect(
            403,
            "POST",
            &act("close", "Target"),
            &[bearer(&alice)],
            Some(json!({"reason": "spam"})),
        )
        .await;
    assert_eq!(forbidden.code(), "mod/forbidden");
    let unknown = api
        .expect(
            404,
            "POST",
            &act("close", "Nobody"),
            &by_boss,
            Some(json!({"reason": "spam"})),
        )
        .await;
    assert_eq!(unknown.code(), "mod/unknown_account");
    let no_minutes = api
        .expect(
            400,
            "POST",
            &act("mute", "Target"),
            &by_boss,
            Some(json!({"reason": "spam"})),
        )
        .await;
    assert_eq!(no_minutes.code(), "mod/bad_request");
    let log = api
        .expect(200, "GET", "/api/mod/log?account=Target", &by_boss, None)
        .await;
    assert_eq!(log.body["entries"].as_array().map(Vec::len), Some(2));
    api.expect(400, "GET", "/api/mod/log?limit=0", &by_boss, None)
        .await;
    api.expect(401, "GET", "/api/mod/log", none, None).await;

    // Players and ratings (the mark's correction line is in the ledger).
    let page = api
        .expect(200, "GET", "/api/players/ratedb", none, None)
        .await;
    assert!(!page.body["rated_games"].as_array().unwrap().is_empty());
    assert_eq!(
        page.body["moderation"]["history"].as_array().map(Vec::len),
        Some(2)
    );
    api.expect(200, "GET", "/api/players/Target", none, None)
        .await;
    api.expect(404, "GET", "/api/players/Nobody", none, None)
        .await;
    let history = api
        .expect(
            200,
            "GET",
            "/api/players/RatedA/history?pool=nimrod",
            none,
            None,
        )
        .await;
    assert!(!history.body["points"].as_array().unwrap().is_empty());
    api.expect(400, "GET", "/api/players/RatedA/history", none, None)
        .await;
    let ledger = api
        .expect(200, "GET", "/api/ratings/ledger?after=0", none, None)
        .await;
    assert_eq!(
        ledger.text.lines().count(),
        2,
        "the match and its correction"
    );
    assert!(ledger.text.contains("\"void\""));
    api.expect(200, "GET", "/api/ratings/ledger?pool=nimrod", none, None)
        .await;
    api.expect(400, "GET", "/api/ratings/ledger?after=x", none, None)
        .await;
    // Past the stores' line numbers: refused as a query (it was a 503).
    let past = api
        .expect(
            400,
            "GET",
            "/api/ratings/ledger?after=18446744073709551615",
            none,
            None,
        )
        .await;
    assert_eq!(past.code(), "ratings/bad_query");
    api.expect(404, "GET", "/api/ratings/ledger?pool=chess", none, None)
        .await;
    let head = api
        .expect(200, "GET", "/api/ratings/head", none, None)
        .await;
    assert_eq!(head.body["n"], json!(2));
    api.expect(
        200,
        "GET",
        "/api/leaderboard/nimrod?kind=bot&limit=10",
        none,
        None,
    )
    .await;
    api.expect(400, "GET", "/api/leaderboard/nimrod?limit=0", none, None)
        .await;
    api.expect(404, "GET", "/api/leaderboard/chess", none, None)
        .await;

    // Logs and the replay.
    let logs = api
        .expect(
            200,
            "GET",
            &format!("/api/logs?rooms={room},000000000000"),
            none,
            None,
        )
        .await;
    assert_eq!(logs.text.lines().count(), 2, "a log and a refusal");
    api.expect(400, "GET", "/api/logs", none, None).await;
    let replay = api
        .expect(200, "GET", &format!("/api/replay/{room}"), none, None)
        .await;
    assert_eq!(replay.body["room"], json!(room.as_str()));
    api.expect(404, "GET", "/api/replay/000000000000", none, None)
        .await;

    // Tournaments.
    let created = api
        .expect(201, "POST", "/api/tournaments", &[bearer(&alice)],
            Some(json!({"game": "nimrod", "format": "round-robin", "starts_at_ms": now_ms() + 3_600_000})))
        .await;
    let event = created.body["id"].as_str().unwrap().to_owned();
    api.expect(401, "POST", "/api/tournaments", none,
        Some(json!({"game": "nimrod", "format": "swiss", "rounds": 3, "starts_at_ms": now_ms() + 3_600_000})))
        .await;
    let late = api
        .expect(
            400,
            "POST",
            "/api/tournaments",
            &[bearer(&alice)],
            Some(json!({"game": "nimrod", "format": "round-robin", "starts_at_ms": 1})),
        )
        .await;
    assert_eq!(late.code(), "tournament/bad_start");
    api.expect(200, "GET", "/api/tournaments", none, None).await;
    api.expect(200, "GET", &format!("/api/tournaments/{event}"), none, None)
        .await;
    api.expect(404, "GET", "/api/tournaments/0000000000ff", none, None)
        .await;
    api.expect(
        200,
        "POST",
        &format!("/api/tournaments/{event}/join"),
        &[bearer(&alice)],
        None,
    )
    .await;
    let listed = api
        .expect(200, "GET", "/api/tournaments", &[bearer(&alice)], None)
        .await;
    assert_eq!(listed.body["upcoming"][0]["entered"], json!(true));
    let twice = api
        .expect(
            409,
            "POST",
            &format!("/api/tournaments/{event}/join"),
            &[bearer(&alice)],
            None,
        )
        .await;
    assert_eq!(twice.code(), "tournament/already_entered");
    let banned = api
        .expect(
            403,
            "POST",
            &format!("/api/tournaments/{event}/join"),
            &[bearer(&target)],
            None,
        )
        .await;
    assert_eq!(banned.code(), "play/banned");
    api.expect(
        200,
        "POST",
        &format!("/api/tournaments/{event}/leave"),
        &[bearer(&alice)],
        None,
    )
    .await;
    api.expect(
        409,
        "POST",
        &format!("/api/tournaments/{event}/leave"),
        &[bearer(&alice)],
        None,
    )
    .await;

    // The event's chat (Target is muted above).
    let chat = format!("/api/tournaments/{event}/chat");
    let line = api
        .expect(
            201,
            "POST",
            &chat,
            &[bearer(&alice)],
            Some(json!({"text": "good luck"})),
        )
        .await;
    assert_eq!(line.body["id"], json!(1));
    api.expect(
        201,
        "POST",
        &chat,
        &[bearer(&alice)],
        Some(json!({"phrase": "thanks"})),
    )
    .await;
    let read = api.expect(200, "GET", &chat, none, None).await;
    assert_eq!(read.body["lines"].as_array().map(Vec::len), Some(2));
    api.expect(
        200,
        "GET",
        &format!("{chat}?after=1"),
        &[bearer(&alice)],
        None,
    )
    .await;
    api.expect(400, "GET", &format!("{chat}?after=x"), none, None)
        .await;
    api.expect(404, "GET", "/api/tournaments/0000000000ff/chat", none, None)
        .await;
    api.expect(401, "POST", &chat, none, Some(json!({"text": "hi"})))
        .await;
    api.expect(
        400,
        "POST",
        &chat,
        &[bearer(&alice)],
        Some(json!({"text": " "})),
    )
    .await;
    let muted = api
        .expect(
            403,
            "POST",
            &chat,
            &[bearer(&target)],
            Some(json!({"text": "hi"})),
        )
        .await;
    assert_eq!(muted.code(), "chat/muted");
    for _ in 2..parlor_server::chat::MAX_CHAT_PER_WINDOW {
        api.expect(
            201,
            "POST",
            &chat,
            &[bearer(&alice)],
            Some(json!({"text": "gl"})),
        )
        .await;
    }
    let flood = api
        .expect(
            429,
            "POST",
            &chat,
            &[bearer(&alice)],
            Some(json!({"text": "gl"})),
        )
        .await;
    assert_eq!(flood.code(), "chat/rate_limited");

    // The ladder.
    api.expect(200, "GET", "/api/ladder", none, None).await;
    api.expect(200, "GET", "/api/ladder/nimrod", none, None)
        .await;
    api.expect(404, "GET", "/api/ladder/chess", none, None)
        .await;
    api.expect(
        200,
        "POST",
        "/api/ladder/nimrod/join",
        &[bearer(&bot)],
        None,
    )
    .await;
    api.expect(
        200,
        "POST",
        "/api/ladder/nimrod/leave",
        &[bearer(&bot)],
        None,
    )
    .await;
    let human = api
        .expect(
            403,
            "POST",
            "/api/ladder/nimrod/join",
            &[bearer(&alice)],
            None,
        )
        .await;
    assert_eq!(human.code(), "ladder/bots_only");

    // Reports, and the moderators' queue.
    let report =
        json!({"player": "Target", "reason": "abuse", "room": room.as_str(), "text": "rude"});
    let filed = api
        .expect(
            201,
            "POST",
            "/api/reports",
            &[bearer(&alice)],
            Some(report.clone()),
        )
        .await;
    let report_id = filed.body["id"].as_i64().unwrap();
    api.expect(409, "POST", "/api/reports", &[bearer(&alice)], Some(report))
        .await;
    api.expect(
        400,
        "POST",
        "/api/reports",
        &[bearer(&alice)],
        Some(json!({"player": "alice", "reason": "cheat"})),
    )
    .await;
    let queue = api
        .expect(200, "GET", "/api/mod/reports", &by_boss, None)
        .await;
    assert_eq!(queue.body["reports"].as_array().map(Vec::len), Some(1));
    api.expect(403, "GET", "/api/mod/reports", &[bearer(&alice)], None)
        .await;
    api.expect(400, "GET", "/api/mod/reports?status=closed", &by_boss, None)
        .await;
    let resolve = format!("/api/mod/reports/{report_id}/resolve");
    let resolution = json!({"action": "dismissed", "reason": "other", "text": "banter"});
    api.expect(200, "POST", &resolve, &by_boss, Some(resolution.clone()))
        .await;
    api.expect(404, "POST", &resolve, &by_boss, Some(resolution))
        .await;
    api.expect(200, "GET", "/api/mod/reports?status=all", &by_boss, None)
        .await;

    // Blocks.
    api.expect(201, "POST", "/api/blocks/target", &[bearer(&alice)], None)
        .await;
    let blocks = api
        .expect(200, "GET", "/api/blocks", &[bearer(&alice)], None)
        .await;
    assert_eq!(blocks.body["blocks"][0]["player"], json!("Target"));
    api.expect(204, "DELETE", "/api/blocks/Target", &[bearer(&alice)], None)
        .await;
    api.expect(400, "POST", "/api/blocks/Alice", &[bearer(&alice)], None)
        .await;
    api.expect(401, "GET", "/api/blocks", none, None).await;

    // Follows.
    api.expect(201, "POST", "/api/follows/target", &[bearer(&alice)], None)
        .await;
    let follows = api
        .expect(200, "GET", "/api/follows", &[bearer(&alice)], None)
        .await;
    assert_eq!(follows.body["follows"][0]["player"], json!("Target"));
    api.expect(
        204,
        "DELETE",
        "/api/follows/Target",
        &[bearer(&alice)],
        None,
    )
    .await;
    api.expect(400, "POST", "/api/follows/Alice", &[bearer(&alice)], None)
        .await;
    api.expect(401, "GET", "/api/follows", none, None).await;

    // The fair-play review.
    api.expect(
        200,
        "GET",
        "/api/mod/fairplay?game=nimrod&min=1",
        &by_boss,
        None,
    )
    .await;
    api.expect(400, "GET", "/api/mod/fairplay", &by_boss, None)
        .await;
    api.expect(
        403,
        "GET",
        "/api/mod/fairplay?game=nimrod",
        &[bearer(&alice)],
        None,
    )
    .await;

    let missed = api.unexercised();
    assert!(
        missed.is_empty(),
        "documented but never exercised: {missed:#?}"
    );
    server.stop().await.unwrap();
}

/// A path of `template` with every parameter filled with a value of its
/// documented type.
fn concrete(doc: &Value, template: &str, method: &str) -> String {
    let params = &doc["paths"][template][method]["parameters"];
    template
        .split('/')
        .map(|part| {
            let Some(name) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) else {
                return part.to_owned();
            };
            let param = params
                .as_array()
                .and_then(|ps| {
                    ps.iter()
                        .find(|p| p["name"] == json!(name) && p["in"] == json!("path"))
                })
                .unwrap_or_else(|| {
                    panic!("{method} {template}: {{{name}}} is not a documented parameter")
                });
            let schema = match param["schema"]["$ref"].as_str() {
                Some(r) => resolve(doc, r),
                None => &param["schema"],
            };
            match (&schema["type"], schema["enum"].get(0)) {
                (_, Some(first)) => first.as_str().unwrap().to_owned(),
                (t, None) if t == "integer" => "12".to_owned(),
                _ => "ab12".to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether the route table serves `method` on `target` (rather than
/// refusing it as no path or a method the path does not take), and the
/// methods it says the path takes when it refuses the method.
fn served(method: &str, target: &str) -> Result<(), Option<String>> {
    match route(method, target) {
        Route::Json(Endpoint::MethodNotAllowed(allowed)) => Err(Some(allowed.to_owned())),
        Route::Json(Endpoint::NotFound) => Err(None),
        Route::Json(_) => Ok(()),
        Route::Plain(Plain::Wire(parlor_server::http::Route::MethodNotAllowed)) => {
            Err(Some("GET, HEAD".to_owned()))
        }
        Route::Plain(Plain::Wire(_)) => Err(None),
        Route::Plain(_) => Ok(()),
    }
}

#[test]
fn every_documented_path_and_method_is_routed_and_no_other_method() {
    let doc = document();
    for (template, methods) in operations(&doc) {
        let method = methods.iter().next().unwrap();
        let target = concrete(&doc, &template, method);
        for m in &methods {
            let upper = m.to_ascii_uppercase();
            let answer = served(&upper, &target);
            assert_eq!(
                answer,
                Ok(()),
                "{upper} {template} ({target}) is documented but not routed"
            );
        }
        for m in METHODS.into_iter().filter(|m| !methods.contains(*m)) {
            let upper = m.to_ascii_uppercase();
            let answer = served(&upper, &target);
            // Plain answers take HEAD as GET (the document says so).
            let plain = matches!(route("GET", &target), Route::Plain(_));
            if m == "head" && plain && methods.contains("get") {
                assert_eq!(answer, Ok(()), "HEAD {target}");
                continue;
            }
            let Err(Some(allowed)) = answer else {
                panic!("{upper} {target}: the route table serves it ({answer:?}) but the document lacks it");
            };
            let mut documented: Vec<String> =
                methods.iter().map(|m| m.to_ascii_uppercase()).collect();
            if plain {
                documented.push("HEAD".into());
            }
            let mut said: Vec<String> = allowed.split(", ").map(str::to_owned).collect();
            documented.sort();
            said.sort();
            assert_eq!(said, documented, "{upper} {target}: Allow: {allowed}");
        }
    }
    // Every moderation action has its documented path.
    for action in ModAction::ALL {
        let target = format!("/api/mod/accounts/Bob/{}", action.as_str());
        let routed = served("POST", &target).is_ok();
        let documented = doc["paths"][format!("/api/mod/accounts/{{name}}/{}", action.as_str())]
            ["post"]
            .is_object();
        assert_eq!(routed, documented, "{target}");
    }
}

/// Every `pub const NAME: &str = "/...";` under `dir`, recursively, as
/// (file, name, value).
fn route_constants(dir: &Path) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(route_constants(&path));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("pub const ") else {
                continue;
            };
            let Some((name, value)) = rest.split_once(": &str = \"") else {
                continue;
            };
            let Some(value) = value.strip_suffix("\";") else {
                continue;
            };
            if value.starts_with('/') {
                out.push((
                    path.display().to_string(),
                    name.to_owned(),
                    value.to_owned(),
                ));
            }
        }
    }
    out
}

#[test]
fn every_route_constant_of_the_api_is_in_the_document() {
    let doc = document();
    let paths: Vec<String> = operations(&doc).into_keys().collect();
    let api = Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src/api");
    let constants = route_constants(&api);
    // The scan finds what the code declares (a rewritten declaration
    // would otherwise make this test pass on nothing).
    for (name, value) in [
        ("ACCOUNTS_PATH", parlor_server::api::route::ACCOUNTS_PATH),
        ("LEDGER_PATH", parlor_server::api::ratings::LEDGER_PATH),
        (
            "MOD_ACCOUNTS_PREFIX",
            parlor_server::api::moderation::MOD_ACCOUNTS_PREFIX,
        ),
        (
            "HISTORY_SUFFIX",
            parlor_server::api::players::HISTORY_SUFFIX,
        ),
        ("OPENAPI_PATH", parlor_server::api::openapi::OPENAPI_PATH),
    ] {
        assert!(
            constants.iter().any(|(_, n, v)| n == name && v == value),
            "{name} was not found in {}",
            api.display()
        );
    }
    assert!(constants.len() >= 20, "{constants:?}");
    for (file, name, value) in &constants {
        let covered = if name.ends_with("_PREFIX") {
            paths
                .iter()
                .any(|p| p.starts_with(value.as_str()) && p.len() > value.len())
        } else if name.ends_with("_SUFFIX") {
            paths.iter().any(|p| p.ends_with(value.as_str()))
        } else if name.ends_with("_PATH") {
            paths.iter().any(|p| p == value)
        } else {
            paths.iter().any(|p| p.contains(value.as_str()))
        };
        assert!(
            covered,
            "{name} = {value:?} ({file}) is not in docs/api/openapi.json"
        );
    }
}

/// Every string value of `key` anywhere in `v`'s arrays named `enum`
/// under a `code` property.
fn error_codes(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(codes) = m.get("code").and_then(|c| c["enum"].as_array()) {
                out.extend(codes.iter().filter_map(|c| c.as_str().map(str::to_owned)));
            }
            m.values().for_each(|x| error_codes(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| error_codes(x, out)),
        _ => {}
    }
}

/// Every `$ref` in `v`.
fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                out.push(r.to_owned());
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

fn enum_of(doc: &Value, schema: &str) -> Vec<String> {
    doc["components"]["schemas"][schema]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{schema} has no enum"))
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_documents_closed_sets_are_the_codes_and_its_schemas_are_sound() {
    let doc = document();
    assert_eq!(doc["openapi"], json!("3.1.0"));
    let names = |all: Vec<&str>| all.into_iter().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        enum_of(&doc, "Game"),
        names(GameKind::ALL.iter().map(|g| g.name()).collect())
    );
    assert_eq!(
        enum_of(&doc, "ModReason"),
        names(ModReason::ALL.map(ModReason::as_str).to_vec())
    );
    assert_eq!(
        enum_of(&doc, "ModAction"),
        names(ModAction::ALL.map(ModAction::as_str).to_vec())
    );
    assert_eq!(
        enum_of(&doc, "ReportReason"),
        names(ReportReason::ALL.map(ReportReason::as_str).to_vec())
    );
    assert_eq!(
        enum_of(&doc, "Resolution"),
        names(Resolution::ALL.map(Resolution::as_str).to_vec())
    );

    let mut codes = BTreeSet::new();
    error_codes(&doc, &mut codes);
    assert!(codes.len() > 40, "{codes:?}");
    for code in &codes {
        assert!(
            code.parse::<ErrorCode>().is_ok(),
            "{code} is no error code of the catalogue"
        );
    }

    let mut all = Vec::new();
    refs(&doc, &mut all);
    for r in &all {
        resolve(&doc, r);
    }
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
            panic!("components.schemas.{name} is not JSON Schema 2020-12: {e}");
        }
    }

    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path}: no operationId"));
            assert!(ids.insert(id.to_owned()), "{id} twice");
            let responses = op["responses"].as_object().unwrap();
            assert!(
                responses.keys().any(|s| s.starts_with('2')),
                "{method} {path}: no success documented"
            );
            for status in responses.keys() {
                assert!(
                    status.parse::<u16>().is_ok_and(|s| (100..600).contains(&s)),
                    "{method} {path}: {status}"
                );
            }
        }
    }
}

/// Whether `value` (one of the code's own answers, serialised) is valid
/// as the component schema `name`; panics saying why not.
fn assert_valid_as(doc: &Value, name: &str, value: &impl serde::Serialize) {
    let value = serde_json::to_value(value).unwrap();
    let schema = json!({"$ref": format!("#/components/schemas/{name}")});
    let why = invalid(doc, &schema, &value);
    assert!(why.is_empty(), "{name}:\n{}\n{value}", why.join("\n"));
}

/// The shapes a short live run leaves empty or partial (a running
/// event's rounds, a ladder's finished games, a leaderboard's rows, a
/// log's every header field, a resolved report, a flagged account) are
/// checked from the code's own types, every optional field filled.
#[test]
fn the_codes_own_answers_fully_filled_are_valid_against_the_document() {
    use parlor_competition::tournament::{ArenaPairing, Format, Standing};
    use parlor_competition::Rating;
    use parlor_games::{Outcome, Seat, SeatSet};
    use parlor_protocol::{
        Channel, ChatLine, Clock, Closed, Deal, EntrantKind, EventGame, LadderEntrantInfo,
        LadderGame, LadderGameInfo, LadderInfo, LadderResult, Leaderboard, LeaderboardRow,
        LogEntry, LoggedAction, MatchHeader, MatchLog, MatchedGame, NewTournament, Phrase, RoomId,
        TournamentGame, TournamentInfo, TournamentPlayer, TournamentResult, TournamentStatus,
        TournamentSummary,
    };
    use parlor_server::fair_play::review::boosting::Booster;
    use parlor_server::fair_play::review::view::Flagged;
    use parlor_server::fair_play::review::Review;
    use parlor_server::moderation::log::Entry;
    use parlor_server::reports::Report;

    let doc = document();
    let room = RoomId::new("3c32571558e3").unwrap();
    let clocks = [
        Clock::PerMove { ms: 30_000 },
        Clock::Increment {
            main_ms: 300_000,
            increment_ms: 2_000,
        },
        Clock::DaysPerMove(3),
    ];
    for clock in &clocks {
        assert_valid_as(&doc, "Clock", clock);
    }
    let info = TournamentInfo {
        id: "ab12".into(),
        name: "Nimrod arena".into(),
        created_by: "Alice".into(),
        game: GameKind::Nimrod,
        format: Format::Arena,
        status: TournamentStatus::Cancelled,
        rounds_total: Some(3),
        rounds_asked: Some(3),
        minutes: Some(30),
        options: json!({"piles": [3, 5]}),
        clock: clocks[1],
        rated: true,
        duplicate: true,
        kind: EntrantKind::Bot,
        starts_at_ms: 1,
        max_players: 16,
        commitment: "ab".repeat(32),
        seed: Some("cd".repeat(32)),
        players: vec![TournamentPlayer {
            name: "Alice".into(),
            rating: Some(1500.0),
            withdrawn: true,
        }],
        rounds: vec![vec![
            TournamentGame {
                room: Some(room.clone()),
                seats: vec!["Alice".into(), "Bob".into()],
                result: Some(TournamentResult {
                    winners: vec![Seat(0)],
                    end: Some(parlor_protocol::GameEnd::Time),
                }),
            },
            TournamentGame {
                room: None,
                seats: vec!["Carol".into(), "Dan".into()],
                result: None,
            },
        ]],
        byes: vec![Some("Eve".into()), None],
        waiting: vec![vec!["Eve".into()]],
        standings: vec![Standing {
            name: "Alice".into(),
            points: 2.5,
            tiebreak: 1.0,
            games: 3,
        }],
        tiebreak: "Sonneborn-Berger".into(),
        arena_pairing: Some(ArenaPairing::WaitsFirst),
        cancelled: Some("fewer than two players".into()),
    };
    assert_valid_as(&doc, "TournamentInfo", &info);
    let summary = TournamentSummary {
        id: "ab12".into(),
        name: "Nimrod arena".into(),
        game: GameKind::Cribbage,
        format: Format::RoundRobin,
        status: TournamentStatus::Running,
        starts_at_ms: 1,
        players: 2,
        max_players: 16,
        round: 1,
        rated: false,
        kind: EntrantKind::Any,
        entered: Some(false),
    };
    assert_valid_as(&doc, "TournamentSummary", &summary);
    let new = NewTournament {
        game: GameKind::Rummikub,
        format: Format::Swiss,
        name: Some("Swiss".into()),
        rounds: Some(5),
        minutes: Some(60),
        seats: Some(2),
        options: json!({}),
        clock: Some(clocks[0]),
        rated: true,
        starts_at_ms: 1,
        max_players: Some(32),
        duplicate: true,
        kind: EntrantKind::Human,
    };
    assert_valid_as(&doc, "NewTournament", &new);

    let game = |result: Option<LadderResult>, ended_ms| LadderGameInfo {
        room: room.clone(),
        seats: vec!["bot-a".into(), "bot-b".into()],
        started_ms: 1,
        result,
        end: result.map(|_| parlor_protocol::GameEnd::Resigned),
        ended_ms,
    };
    let ladder = LadderInfo {
        game: GameKind::Mitsudomoe,
        running: true,
        entrants: vec![LadderEntrantInfo {
            name: "bot-a".into(),
            rating: 1600.0,
            rd: 80.0,
            provisional: false,
            games: 4,
            wins: 2,
            losses: 1,
            draws: 1,
            connected: true,
            playing: 1,
            builtin: true,
        }],
        playing: vec![game(None, None)],
        recent: [
            LadderResult::Seat0,
            LadderResult::Seat1,
            LadderResult::Draw,
            LadderResult::Void,
        ]
        .into_iter()
        .map(|r| game(Some(r), Some(2)))
        .collect(),
        max_games: 2,
        daily_cap: 10,
    };
    assert_valid_as(&doc, "LadderInfo", &ladder);
    let board = Leaderboard {
        game: "nimrod".into(),
        players: vec![LeaderboardRow {
            rank: 1,
            name: "Alice".into(),
            kind: "human".into(),
            rating: 1712.5,
            rd: 60.0,
            games: 40,
        }],
    };
    assert_valid_as(&doc, "Leaderboard", &board);

    let rating = Rating {
        rating: 1500.0,
        rd: 350.0,
        vol: 0.06,
    };
    assert_valid_as(&doc, "Rating", &rating);
    let header = MatchHeader {
        game: GameKind::Cribbage,
        options: json!({"to": 121}),
        seats: 2,
        seed: Some(u64::MAX),
        deal: Some(Deal {
            commitment: "ab".repeat(32),
            server_seed: "cd".repeat(32),
            salt: "ef".repeat(16),
            client_seeds: vec![Some("seed".into()), None],
            bot_seats: vec![Seat(1)],
        }),
        clock: Some(clocks[2]),
        rated: true,
        event: Some(Box::new(EventGame {
            event: "ab12".into(),
            round: 1,
            board: 0,
            deal: 1,
            players: vec!["Alice".into(), "Bob".into()],
            siblings: vec![room.clone()],
        })),
        ladder: Some(Box::new(LadderGame {
            players: vec!["bot-a".into(), "bot-b".into()],
            strategies: vec![Some("random".into()), None],
        })),
        matched: Some(Box::new(MatchedGame {
            players: vec!["Alice".into(), "Bob".into()],
        })),
    };
    let log = |outcome, closed| MatchLog {
        room: room.clone(),
        header: header.clone(),
        moves: vec![
            LogEntry {
                seq: 0,
                seat: Seat(0),
                action: LoggedAction::Move(json!({"take": 1})),
            },
            LogEntry {
                seq: 1,
                seat: Seat(1),
                action: LoggedAction::TimeoutMove(json!("pass")),
            },
            LogEntry {
                seq: 2,
                seat: Seat(0),
                action: LoggedAction::Forfeit,
            },
        ],
        outcome,
        closed,
        players: vec!["Alice".into(), "Bob".into()],
        chat: vec![ChatLine {
            id: 1,
            at_ms: 1,
            name: "Alice".into(),
            to: Channel::Spectators,
            text: "Good game".into(),
            phrase: Some(Phrase::GoodGame),
        }],
    };
    let won = Outcome::Win {
        winners: SeatSet::single(Seat(1)),
    };
    assert_valid_as(&doc, "MatchLog", &log(Some(won), None));
    assert_valid_as(&doc, "MatchLog", &log(Some(Outcome::Draw), None));
    for closed in [Closed::NeverStarted, Closed::Abandoned, Closed::Aborted] {
        assert_valid_as(&doc, "LogsLine", &log(None, Some(closed)));
    }

    let resolved = Report {
        id: 1,
        at_ms: 1,
        reporter: "Alice".into(),
        player: "Bob".into(),
        reason: ReportReason::Boost,
        room: Some(room.to_string()),
        text: "farming".into(),
        player_open: 0,
        resolved_ms: Some(2),
        resolved_by: Some("Mia".into()),
        resolution: Some(Resolution::Actioned),
    };
    assert_valid_as(&doc, "Report", &resolved);
    let entry = Entry {
        id: 1,
        at_ms: 1,
        moderator: "Mia".into(),
        action: ModAction::Resolve,
        account: Some("Bob".into()),
        room: Some(room.to_string()),
        reason: ModReason::Boosting,
        text: "".into(),
        detail: Some(json!({"report": 1, "resolution": "actioned"})),
    };
    assert_valid_as(&doc, "ModLogEntry", &entry);
    let review = Review {
        game: "nimrod".into(),
        min: 30,
        alpha: 1e-4,
        counted: 40,
        tested: 3,
        flagged: vec![Flagged {
            name: "Oracle".into(),
            choices: 120,
            agreed: 118,
            rate: 118.0 / 120.0,
            p0: 0.6,
            p_value: 1e-12,
            games: 12,
            rooms: vec![room.to_string()],
            links: vec![format!("/#/replay/{room}")],
            mark: Some("engine".into()),
        }],
        boosting: vec![Booster {
            name: "Feeder".into(),
            early_results: 6,
            wins: 0,
            losses: 6,
            partner: "Farmer".into(),
            with_partner: 6,
            games: vec![room.to_string()],
        }],
    };
    assert_valid_as(&doc, "FairPlayReview", &review);
}
