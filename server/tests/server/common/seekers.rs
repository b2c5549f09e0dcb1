//! Players finding each other on a cluster under faults (the chaos test):
//! two seekers on random nodes, or a challenger and the player it names.
//! Each attempt must end in a bounded time: matched (both in one room),
//! told its seek was lost, or cut by a fault (a closed connection); a
//! seek or challenge that just hangs is a failure.

use std::time::Duration;

use parlor_protocol::{ChallengeEnd, ErrorCode, ServerMsg};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::live::{recv_within, send, Ws};

/// Longest an attempt may wait for its answer while its nodes are up: a
/// pairing round, a failover and a reconnection fit well within it.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// How an attempt ended (every one of them is allowed; hanging is not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ended {
    /// Both players were seated in one room.
    Matched,
    /// The server said the seek was lost (seek again).
    Lost,
    /// A fault cut a connection first.
    Cut,
    /// The challenged player was not (yet) seen as connected.
    Offline,
}

/// Connects to `url` and says `hello`, with `token` if given.
pub async fn connect(url: &str, token: Option<&str>) -> Result<Ws, String> {
    let connecting = tokio_tungstenite::connect_async(url);
    let (mut ws, _) = tokio::time::timeout(Duration::from_secs(10), connecting)
        .await
        .map_err(|_| "connect timeout".to_string())?
        .map_err(|e| e.to_string())?;
    send(
        &mut ws,
        json!({"type": "hello", "version": 1, "token": token}),
    )
    .await?;
    match recv_within(&mut ws, Duration::from_secs(10)).await? {
        ServerMsg::Welcome { .. } => Ok(ws),
        other => Err(format!("{other:?}")),
    }
}

/// What one player waited for: the room it was seated in, or why not.
async fn seated(ws: &mut Ws) -> Result<Result<String, Ended>, String> {
    let deadline = tokio::time::Instant::now() + ANSWER_WITHIN;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match recv_within(ws, left).await {
            Ok(ServerMsg::Joined { room, .. }) => return Ok(Ok(room.to_string())),
            Ok(ServerMsg::SeekEnded { .. }) => return Ok(Err(Ended::Lost)),
            Ok(ServerMsg::ChallengeEnded { end, .. }) if end != ChallengeEnd::Accepted => {
                return Ok(Err(Ended::Cut))
            }
            Ok(ServerMsg::Error { code, message, .. }) => match code {
                ErrorCode::ServerUnreachable
                | ErrorCode::ServerShuttingDown
                | ErrorCode::ServerStorage
                | ErrorCode::RoomMoved
                | ErrorCode::ChallengeNotFound => return Ok(Err(Ended::Cut)),
                _ => return Err(format!("refused: {code} {message}")),
            },
            Ok(_) => {}
            Err(e) if e == "timeout" => return Err("no answer within the time allowed".into()),
            Err(_) => return Ok(Err(Ended::Cut)),
        }
    }
}

/// Waits for both players' seats; when one is turned away first, the
/// other withdraws (with what `withdraw` gives for it, `a`'s then `b`'s,
/// if it has anything to withdraw) and its answer is awaited (it may
/// have been seated meanwhile, with a partner who is gone).
async fn seat_both(
    a: &mut Ws,
    b: &mut Ws,
    withdraw: (Option<Value>, Option<Value>),
) -> Result<(Result<String, Ended>, Result<String, Ended>), String> {
    let one_ended = {
        let fa = seated(a);
        let fb = seated(b);
        tokio::pin!(fa, fb);
        let first = |who: &str, e: String| format!("{who}, waiting for its seat: {e}");
        tokio::select! {
            r = &mut fa => match r.map_err(|e| first("the first", e))? {
                Ok(room) => return Ok((Ok(room), fb.await.map_err(|e| first("the second, the first seated", e))?)),
                Err(e) => (true, e),
            },
            r = &mut fb => match r.map_err(|e| first("the second", e))? {
                Ok(room) => return Ok((fa.await.map_err(|e| first("the first, the second seated", e))?, Ok(room))),
                Err(e) => (false, e),
            },
        }
    };
    let (a_ended, e) = one_ended;
    let (other, withdraw) = if a_ended {
        (b, withdraw.1)
    } else {
        (a, withdraw.0)
    };
    if let Some(withdraw) = withdraw {
        if send(other, withdraw).await.is_err() {
            return Ok((Err(e), Err(Ended::Cut)));
        }
    }
    let theirs = match seated(other)
        .await
        .map_err(|err| format!("one player ended ({e:?}), the other then: {err}"))?
    {
        // Seated with a partner who is gone: the room is abandoned.
        Ok(_) => Err(Ended::Cut),
        Err(why) => Err(why),
    };
    Ok((Err(e), theirs))
}

/// Both players' answers as one ending.
fn both(a: Result<String, Ended>, b: Result<String, Ended>) -> Result<Ended, String> {
    match (a, b) {
        (Ok(ra), Ok(rb)) if ra == rb => Ok(Ended::Matched),
        (Ok(ra), Ok(rb)) => Err(format!("matched into two rooms: {ra} and {rb}")),
        (Err(e), _) | (_, Err(e)) => Ok(e),
    }
}

/// Two players on `url_a` and `url_b` seek a Nimrod game that only they
/// ask for (piles `piles`); once seated they resign.
pub async fn seek_pair(url_a: &str, url_b: &str, piles: [u64; 2]) -> Result<Ended, String> {
    let seek = json!({"type": "seek", "game": "nimrod", "options": {"piles": piles}});
    let Ok(mut a) = connect(url_a, None).await else {
        return Ok(Ended::Cut);
    };
    let Ok(mut b) = connect(url_b, None).await else {
        return Ok(Ended::Cut);
    };
    if send(&mut a, seek.clone()).await.is_err() || send(&mut b, seek).await.is_err() {
        return Ok(Ended::Cut);
    }
    let cancel = json!({"type": "cancel_seek"});
    let (ra, rb) = seat_both(&mut a, &mut b, (Some(cancel.clone()), Some(cancel))).await?;
    resign(&mut a, &mut b, &ra).await;
    both(ra, rb)
}

/// The challenger (token `from`) on `url_a` challenges `to_name` (token
/// `to`) on `url_b`, who accepts; once seated they resign.
pub async fn challenge_pair(
    url_a: &str,
    url_b: &str,
    from: &str,
    to: &str,
    to_name: &str,
) -> Result<Ended, String> {
    let Ok(mut a) = connect(url_a, Some(from)).await else {
        return Ok(Ended::Cut);
    };
    let Ok(mut b) = connect(url_b, Some(to)).await else {
        return Ok(Ended::Cut);
    };
    let challenge = json!({"type": "challenge", "to": to_name, "game": "nimrod"});
    if send(&mut a, challenge).await.is_err() {
        return Ok(Ended::Cut);
    }
    // The challenge reaches the challenged player (or is refused).
    let id = loop {
        match recv_within(&mut a, ANSWER_WITHIN).await {
            Ok(ServerMsg::ChallengeMade(info)) => break info.challenge,
            Ok(ServerMsg::Error {
                code: ErrorCode::ChallengeOffline,
                ..
            }) => return Ok(Ended::Offline),
            Ok(ServerMsg::Error { code, message, .. }) => match code {
                ErrorCode::ServerStorage | ErrorCode::ServerUnreachable => return Ok(Ended::Cut),
                _ => return Err(format!("challenge refused: {code} {message}")),
            },
            Ok(_) => {}
            Err(e) if e == "timeout" => return Err("the challenge was never answered".into()),
            Err(_) => return Ok(Ended::Cut),
        }
    };
    let heard = loop {
        match recv_within(&mut b, ANSWER_WITHIN).await {
            Ok(ServerMsg::ChallengeMade(info)) if info.challenge == id => break true,
            Ok(_) => {}
            Err(e) if e == "timeout" => break false,
            Err(_) => return Ok(Ended::Cut),
        }
    };
    // What the challenger does when the other side gives up: withdraws,
    // as a player would rather than wait out the challenge's lifetime.
    let withdraw = json!({"type": "cancel_challenge", "challenge": id});
    if !heard {
        // Its node's bus was cut while it was sent: the challenger
        // withdraws and hears how it ended (or that it had already).
        if send(&mut a, withdraw).await.is_err() {
            return Ok(Ended::Cut);
        }
        return match seated(&mut a).await {
            Ok(Ok(_)) => Err("seated without an acceptance".into()),
            Ok(Err(e)) => Ok(e),
            Err(e) => Err(format!("the challenger, withdrawing: {e}")),
        };
    }
    if send(&mut b, json!({"type": "accept", "challenge": id}))
        .await
        .is_err()
    {
        return Ok(Ended::Cut);
    }
    // The acceptance may be refused (its storage cut, say) with the
    // challenge still open: then the challenger withdraws it.
    let (ra, rb) = seat_both(&mut a, &mut b, (Some(withdraw), None)).await?;
    resign(&mut a, &mut b, &ra).await;
    both(ra, rb)
}

/// Both players resign the room they were seated in, so that it ends
/// (best effort: a fault may have cut them; the room is then abandoned).
async fn resign(a: &mut Ws, b: &mut Ws, room: &Result<String, Ended>) {
    if let Ok(room) = room {
        let _ = send(a, json!({"type": "leave", "room": room})).await;
        let _ = send(b, json!({"type": "leave", "room": room})).await;
    }
}

/// Registers a bot account `name` on `http` (`host:port`) and makes it
/// an API token. A name already taken is taken to be this test's own
/// account from an attempt a fault cut after the account was made (the
/// token is then refused if it is not: the password would not match).
pub async fn account_token(http: &str, name: &str) -> Result<String, String> {
    let password = "chaos and order";
    let made = post(
        http,
        "/api/accounts",
        None,
        json!({"name": name, "password": password, "kind": "bot"}),
    )
    .await;
    match made {
        Ok(_) => {}
        Err(e) if e.contains("account/name_taken") => {}
        Err(e) => return Err(e),
    }
    let basic = base64_basic(name, password);
    let made = post(http, "/api/tokens", Some(&basic), json!({"label": "chaos"})).await?;
    made["token"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no token in {made}"))
}

/// An HTTP Basic header's value.
fn base64_basic(name: &str, password: &str) -> String {
    use base64::Engine;
    let pair = format!("{name}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// One JSON POST over a fresh connection; the answer's body.
pub async fn post(
    http: &str,
    path: &str,
    auth: Option<&str>,
    body: Value,
) -> Result<Value, String> {
    let body = body.to_string();
    let auth = auth.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    let text = format!(
        "POST {path} HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
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
    if !(head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.1 201")) {
        return Err(format!("{head}: {body}"));
    }
    serde_json::from_str(body).map_err(|e| e.to_string())
}
