//! Moderation end to end: roles granted with the built `parlor-server
//! accounts role` while the server runs (SQLite, and PostgreSQL, skipped
//! without it except under `CI=true`); every `/api/mod/` route refused to
//! players (`mod/forbidden`) and to the signed-out (`auth/required`); no
//! moderator acts on an admin (`mod/protected`); closing an account closes
//! its socket (4002), refuses its logins (`auth/closed`), resigns its
//! rated match as a loss and takes it out of the ladder; a mark drops it
//! from the leaderboard and keeps its rated seeks among marked accounts;
//! a play ban refuses play (`play/banned`, with the reason's words) until
//! it ends; the log lists every action; the player page shows the public
//! history without text or moderator.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Output;

use parlor_games::{Outcome, Seat};
use parlor_protocol::{ErrorCode, RoomId, ServerMsg};
use parlor_server::moderation::standing_store::{Column, StandingStore};
use parlor_server::store::open_beside;
use parlor_server::testing::ScratchSchema;
use parlor_server::{Config, StoreConfig, Sync};
use parlor_tests::http::{account_of_kind_with_token, basic, bearer, login, request};
use parlor_tests::rating::{ledger, play_out_first_legal, rated_match};
use parlor_tests::seeking::{matched, seek_id, signed_in};
use parlor_tests::{start_server_with, Raw, Received, TestServer, PATIENCE};
use serde_json::{json, Value};

/// The close code of a connection whose credential ended.
const CLOSE_REVOKED: u16 = 4002;

/// The server binary built beside this test (`target/<profile>/`).
pub(crate) fn server_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("parlor-server");
    assert!(
        bin.exists(),
        "{} is missing: build it (cargo build -p parlor-server)",
        bin.display()
    );
    bin
}

/// Runs `parlor-server accounts role NAME ROLE` on the database `db`
/// (`["--db", path]` or `["--cluster", url]`).
pub(crate) fn grant(db: &[&str], name: &str, role: &str) -> Output {
    std::process::Command::new(server_bin())
        .args(["accounts", "role", name, role])
        .args(db)
        .output()
        .unwrap()
}

/// Grants `role` to `name` and checks it said so.
pub(crate) fn granted(db: &[&str], name: &str, role: &str) {
    let out = grant(db, name, role);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains(&format!("{name}: role {role}")), "{said}");
}

/// A server on a SQLite file, the file's path, and its directory.
pub(crate) async fn sqlite_server() -> (tempfile::TempDir, PathBuf, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parlor.db");
    let server = start_server_with(Config {
        store: StoreConfig::Sqlite {
            db: Some(db.clone()),
            sync: Sync::Normal,
        },
        ..Config::default()
    })
    .await;
    (dir, db, server)
}

/// A human account's token.
pub(crate) async fn human(addr: SocketAddr, name: &str) -> String {
    account_of_kind_with_token(addr, name, "human").await.0
}

/// A new token of the account `name`.
async fn token_of(addr: SocketAddr, name: &str) -> String {
    let made = request(
        addr,
        "POST",
        "/api/tokens",
        &[basic(name, "correct horse")],
        None,
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    made.body["token"].as_str().unwrap().to_owned()
}

/// `POST /api/mod/accounts/NAME/ACTION` as the holder of `token`.
pub(crate) async fn act(
    addr: SocketAddr,
    token: &str,
    name: &str,
    action: &str,
    body: Value,
) -> (u16, Value) {
    let a = request(
        addr,
        "POST",
        &format!("/api/mod/accounts/{name}/{action}"),
        &[bearer(token)],
        Some(body),
    )
    .await;
    (a.status, a.body)
}

/// Every route this part serves, with a body each would take.
fn routes(target: &str) -> Vec<(&'static str, String, Option<Value>)> {
    let why = json!({"reason": "abuse", "text": "t"});
    let mut out: Vec<(&'static str, String, Option<Value>)> = [
        "close", "reopen", "mark", "unmark", "mute", "playban", "role",
    ]
    .iter()
    .map(|a| {
        let mut body = why.clone();
        body["mark"] = json!("engine");
        body["minutes"] = json!(5);
        body["role"] = json!("moderator");
        (
            "POST",
            format!("/api/mod/accounts/{target}/{a}"),
            Some(body),
        )
    })
    .collect();
    out.push(("GET", "/api/mod/log".into(), None));
    out.push(("GET", format!("/api/mod/log?account={target}"), None));
    out
}

/// Reads `c` until its connection is closed with code 4002, having been
/// told `auth/revoked`, within [`PATIENCE`] (other messages keep coming
/// meanwhile, so each read's own patience alone would not end a wait).
async fn closed_at_once(c: &mut Raw) {
    tokio::time::timeout(PATIENCE, close_frame(c))
        .await
        .unwrap_or_else(|_| panic!("not closed within {PATIENCE:?}"));
}

async fn close_frame(c: &mut Raw) {
    let mut told = false;
    loop {
        match c.next().await {
            Received::Msg(ServerMsg::Error {
                code: ErrorCode::AuthRevoked,
                ..
            }) => told = true,
            Received::Msg(_) => {}
            Received::Closed(Some(f)) => {
                assert!(told, "auth/revoked came first");
                assert_eq!(u16::from(f.code), CLOSE_REVOKED, "{f:?}");
                return;
            }
            Received::Closed(None) => panic!("closed without a close frame"),
        }
    }
}

/// Reads `c`'s updates of `room` until the match is over, within
/// [`PATIENCE`]: its outcome.
async fn outcome(c: &mut Raw, room: &RoomId) -> Outcome {
    let over = async {
        loop {
            if let Some(o) = c.update(room).await.outcome {
                return o;
            }
        }
    };
    tokio::time::timeout(PATIENCE, over)
        .await
        .unwrap_or_else(|_| panic!("the match did not end within {PATIENCE:?}"))
}

/// The next refusal `c` gets, which must be `code`: (message, detail).
async fn refused(c: &mut Raw, code: ErrorCode) -> (String, Value) {
    match c.expect_error(code).await {
        ServerMsg::Error {
            message, detail, ..
        } => (message, detail.unwrap_or(Value::Null)),
        other => panic!("{other:?}"),
    }
}

fn rated_seek(piles: [u64; 2]) -> Value {
    json!({"type": "seek", "game": "nimrod", "options": {"piles": piles}, "rated": true})
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_are_granted_on_the_server_machine_and_only_moderators_moderate() {
    let (_dir, db, server) = sqlite_server().await;
    let addr = server.addr();
    let db_arg = ["--db", db.to_str().unwrap()];
    let mia = human(addr, "mia").await;
    let ada = human(addr, "ada").await;
    let pam = human(addr, "pam").await;

    let unknown = grant(&db_arg, "nobody", "moderator");
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no account is named nobody"));
    // Granted while the server runs.
    granted(&db_arg, "mia", "moderator");
    granted(&db_arg, "ada", "admin");

    // A player, and the signed-out, are refused on every route.
    for (method, path, body) in routes("ada") {
        let a = request(addr, method, &path, &[bearer(&pam)], body.clone()).await;
        assert_eq!((a.status, a.code()), (403, "mod/forbidden"), "{path}");
        let a = request(addr, method, &path, &[], body).await;
        assert_eq!((a.status, a.code()), (401, "auth/required"), "{path}");
    }
    // A moderator acts on no admin, nor on itself; grants no role.
    let why = json!({"reason": "abuse", "text": "test"});
    let (status, body) = act(addr, &mia, "ada", "close", why.clone()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("mod/protected"))
    );
    let (status, body) = act(
        addr,
        &mia,
        "mia",
        "playban",
        json!({"reason": "abuse", "minutes": 5}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("mod/protected"))
    );
    let (status, body) = act(
        addr,
        &mia,
        "pam",
        "role",
        json!({"reason": "request", "role": "moderator"}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("mod/forbidden"))
    );
    // Refused bodies say why.
    let (status, body) = act(addr, &mia, "pam", "close", json!({"reason": "because"})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("mod/bad_request"))
    );
    let (status, body) = act(addr, &mia, "nobody", "close", why.clone()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("mod/unknown_account"))
    );
    let long = json!({"reason": "abuse", "text": "x".repeat(1_001)});
    let (status, _) = act(addr, &mia, "pam", "close", long).await;
    assert_eq!(status, 400);

    // An admin grants and takes `moderator` over the API, never `admin`.
    let (status, body) = act(
        addr,
        &ada,
        "pam",
        "role",
        json!({"reason": "request", "role": "admin"}),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("mod/bad_request"))
    );
    let (status, entry) = act(
        addr,
        &ada,
        "pam",
        "role",
        json!({"reason": "request", "text": "helps", "role": "moderator"}),
    )
    .await;
    assert_eq!(status, 200, "{entry}");
    assert_eq!(entry["detail"]["role"], "moderator");
    assert_eq!(entry["moderator"], "ada");
    let log = request(addr, "GET", "/api/mod/log", &[bearer(&pam)], None).await;
    assert_eq!(log.status, 200, "{log:?}");
    let (status, _) = act(
        addr,
        &ada,
        "pam",
        "role",
        json!({"reason": "mistake", "role": "player"}),
    )
    .await;
    assert_eq!(status, 200);
    let log = request(addr, "GET", "/api/mod/log", &[bearer(&pam)], None).await;
    assert_eq!((log.status, log.code()), (403, "mod/forbidden"));

    // The log: every role change, newest first, the machine's by `server`.
    let log = request(addr, "GET", "/api/mod/log", &[bearer(&mia)], None).await;
    let entries = log.body["entries"].as_array().unwrap();
    let seen: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["moderator"].as_str().unwrap(),
                e["action"].as_str().unwrap(),
                e["account"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("ada", "role", "pam"),
            ("ada", "role", "pam"),
            ("server", "role", "ada"),
            ("server", "role", "mia"),
        ]
    );
    let ids: Vec<i64> = entries.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    let page = request(
        addr,
        "GET",
        &format!("/api/mod/log?before={}&limit=1", ids[1]),
        &[bearer(&mia)],
        None,
    )
    .await;
    assert_eq!(page.body["entries"][0]["id"].as_i64(), Some(ids[2]));
    assert_eq!(page.body["entries"].as_array().map(Vec::len), Some(1));
    // Role changes are not part of a player page's history.
    let page = request(addr, "GET", "/api/players/pam", &[], None).await;
    assert_eq!(
        page.body["moderation"],
        json!({"closed": false, "mark": null, "history": []})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_an_account_ends_its_socket_and_match_and_takes_it_out_of_the_ladder() {
    let (_dir, db, server) = sqlite_server().await;
    let (addr, url) = (server.addr(), server.url());
    let mia = human(addr, "mia").await;
    granted(&["--db", db.to_str().unwrap()], "mia", "moderator");

    // cal and dee in a rated match, cal's socket open.
    let (cal_token, _) = account_of_kind_with_token(addr, "cal", "human").await;
    let (dee_token, _) = account_of_kind_with_token(addr, "dee", "human").await;
    let mut cal = signed_in(&url, &cal_token).await;
    let mut dee = signed_in(&url, &dee_token).await;
    let sc = seek_id(&mut cal, rated_seek([5, 6])).await;
    let sd = seek_id(&mut dee, rated_seek([5, 6])).await;
    let (room, _, _, _) = matched(&mut cal, sc).await;
    let (room_d, dee_seat, _, _) = matched(&mut dee, sd).await;
    assert_eq!(room, room_d);
    // A bot in the ladder.
    let (bix, _) = account_of_kind_with_token(addr, "bix", "bot").await;
    let joined = request(
        addr,
        "POST",
        "/api/ladder/nimrod/join",
        &[bearer(&bix)],
        None,
    )
    .await;
    assert_eq!(joined.status, 200, "{joined:?}");
    let in_ladder = |body: &Value| {
        body["entrants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "bix")
    };
    let page = request(addr, "GET", "/api/ladder/nimrod", &[], None).await;
    assert!(in_ladder(&page.body), "{}", page.body);
    // cal entered in an upcoming tournament.
    let event = json!({"game": "nimrod", "format": "swiss", "rounds": 1,
                       "options": {"piles": [3, 5]}, "starts_at_ms": now_ms() + 3_600_000});
    let made = request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(&mia)],
        Some(event),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let event_path = format!("/api/tournaments/{}", made.body["id"].as_str().unwrap());
    let entered = request(
        addr,
        "POST",
        &format!("{event_path}/join"),
        &[bearer(&cal_token)],
        None,
    )
    .await;
    assert_eq!(entered.status, 200, "{entered:?}");
    let entrants = |body: &Value| body["players"].as_array().unwrap().len();
    let page = request(addr, "GET", &event_path, &[], None).await;
    assert_eq!(entrants(&page.body), 1, "{}", page.body);

    let why = json!({"reason": "fair_play", "text": "a program plays for it"});
    let (status, entry) = act(addr, &mia, "cal", "close", why.clone()).await;
    assert_eq!(status, 200, "{entry}");
    assert_eq!(entry["action"], "close");
    assert_eq!(entry["detail"]["matches_resigned"], 1, "{entry}");
    assert_eq!(entry["detail"]["tournaments_left"], 1, "{entry}");
    closed_at_once(&mut cal).await;
    let page = request(addr, "GET", &event_path, &[], None).await;
    assert_eq!(entrants(&page.body), 0, "{}", page.body);
    // The match ends as cal's loss, rated as usual.
    match outcome(&mut dee, &room).await {
        Outcome::Win { winners } => {
            assert!(winners.contains(Seat(dee_seat)), "{winners:?}");
            assert_eq!(winners.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    let lines = ledger(addr, Some("nimrod")).await;
    assert_eq!(lines.len(), 1, "the resigned match is rated");
    assert_eq!(lines[0].room, room.to_string());
    // No sign-in: the password is refused with its own code.
    let refused = login(addr, "cal", "correct horse").await;
    assert_eq!((refused.status, refused.code()), (403, "auth/closed"));
    let again = request(addr, "GET", "/api/tokens", &[bearer(&cal_token)], None).await;
    assert_eq!(again.status, 401, "its token ended");
    let (status, _) = act(addr, &mia, "cal", "close", why.clone()).await;
    assert_eq!(status, 400, "closed already");

    // The ladder's entrant leaves it when closed.
    let (status, entry) = act(addr, &mia, "bix", "close", why.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(entry["detail"]["ladders_left"], 1, "{entry}");
    let page = request(addr, "GET", "/api/ladder/nimrod", &[], None).await;
    assert!(!in_ladder(&page.body), "{}", page.body);

    // The public page says so, without text or moderator.
    let page = request(addr, "GET", "/api/players/cal", &[], None).await;
    assert_eq!(page.status, 200);
    let m = &page.body["moderation"];
    assert_eq!(m["closed"], true);
    let history = m["history"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["action"], "close");
    assert_eq!(history[0]["why"], "fair-play violation");
    assert!(history[0].get("text").is_none() && history[0].get("moderator").is_none());
    assert!(!page.text.contains("a program plays for it"));

    // Reopened: the owner logs in again with the password.
    let (status, _) = act(addr, &mia, "cal", "reopen", json!({"reason": "mistake"})).await;
    assert_eq!(status, 200);
    assert_eq!(login(addr, "cal", "correct horse").await.status, 200);
    let log = request(
        addr,
        "GET",
        "/api/mod/log?account=CAL",
        &[bearer(&mia)],
        None,
    )
    .await;
    let actions: Vec<&str> = log.body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["reopen", "close"]);
}

/// Whether `name` is on the Nimrod leaderboard.
async fn on_board(addr: SocketAddr, name: &str) -> bool {
    let board = request(addr, "GET", "/api/leaderboard/nimrod", &[], None).await;
    board.body["players"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == name)
}

/// Marks: the leaderboard and rated pairing; on `db` (`--db` or
/// `--cluster`), the server's database reached at `beside`.
async fn marks_keep_marked_accounts_apart(
    server: &TestServer,
    db: &[&str],
    beside: (&Path, Option<&str>),
) {
    let (addr, url) = (server.addr(), server.url());
    let mia = human(addr, "mia").await;
    granted(db, "mia", "moderator");
    let (mut players, room, first) = rated_match(
        addr,
        &url,
        &["eve", "fay"],
        "nimrod",
        json!({"piles": [2, 3]}),
    )
    .await;
    play_out_first_legal(&mut players, &room, first).await;
    // Settled ratings (as many games would make them), so both are shown.
    let store = open_beside(beside.0, beside.1).await.unwrap();
    store
        .exec("UPDATE ratings SET rd = 60", Vec::new())
        .await
        .unwrap();
    assert!(on_board(addr, "eve").await && on_board(addr, "fay").await);

    let mark = |m: &str, from: i64| json!({"reason": "fair_play", "mark": m, "void_from_ms": from});
    let (status, _) = act(
        addr,
        &mia,
        "eve",
        "mark",
        mark("engine", now_ms() + 3_600_000),
    )
    .await;
    assert_eq!(status, 400, "no void from the future");
    let (status, _) = act(addr, &mia, "eve", "mark", mark("cheater", 0)).await;
    assert_eq!(status, 400);
    let from = now_ms() - 60_000;
    let (status, entry) = act(addr, &mia, "eve", "mark", mark("engine", from)).await;
    assert_eq!(status, 200, "{entry}");
    assert_eq!(entry["detail"]["mark"], json!("engine"), "{entry}");
    assert_eq!(entry["detail"]["void_from_ms"], json!(from), "{entry}");
    // Its rated results from then on were voided by correction lines
    // (numbered in the public ledger).
    assert!(entry["detail"]["correction_lines"].is_array(), "{entry}");
    assert!(!on_board(addr, "eve").await);
    assert!(on_board(addr, "fay").await);
    let page = request(addr, "GET", "/api/players/eve", &[], None).await;
    assert_eq!(page.body["moderation"]["mark"], "engine");
    assert_eq!(
        page.body["moderation"]["history"][0]["why"],
        "fair-play violation"
    );

    // Rated seeks: eve (marked) first, then gus (not), then hal (marked):
    // eve meets hal, not gus.
    let eve_token = token_of(addr, "eve").await;
    let (gus_t, _) = account_of_kind_with_token(addr, "gus", "bot").await;
    let (hal_t, _) = account_of_kind_with_token(addr, "hal", "bot").await;
    // hal, in the ladder, leaves its pages when marked.
    let joined = request(
        addr,
        "POST",
        "/api/ladder/nimrod/join",
        &[bearer(&hal_t)],
        None,
    )
    .await;
    assert_eq!(joined.status, 200, "{joined:?}");
    let in_ladder = || async {
        let page = request(addr, "GET", "/api/ladder/nimrod", &[], None).await;
        page.body["entrants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "hal")
    };
    assert!(in_ladder().await);
    let (status, _) = act(
        addr,
        &mia,
        "hal",
        "mark",
        json!({"reason": "boosting", "mark": "booster"}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(!in_ladder().await);
    let mut eve = signed_in(&url, &eve_token).await;
    let mut gus = signed_in(&url, &gus_t).await;
    let mut hal = signed_in(&url, &hal_t).await;
    let se = seek_id(&mut eve, rated_seek([4, 7])).await;
    seek_id(&mut gus, rated_seek([4, 7])).await;
    // Time for a pairing round that would pair eve with gus.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    seek_id(&mut hal, rated_seek([4, 7])).await;
    let (_, _, players, _) = matched(&mut eve, se).await;
    let mut players = players;
    players.sort();
    assert_eq!(players, ["eve", "hal"]);
    // A rated challenge across the mark is refused; casual is fine.
    gus.send_json(json!({"type": "challenge", "to": "eve", "game": "nimrod",
                         "options": {"piles": [1, 2]}, "rated": true}))
        .await;
    let (message, _) = refused(&mut gus, ErrorCode::ChallengeInvalid).await;
    assert!(message.contains("marked"), "{message}");
    let (status, _) = act(addr, &mia, "eve", "unmark", json!({"reason": "mistake"})).await;
    assert_eq!(status, 200);
    // The void put eve back to her rating before the voided match (a
    // newcomer's, provisional); settled again, the unmarked account is
    // shown again.
    store
        .exec("UPDATE ratings SET rd = 60", Vec::new())
        .await
        .unwrap();
    assert!(on_board(addr, "eve").await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mark_drops_the_account_from_the_leaderboard_and_its_rated_seeks_meet_marked_ones() {
    let (_dir, db, server) = sqlite_server().await;
    marks_keep_marked_accounts_apart(&server, &["--db", db.to_str().unwrap()], (&db, None)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_play_ban_refuses_play_with_its_reason_until_it_ends() {
    let (_dir, db, server) = sqlite_server().await;
    let (addr, url) = (server.addr(), server.url());
    let mia = human(addr, "mia").await;
    granted(&["--db", db.to_str().unwrap()], "mia", "moderator");
    let (pam_t, _) = account_of_kind_with_token(addr, "pam", "bot").await;
    let _other = human(addr, "oli").await;

    for minutes in [0, 43_201] {
        let (status, body) = act(
            addr,
            &mia,
            "pam",
            "playban",
            json!({"reason": "abuse", "minutes": minutes}),
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("mod/bad_request"))
        );
    }
    let (status, entry) = act(
        addr,
        &mia,
        "pam",
        "playban",
        json!({"reason": "abuse", "text": "insults", "minutes": 60}),
    )
    .await;
    assert_eq!(status, 200, "{entry}");
    assert_eq!(entry["detail"]["minutes"], 60);
    let (status, _) = act(
        addr,
        &mia,
        "pam",
        "mute",
        json!({"reason": "spam", "minutes": 10}),
    )
    .await;
    assert_eq!(status, 200);

    let mut pam = signed_in(&url, &pam_t).await;
    let asks = [
        rated_seek([2, 5]),
        json!({"type": "seek", "game": "nimrod", "options": {"piles": [2, 5]}}),
        json!({"type": "challenge", "to": "oli", "game": "nimrod", "options": {"piles": [1, 2]}}),
        json!({"type": "create_room", "game": "nimrod", "options": {"piles": [1, 2]}}),
    ];
    for ask in asks {
        pam.send_json(ask.clone()).await;
        let (message, detail) = refused(&mut pam, ErrorCode::PlayBanned).await;
        assert!(message.starts_with("you may not play until "), "{message}");
        assert!(message.ends_with(": abusive behaviour"), "{message}");
        let wait = detail["retry_after_ms"].as_u64().unwrap();
        assert!(
            wait > 59 * 60_000 && wait <= 60 * 60_000,
            "{wait} for {ask}"
        );
    }
    // Over HTTP too, with retry_after_ms.
    let ladder = request(
        addr,
        "POST",
        "/api/ladder/nimrod/join",
        &[bearer(&pam_t)],
        None,
    )
    .await;
    assert_eq!((ladder.status, ladder.code()), (403, "play/banned"));
    assert!(ladder.body["retry_after_ms"].as_u64().unwrap() > 0);

    // Once it has ended (moved into the past here), play is open again.
    let store = StandingStore::new(open_beside(&db, None).await.unwrap());
    assert!(store
        .set_time("pam", Column::PlaybanUntilMs, Some(now_ms() - 1))
        .await
        .unwrap());
    seek_id(&mut pam, rated_seek([2, 5])).await;

    // The log has both, the public page the reasons' words only.
    let log = request(
        addr,
        "GET",
        "/api/mod/log?account=pam",
        &[bearer(&mia)],
        None,
    )
    .await;
    let entries = log.body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["action"], "mute");
    assert_eq!(entries[1]["text"], "insults");
    let page = request(addr, "GET", "/api/players/pam", &[], None).await;
    let history = page.body["moderation"]["history"].as_array().unwrap();
    let whys: Vec<&str> = history.iter().map(|h| h["why"].as_str().unwrap()).collect();
    assert_eq!(whys, ["spam", "abusive behaviour"]);
    assert!(!page.text.contains("insults") && !page.text.contains("mia"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgresql_roles_closing_and_marks_work_alike() {
    let Some(scratch) = ScratchSchema::new().await else {
        return;
    };
    let url = scratch.url();
    let server = start_server_with(Config {
        store: scratch.config(),
        ..Config::default()
    })
    .await;
    let addr = server.addr();
    let db = ["--cluster", url.as_str()];
    let unknown = grant(&db, "nobody", "admin");
    assert_eq!(unknown.status.code(), Some(1));
    marks_keep_marked_accounts_apart(&server, &db, (Path::new("unused"), Some(&url))).await;

    // mia is a moderator now (granted above): close an account with an
    // open socket.
    let mia = token_of(addr, "mia").await;
    let (pgc, _) = account_of_kind_with_token(addr, "pgc", "human").await;
    let mut c = signed_in(&server.url(), &pgc).await;
    let (status, entry) = act(addr, &mia, "pgc", "close", json!({"reason": "spam"})).await;
    assert_eq!(status, 200, "{entry}");
    closed_at_once(&mut c).await;
    let refused = login(addr, "pgc", "correct horse").await;
    assert_eq!((refused.status, refused.code()), (403, "auth/closed"));
    let page = request(addr, "GET", "/api/players/pgc", &[], None).await;
    assert_eq!(page.body["moderation"]["history"][0]["why"], "spam");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_closed_on_one_node_loses_its_match_and_socket_on_another() {
    let Some((scratch, a, b)) =
        parlor_tests::two_nodes(std::time::Duration::from_millis(2_000)).await
    else {
        return;
    };
    let url = scratch.url();
    let mia = human(a.addr(), "mia").await;
    granted(&["--cluster", url.as_str()], "mia", "moderator");
    let (cal_t, _) = account_of_kind_with_token(a.addr(), "cal", "human").await;
    let (dee_t, _) = account_of_kind_with_token(a.addr(), "dee", "human").await;
    // Both play on node b; the moderator acts on node a.
    let mut cal = signed_in(&b.url(), &cal_t).await;
    let mut dee = signed_in(&b.url(), &dee_t).await;
    let sc = seek_id(&mut cal, rated_seek([4, 6])).await;
    let sd = seek_id(&mut dee, rated_seek([4, 6])).await;
    let (room, _, _, _) = matched(&mut cal, sc).await;
    let (_, dee_seat, _, _) = matched(&mut dee, sd).await;
    let (status, entry) = act(
        a.addr(),
        &mia,
        "cal",
        "close",
        json!({"reason": "fair_play"}),
    )
    .await;
    assert_eq!(status, 200, "{entry}");
    closed_at_once(&mut cal).await;
    match outcome(&mut dee, &room).await {
        Outcome::Win { winners } => assert!(winners.contains(Seat(dee_seat)), "{winners:?}"),
        other => panic!("{other:?}"),
    }
}
