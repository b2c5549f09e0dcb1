//! The real `parlor-server` binary, driven over WebSocket: starting a
//! node, talking the protocol, and checking what clients saw against the
//! match log. Shared by the crash test (one node) and the chaos test
//! (three nodes).

use std::ffi::OsString;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parlor_games::Viewer;
use parlor_protocol::{decode_server, LoggedAction, MatchLog, ServerMsg};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

/// A client's connection.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Safety net for any single wait.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A server process of a test's own, killed when dropped, on a panic
/// too: an orphaned server keeps the test's output open, and whatever
/// reads it (a pipe into `grep`, a CI log) waits on.
pub struct OwnedServer(Child);

impl OwnedServer {
    /// Its process id (for signals).
    pub fn id(&self) -> u32 {
        self.0.id()
    }

    /// Kills it (SIGKILL) and reaps it; a second kill does nothing.
    pub fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for OwnedServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts the server binary `bin` with `args`, listening on a free
/// loopback port; its process (killed when dropped) and `ws://` URL once
/// it listens.
/// `port_file` is where it writes the address (removed first). Its
/// log (`RUST_LOG`, default `error`) goes to `log` (appended) if given,
/// else to the test's stderr.
pub fn start_server(
    bin: &Path,
    args: &[OsString],
    port_file: &Path,
    log: Option<&Path>,
) -> (OwnedServer, String) {
    let _ = std::fs::remove_file(port_file);
    // The server logs on stdout.
    let (stdout, stderr) = match log {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap();
            (Stdio::from(file.try_clone().unwrap()), Stdio::from(file))
        }
        None => (Stdio::null(), Stdio::inherit()),
    };
    let mut child = Command::new(bin)
        .args(["--bind", "127.0.0.1:0"])
        .args(args)
        .arg("--port-file")
        .arg(port_file)
        .env(
            "RUST_LOG",
            std::env::var("RUST_LOG").unwrap_or_else(|_| "error".into()),
        )
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    loop {
        // Written whole (renamed into place) once the server listens.
        if let Ok(a) = std::fs::read_to_string(port_file) {
            return (OwnedServer(child), format!("ws://{}", a.trim()));
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the server exited at start-up: {status}");
        }
        if t0.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not start");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends `v` as a text frame.
pub async fn send(ws: &mut Ws, v: Value) -> Result<(), String> {
    ws.send(Message::Text(v.to_string().into()))
        .await
        .map_err(|e| e.to_string())
}

/// The next message, within `wait`; `Err` if the connection closed (the
/// close frame's reason, when it had one) or nothing came. Pings and
/// other control frames do not count, nor do they extend the wait.
pub async fn recv_within(ws: &mut Ws, wait: Duration) -> Result<ServerMsg, String> {
    let until = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(until, ws.next()).await {
            Err(_) => return Err("timeout".into()),
            Ok(Some(Ok(Message::Text(t)))) => {
                return decode_server(t.as_str()).map_err(|e| e.to_string())
            }
            Ok(Some(Ok(Message::Close(frame)))) => {
                return Err(match frame {
                    Some(f) => format!("closed ({} {})", u16::from(f.code), f.reason),
                    None => "closed".into(),
                })
            }
            Ok(None) => return Err("closed".into()),
            Ok(Some(Err(e))) => return Err(format!("closed ({e})")),
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// The next message, within [`PATIENCE`].
pub async fn recv(ws: &mut Ws) -> Result<ServerMsg, String> {
    recv_within(ws, PATIENCE).await
}

/// Connects to `url` and says `hello`: the connection and its token.
pub async fn hello(url: &str) -> Result<(Ws, Uuid), String> {
    let connecting = tokio_tungstenite::connect_async(url);
    let (mut ws, _) = tokio::time::timeout(Duration::from_secs(10), connecting)
        .await
        .map_err(|_| "connect timeout".to_string())?
        .map_err(|e| e.to_string())?;
    send(&mut ws, json!({"type": "hello", "version": 1})).await?;
    match recv_within(&mut ws, Duration::from_secs(10)).await? {
        ServerMsg::Welcome { token, .. } => Ok((ws, token)),
        other => Err(format!("{other:?}")),
    }
}

/// The log of `room` (`Ok(None)` while its match is not over).
///
/// A checker reading hundreds of logs in a row outruns the server's
/// per-connection message rate: told so, it waits for the next second's
/// allowance and asks again, as a well-behaved client does.
pub async fn get_log(ws: &mut Ws, room: &str) -> Result<Option<MatchLog>, String> {
    for _ in 0..RATE_LIMIT_RETRIES {
        send(ws, json!({"type": "get_log", "room": room})).await?;
        loop {
            match recv(ws).await? {
                ServerMsg::Log(l) => return Ok(Some(l)),
                ServerMsg::Error {
                    code: parlor_protocol::ErrorCode::RoomNotFinished,
                    ..
                } => return Ok(None),
                ServerMsg::Error {
                    code: parlor_protocol::ErrorCode::RequestRateLimited,
                    ..
                } => break,
                ServerMsg::Error { code, message, .. } => return Err(format!("{code}: {message}")),
                _ => {}
            }
        }
        tokio::time::sleep(RATE_LIMIT_WAIT).await;
    }
    Err(format!(
        "{room}: rate limited {RATE_LIMIT_RETRIES} times in a row"
    ))
}

/// How often [`get_log`] asks again after being told it sends too fast.
const RATE_LIMIT_RETRIES: usize = 5;
/// How long it waits first: past the rate limit's one-second window.
const RATE_LIMIT_WAIT: Duration = Duration::from_millis(1100);

/// Checks that every `(seq, seat, move)` acknowledged is in `log` at its
/// `seq`, played by that seat (in the form the server stores, which for
/// some games names what the client left implicit: the move is put in
/// that form at its position first); how many there were.
pub fn check_acked(room: &str, log: &MatchLog, acked: &[(u64, u8, Value)]) -> usize {
    let mut by_seq: Vec<&(u64, u8, Value)> = acked.iter().collect();
    by_seq.sort_by_key(|a| a.0);
    let kind = log.header.game;
    let mut rng = parlor_protocol::deal_rng(&log.header).unwrap();
    let mut game = kind
        .setup(&log.header.options, log.header.seats, &mut rng)
        .unwrap();
    let mut at = 0u64;
    for (seq, seat, mv) in by_seq {
        let entry = log
            .moves
            .get(*seq as usize)
            .unwrap_or_else(|| panic!("room {room}: acknowledged seq {seq} is not in the log"));
        while at < *seq {
            parlor_protocol::step(&mut game, &mut rng, &log.moves[at as usize]).unwrap();
            at += 1;
        }
        assert_eq!(entry.seat.0, *seat, "room {room} seq {seq}: seat");
        let sent = kind
            .parse_move(mv)
            .unwrap_or_else(|e| panic!("room {room} seq {seq}: {e}"));
        let stored = serde_json::to_value(game.canonical(entry.seat, &sent)).unwrap();
        assert_eq!(
            entry.action,
            LoggedAction::Move(stored),
            "room {room} seq {seq}: move (sent as {mv})"
        );
    }
    acked.len()
}

/// Checks that every `(seq, viewer, view)` shown equals the view `log`
/// replays to for that viewer at that `seq` (hidden information
/// included); how many there were. Replays once, in `seq` order.
pub fn check_views(room: &str, log: &MatchLog, seen: &[(u64, Viewer, Value)]) -> usize {
    let mut by_seq: Vec<&(u64, Viewer, Value)> = seen.iter().collect();
    by_seq.sort_by_key(|s| s.0);
    let mut rng = parlor_protocol::deal_rng(&log.header).unwrap();
    let mut game = log
        .header
        .game
        .setup(&log.header.options, log.header.seats, &mut rng)
        .unwrap();
    let mut at = 0u64;
    for (seq, viewer, view) in &by_seq {
        assert!(
            *seq as usize <= log.moves.len(),
            "room {room}: a view at seq {seq} was shown, but the log holds {} steps",
            log.moves.len()
        );
        while at < *seq {
            parlor_protocol::step(&mut game, &mut rng, &log.moves[at as usize]).unwrap();
            at += 1;
        }
        assert_eq!(
            &serde_json::to_value(game.view(*viewer)).unwrap(),
            view,
            "room {room} seq {seq}: the view shown to {viewer:?} is not the log's"
        );
    }
    by_seq.len()
}
