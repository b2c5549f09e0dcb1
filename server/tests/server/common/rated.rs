//! Rated matches under faults (the crash and chaos tests): two accounts
//! play short rated Nimrod matches through a challenge again and again,
//! and at the end the public ledger is checked against every room they
//! played in: each finished match has exactly one line, a match that did
//! not finish (or was aborted) has none, the chain and every rating
//! re-fold exactly, and the ratings players' pages show are the fold's.

use std::time::Duration;

use parlor_competition::{ledger, Glicko2, LedgerLine};
use parlor_protocol::ServerMsg;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::live::{get_log, hello, recv_within, send, Ws};
use super::seekers::connect;

/// Longest a step of a rated match may wait for its answer.
const STEP_WITHIN: Duration = Duration::from_secs(20);

/// The piles of each rated match: short, and both seats move before it
/// ends (a rated match a seat never began is aborted, not rated).
const PILES: [u64; 2] = [3, 4];

/// Plays one rated match between `from` (token) and `to` (token, name
/// `to_name`), challenger on `url_a`, challenged on `url_b`, pushing its
/// room to `rooms` as soon as both are seated. `Ok(true)` if it finished;
/// `Err` if a connection broke or an answer did not come (a fault).
pub async fn rated_match(
    url_a: &str,
    url_b: &str,
    from: &str,
    to: &str,
    to_name: &str,
    rooms: &mut Vec<String>,
) -> Result<bool, String> {
    let mut a = connect(url_a, Some(from)).await?;
    let mut b = connect(url_b, Some(to)).await?;
    send(
        &mut a,
        json!({"type": "challenge", "to": to_name, "game": "nimrod",
               "options": {"piles": PILES}, "rated": true}),
    )
    .await?;
    // The id the challenger was given, then that challenge at the
    // challenged player: a new connection is also shown the challenges
    // still open to it, such as one whose maker was killed a moment ago
    // (its node not yet seen to have stopped), so the first one shown is
    // not necessarily this one.
    let id = loop {
        match recv_within(&mut a, STEP_WITHIN)
            .await
            .map_err(|e| format!("{e}: the challenger waiting for challenge_made"))?
        {
            ServerMsg::ChallengeMade(info) if info.to == to_name => break info.challenge,
            ServerMsg::Error { code, message, .. } => return Err(format!("{code}: {message}")),
            _ => {}
        }
    };
    loop {
        match recv_within(&mut b, STEP_WITHIN)
            .await
            .map_err(|e| format!("{e}: the challenged waiting for challenge {id}"))?
        {
            ServerMsg::ChallengeMade(info) if info.challenge == id => break,
            ServerMsg::Error { code, message, .. } => return Err(format!("{code}: {message}")),
            _ => {}
        }
    }
    send(&mut b, json!({"type": "accept", "challenge": id})).await?;
    let mut players = [a, b];
    let mut room = String::new();
    let mut seats = [0u8; 2];
    for (i, ws) in players.iter_mut().enumerate() {
        loop {
            match recv_within(ws, STEP_WITHIN)
                .await
                .map_err(|e| format!("{e}: player {i} waiting for joined"))?
            {
                ServerMsg::Joined { room: r, seat, .. } => {
                    room = r.to_string();
                    seats[i] = seat.0;
                    break;
                }
                ServerMsg::Error { code, message, .. } => return Err(format!("{code}: {message}")),
                _ => {}
            }
        }
    }
    rooms.push(room.clone());
    // By seat.
    if seats[0] != 0 {
        players.swap(0, 1);
    }
    let mut seq = 0;
    loop {
        let u = next_update(&mut players[0], &room, seq).await?;
        if u.outcome.is_some() {
            return Ok(true);
        }
        if u.closed.is_some() {
            return Ok(false);
        }
        let Some(seat) = u.to_act.iter().next() else {
            return Err("nobody to act".into());
        };
        let piles: Vec<u64> =
            serde_json::from_value(u.view["piles"].clone()).map_err(|e| e.to_string())?;
        // One from the fuller pile: both seats move at least once.
        let mv = if piles.first() >= piles.get(1) {
            json!({"take": [1, 0]})
        } else {
            json!({"take": [0, 1]})
        };
        send(
            &mut players[seat.index()],
            json!({"type": "play", "room": room, "seat": seat.0, "seq": u.seq, "move": mv}),
        )
        .await?;
        seq = u.seq + 1;
    }
}

/// The next update of `room` at `seq` or later in a started match.
async fn next_update(ws: &mut Ws, room: &str, seq: u64) -> Result<parlor_protocol::Update, String> {
    loop {
        match recv_within(ws, STEP_WITHIN).await? {
            ServerMsg::Update(u)
                if u.room.as_str() == room
                    && u.seq >= seq
                    && u.status != parlor_protocol::RoomStatus::Waiting =>
            {
                return Ok(u)
            }
            ServerMsg::Error { code, message, .. } => return Err(format!("{code}: {message}")),
            _ => {}
        }
    }
}

/// One GET over a fresh connection to `http` (`host:port`): the body.
pub async fn get(http: &str, path: &str) -> Result<String, String> {
    let text = format!("GET {path} HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n");
    let mut s = TcpStream::connect(http).await.map_err(|e| e.to_string())?;
    s.write_all(text.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut all))
        .await
        .map_err(|_| "no answer".to_string())?
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&all);
    let (head, body) = text.split_once("\r\n\r\n").ok_or("no body")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("{head}: {body}"));
    }
    Ok(body.to_owned())
}

/// The whole ledger from the server at `http`.
pub async fn ledger_of(http: &str) -> Result<Vec<LedgerLine>, String> {
    let mut lines: Vec<LedgerLine> = Vec::new();
    loop {
        let after = lines.last().map_or(0, |l| l.n);
        let page = get(http, &format!("/api/ratings/ledger?after={after}")).await?;
        let before = lines.len();
        for l in page.lines() {
            lines.push(serde_json::from_str(l).map_err(|e| format!("{e}: {l}"))?);
        }
        if lines.len() - before < 1000 {
            return Ok(lines);
        }
    }
}

/// Checks the ledger of the server at `url` (WebSocket) and `http`
/// against `rooms`, the rooms rated matches were played in, and the
/// pages of `players`: panics on a disagreement; (finished, lines).
///
/// Matches may still end while it reads (a restored room's clock), so it
/// reads the ledger, then the logs, then the ledger again: a match whose
/// log is unfinished had no line at the first read, and a finished one
/// has its line (committed with its end) by the second.
pub async fn check_ledger(
    url: &str,
    http: &str,
    rooms: &[String],
    players: &[&str],
) -> (usize, usize) {
    let earlier = ledger_of(http)
        .await
        .unwrap_or_else(|e| panic!("the ledger: {e}"));
    let (mut ws, _) = hello(url).await.unwrap_or_else(|e| panic!("{e}"));
    let mut logs = Vec::new();
    for room in rooms {
        let log = get_log(&mut ws, room)
            .await
            .unwrap_or_else(|e| panic!("{room}: {e}"));
        logs.push(log.is_some_and(|l| l.outcome.is_some()));
    }
    let lines = ledger_of(http)
        .await
        .unwrap_or_else(|e| panic!("the ledger: {e}"));
    assert!(lines.starts_with(&earlier), "the ledger's history changed");
    let standing = ledger::verify(&Glicko2::PARLOR, &lines, 0.0)
        .unwrap_or_else(|e| panic!("the ledger does not fold: {e}"));
    let count = |ls: &[LedgerLine], room: &str| ls.iter().filter(|l| l.room == room).count();
    for l in &lines {
        assert!(
            rooms.contains(&l.room),
            "a line for a room nobody played: {}",
            l.room
        );
    }
    let mut finished = 0;
    for (room, done) in rooms.iter().zip(logs) {
        if done {
            finished += 1;
            let n = count(&lines, room);
            assert_eq!(n, 1, "finished rated match {room}: {n} ledger lines");
        } else {
            let n = count(&earlier, room);
            assert_eq!(n, 0, "unfinished or aborted match {room} had a ledger line");
        }
    }
    for name in players {
        let page: Value = serde_json::from_str(
            &get(http, &format!("/api/players/{name}"))
                .await
                .unwrap_or_else(|e| panic!("{e}")),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let shown = &page["ratings"]["nimrod"];
        match standing.get("nimrod", name) {
            Some((r, _)) => {
                assert_eq!(shown["rating"].as_f64(), Some(r.rating), "{name}: {page}");
                assert_eq!(shown["rd"].as_f64(), Some(r.rd), "{name}: {page}");
                assert_eq!(shown["vol"].as_f64(), Some(r.vol), "{name}: {page}");
            }
            None => assert!(shown.is_null(), "{name} is rated without a ledger line"),
        }
    }
    (finished, lines.len())
}
