//! `--mode arena`: `--connections` bot accounts play one arena of Nimrod
//! (`--options`) lasting `--arena-minutes` on one server: each is made
//! over the HTTP API, enters, signs in with its token, takes every seat a
//! `tournament_game` gives it and plays the first legal move at once.
//! Measured: games finished per minute of the window, and the latency of
//! a move (from `play` sent to the mover's next update of that room).
//! Every client comes from its own loopback address (127.7.x.y) so that
//! no per-address bound is met.

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::conn::{loopback_address, loopback_target, tcp_from, Conn};
use crate::metrics::{latency_summary, round};

/// Players come from 127.7.x.y, one address each.
const PLAYER_NET: u8 = 7;

/// Accounts made at once: each costs an Argon2 hash on the server.
const ACCOUNTS_AT_ONCE: usize = 4;

/// Time between the event's creation and its start, for everyone to enter
/// and connect (grows with the players).
const START_SLACK: Duration = Duration::from_secs(5);

/// How long after the window the last games may take to end.
const FINISH_SLACK: Duration = Duration::from_secs(120);

/// One HTTP request from `source` to the loopback server at `url`; the
/// status and JSON body.
async fn http(
    url: &str,
    source: Ipv4Addr,
    method: &str,
    path: &str,
    auth: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let target = loopback_target(url).ok_or("the arena mode needs a ws:// loopback server")?;
    let mut tcp = tcp_from(target, source).await?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let auth = auth.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    let text = format!(
        "{method} {path} HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(text.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut all = Vec::new();
    tcp.read_to_end(&mut all).await.map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&all);
    let (head, rest) = text.split_once("\r\n\r\n").ok_or("no HTTP body")?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no HTTP status")?;
    let body = serde_json::from_str(rest.trim()).unwrap_or(Value::Null);
    Ok((status, body))
}

/// A bot account and its API token, made from `source`.
async fn account(url: &str, source: Ipv4Addr, name: &str) -> Result<String, String> {
    let password = "bench arena password";
    let made = json!({"name": name, "password": password, "kind": "bot"});
    let (status, body) = http(url, source, "POST", "/api/accounts", None, Some(&made)).await?;
    if status != 201 {
        return Err(format!("account {name}: {status} {body}"));
    }
    use base64::Engine;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{name}:{password}"));
    let auth = format!("Basic {basic}");
    let label = json!({"label": "bench"});
    let (status, body) = http(
        url,
        source,
        "POST",
        "/api/tokens",
        Some(&auth),
        Some(&label),
    )
    .await?;
    body["token"]
        .as_str()
        .map(str::to_owned)
        .ok_or(format!("token for {name}: {status} {body}"))
}

/// What the players count together.
#[derive(Default)]
struct Tally {
    finished: AtomicU64,
    moves: AtomicU64,
}

/// Plays every game the arena gives this connection until `stop`; the
/// move latencies seen, in microseconds.
async fn player(mut c: Conn, tally: Arc<Tally>, stop: Arc<AtomicBool>) -> Vec<u32> {
    let mut sent: HashMap<String, (u64, Instant)> = HashMap::new();
    let mut samples = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let Ok(Ok(text)) = tokio::time::timeout(Duration::from_millis(500), c.recv_text()).await
        else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
            continue;
        };
        match v["type"].as_str() {
            Some("tournament_game") => {
                let join = json!({"type": "join", "room": v["room"], "seat": v["seat"]});
                if c.send(join.to_string()).await.is_err() {
                    break;
                }
            }
            Some("update") => {
                let room = v["room"].as_str().unwrap_or_default().to_owned();
                let seq = v["seq"].as_u64().unwrap_or(0);
                if let Some((at_seq, at)) = sent.get(&room) {
                    if seq > *at_seq {
                        samples.push(u32::try_from(at.elapsed().as_micros()).unwrap_or(u32::MAX));
                        sent.remove(&room);
                    }
                }
                if v["status"] == "finished" {
                    // Each game's end is seen by both players: count one.
                    if v["you"] == 0 {
                        tally.finished.fetch_add(1, Ordering::Relaxed);
                    }
                    continue;
                }
                let mine = v["you"].as_u64().is_some_and(|me| {
                    v["to_act"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|s| s.as_u64() == Some(me)))
                });
                let mv = v["legal"].as_array().and_then(|l| l.first()).cloned();
                if let (true, Some(mv), false) = (mine, mv, sent.contains_key(&room)) {
                    let play = json!({"type": "play", "room": room, "seat": v["you"], "seq": seq, "move": mv});
                    sent.insert(room, (seq, Instant::now()));
                    tally.moves.fetch_add(1, Ordering::Relaxed);
                    if c.send(play.to_string()).await.is_err() {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    c.close().await;
    samples
}

/// One repetition against `url` (already running): the figures.
pub async fn run(
    url: &str,
    players: usize,
    minutes: u32,
    options: &Value,
) -> Result<Value, String> {
    if players < 2 {
        return Err("an arena needs at least 2 --connections".into());
    }
    let run = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let names: Vec<String> = (0..players).map(|i| format!("a{run}x{i}")).collect();
    let sources: Vec<Ipv4Addr> = (0..players)
        .map(|i| loopback_address(PLAYER_NET, u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    let gate = Arc::new(Semaphore::new(ACCOUNTS_AT_ONCE));
    let mut making = Vec::new();
    for (name, source) in names.iter().zip(&sources) {
        let (url, name, source, gate) = (url.to_owned(), name.clone(), *source, Arc::clone(&gate));
        making.push(tokio::spawn(async move {
            let _permit = gate.acquire().await.map_err(|e| e.to_string())?;
            account(&url, source, &name).await
        }));
    }
    let mut tokens = Vec::new();
    for m in making {
        tokens.push(m.await.map_err(|e| e.to_string())??);
    }
    let now_ms = u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis()),
    )
    .unwrap_or(0);
    let slack = START_SLACK + Duration::from_millis(20 * players as u64);
    let starts = now_ms + u64::try_from(slack.as_millis()).unwrap_or(0);
    let event = json!({"game": "nimrod", "format": "arena", "minutes": minutes,
                       "options": options, "starts_at_ms": starts, "kind": "bot",
                       "max_players": players});
    let auth = format!("Bearer {}", tokens[0]);
    let (status, body) = http(
        url,
        sources[0],
        "POST",
        "/api/tournaments",
        Some(&auth),
        Some(&event),
    )
    .await?;
    let id = body["id"]
        .as_str()
        .ok_or(format!("the arena was not made: {status} {body}"))?
        .to_owned();
    let tally = Arc::new(Tally::default());
    let stop = Arc::new(AtomicBool::new(false));
    let mut playing = Vec::new();
    for (token, source) in tokens.iter().zip(&sources) {
        let auth = format!("Bearer {token}");
        let path = format!("/api/tournaments/{id}/join");
        let (status, body) = http(url, *source, "POST", &path, Some(&auth), None).await?;
        if status != 200 {
            return Err(format!("entering: {status} {body}"));
        }
        let c = Conn::open_as(url, *source, token).await?;
        playing.push(tokio::spawn(player(
            c,
            Arc::clone(&tally),
            Arc::clone(&stop),
        )));
    }
    // Counted from the start to the window's end.
    let until_start = Duration::from_millis(
        starts.saturating_sub(
            u64::try_from(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis()),
            )
            .unwrap_or(0),
        ),
    );
    tokio::time::sleep(until_start).await;
    let window = Duration::from_secs(60 * u64::from(minutes));
    tokio::time::sleep(window).await;
    let in_window = tally.finished.load(Ordering::Relaxed);
    // Wait for the event to finish (its last games end).
    let deadline = Instant::now() + FINISH_SLACK;
    let mut status = String::new();
    while Instant::now() < deadline {
        let (_, page) = http(
            url,
            sources[0],
            "GET",
            &format!("/api/tournaments/{id}"),
            None,
            None,
        )
        .await?;
        status = page["status"].as_str().unwrap_or_default().to_owned();
        if status == "finished" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    stop.store(true, Ordering::Relaxed);
    let mut samples = Vec::new();
    for p in playing {
        samples.extend(p.await.map_err(|e| e.to_string())?);
    }
    Ok(json!({
        "players": players,
        "minutes": minutes,
        "event": id,
        "status": status,
        "games_in_window": in_window,
        "games_per_minute": round(in_window as f64 / f64::from(minutes.max(1))),
        "moves": tally.moves.load(Ordering::Relaxed),
        "move_latency_us": latency_summary(samples),
    }))
}
