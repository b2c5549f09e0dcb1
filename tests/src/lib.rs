//! Harness for Parlor's end-to-end tests: a real server on 127.0.0.1:0 and
//! raw WebSocket clients that can send anything, well-formed or not.
//!
//! The servers keep their matches in SQLite, or with
//! `PARLOR_TEST_STORE=postgres` in PostgreSQL (`PARLOR_TEST_POSTGRES`), a
//! fresh schema per server or per [`TestStore`], dropped at the end: the
//! whole suite runs on either backend unchanged. On PostgreSQL each server
//! is a cluster node with its bus (`PARLOR_TEST_REDIS`), so the suite also
//! covers the cluster's lobby and resume.
//!
//! Everything here exists to fail tests, so it panics on the unexpected.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

pub mod http;
pub mod ladder;
pub mod rating;
pub mod seeking;
pub mod tournament;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parlor_games::nimrod::{best_move, Piles, View as NimrodView};
use parlor_games::Seat;
use parlor_protocol::{
    decode_server, encode, ClientMsg, ErrorCode, RoomId, ServerMsg, Update, PROTOCOL_VERSION,
};
use parlor_server::store::{Arg, Store};
use parlor_server::testing::{postgres_run, redis_bus, ScratchSchema};
use parlor_server::{Config, Server, ServerError, StoreConfig, Sync};
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

/// How long a closing test client waits for the server's answer: far
/// beyond a healthy server's, short enough not to stall a test whose
/// server is gone.
const CLOSE_ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// A safety net so that a broken server fails a test instead of hanging
/// it. Generous: no test depends on anything taking less than this.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A store a test keeps across server restarts: a SQLite file in a
/// temporary directory, or (`PARLOR_TEST_STORE=postgres`) a scratch
/// schema. Dropped at the end of the test.
#[derive(Debug)]
pub enum TestStore {
    /// `parlor.db` in the directory.
    Sqlite(TempDir),
    /// A schema of its own.
    Postgres(ScratchSchema),
}

impl TestStore {
    /// A fresh store of the kind the run asks for. If PostgreSQL is asked
    /// for and cannot be used, the Postgres run of the test is skipped and
    /// it runs on SQLite (under `CI=true` it fails instead).
    pub async fn new() -> TestStore {
        if postgres_run() {
            if let Some(s) = ScratchSchema::new().await {
                return TestStore::Postgres(s);
            }
        }
        TestStore::Sqlite(tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")))
    }

    /// Its settings, for [`Config::store`].
    pub fn config(&self) -> StoreConfig {
        match self {
            TestStore::Sqlite(dir) => StoreConfig::Sqlite {
                db: Some(dir.path().join("parlor.db")),
                sync: Sync::Normal,
            },
            TestStore::Postgres(s) => s.config(),
        }
    }

    /// Runs statement `sql` (`$1`... placeholders) in the store's database
    /// as an operator would by hand; the rows it changed. SQLite through
    /// the server's own store, PostgreSQL on a connection of the test's
    /// own (a store opened there would join the cluster as a node).
    pub async fn execute(&self, sql: &'static str, args: Vec<Arg>) -> u64 {
        match self {
            TestStore::Sqlite(_) => {
                let (db, task) = Store::open(&self.config())
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
                let changed = db
                    .beside()
                    .exec(sql, args)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
                drop(db);
                task.finished().await.unwrap_or_else(|e| panic!("{e}"));
                changed
            }
            TestStore::Postgres(scratch) => scratch
                .execute_with(sql, &args)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}")),
        }
    }
}

/// A server started by the harness, with the store it made for it (if
/// any), which is dropped with it.
#[derive(Debug)]
pub struct TestServer {
    server: Server,
    _store: Option<TestStore>,
}

impl TestServer {
    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Its WebSocket URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// Where its operations listener is, if it has one.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.server.metrics_addr()
    }

    /// Shuts down gracefully and waits until it has stopped.
    pub async fn stop(self) -> Result<(), ServerError> {
        self.server.stop().await
    }
}

/// Starts a server on a free loopback port, on `store` (kept across
/// restarts) or, with `None`, on a store of its own that it drops.
pub async fn start_server(store: Option<&TestStore>) -> TestServer {
    let config = Config {
        store: store.map(TestStore::config).unwrap_or_default(),
        ..Config::default()
    };
    start_server_with(config).await
}

/// What a raw client received instead of the message it waited for.
// A received message is matched and dropped at once, never stored in
// bulk: boxing it would only add an allocation per message read.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Received {
    /// A message.
    Msg(ServerMsg),
    /// A close frame (or the end of the stream).
    Closed(Option<CloseFrame>),
}

/// A WebSocket client that speaks the protocol by hand.
#[derive(Debug)]
pub struct Raw {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The token from `welcome`.
    pub token: Uuid,
}

impl Raw {
    /// Connects without saying hello.
    pub async fn connect(url: &str) -> Raw {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
        Raw {
            ws,
            token: Uuid::nil(),
        }
    }

    /// Wraps a WebSocket opened by the test itself (e.g. with chosen
    /// upgrade headers), without saying hello.
    pub fn from_stream(ws: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Raw {
        Raw {
            ws,
            token: Uuid::nil(),
        }
    }

    /// Connects and says hello.
    pub async fn greeted(url: &str, name: &str) -> Raw {
        Raw::connect(url).await.hello(name).await
    }

    /// Says hello over an already open TCP connection to `url` (e.g. one
    /// bound to a chosen source address).
    pub async fn greeted_on(url: String, tcp: TcpStream, name: &str) -> Raw {
        let (ws, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(tcp))
            .await
            .unwrap_or_else(|e| panic!("handshake failed: {e}"));
        Raw {
            ws,
            token: Uuid::nil(),
        }
        .hello(name)
        .await
    }

    /// [`Raw::greeted`] with extra header lines on the upgrade request
    /// (as a reverse proxy adds them).
    pub async fn greeted_with_headers(url: &str, headers: &[(&str, &str)], name: &str) -> Raw {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
        let mut request = url
            .into_client_request()
            .unwrap_or_else(|e| panic!("bad URL {url}: {e}"));
        for (name, value) in headers {
            let value =
                HeaderValue::from_str(value).unwrap_or_else(|e| panic!("bad header {value}: {e}"));
            let name = HeaderName::from_bytes(name.as_bytes())
                .unwrap_or_else(|e| panic!("bad header name {name}: {e}"));
            request.headers_mut().append(name, value);
        }
        let (ws, _) = tokio_tungstenite::connect_async(request)
            .await
            .unwrap_or_else(|e| panic!("handshake failed: {e}"));
        Raw {
            ws,
            token: Uuid::nil(),
        }
        .hello(name)
        .await
    }

    async fn hello(self, name: &str) -> Raw {
        let mut c = self;
        c.send(&ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            name: Some(name.into()),
            token: None,
        })
        .await;
        c.token = c
            .expect(|m| match m {
                ServerMsg::Welcome { token, .. } => Some(*token),
                _ => None,
            })
            .await;
        c
    }

    /// Sends a message.
    pub async fn send(&mut self, msg: &ClientMsg) {
        self.send_text(&encode(msg)).await;
    }

    /// Sends a JSON value as a text frame.
    pub async fn send_json(&mut self, v: Value) {
        self.send_text(&v.to_string()).await;
    }

    /// Sends any text frame.
    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.to_owned().into()))
            .await
            .unwrap_or_else(|e| panic!("send failed: {e}"));
    }

    /// Sends a raw WebSocket message (binary, oversized...); errors are
    /// returned, since the server may close on it.
    pub async fn send_raw(&mut self, msg: Message) -> Result<(), String> {
        self.ws.send(msg).await.map_err(|e| e.to_string())
    }

    /// The next message or close.
    pub async fn next(&mut self) -> Received {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("nothing received within {PATIENCE:?}"));
            match frame {
                None | Some(Err(_)) => return Received::Closed(None),
                Some(Ok(Message::Close(f))) => return Received::Closed(f),
                Some(Ok(Message::Text(t))) => {
                    let msg = decode_server(t.as_str())
                        .unwrap_or_else(|e| panic!("undecodable {t}: {e}"));
                    return Received::Msg(msg);
                }
                Some(Ok(_)) => {}
            }
        }
    }

    /// Skips messages until `want` accepts one.
    pub async fn expect<T>(&mut self, mut want: impl FnMut(&ServerMsg) -> Option<T>) -> T {
        loop {
            match self.next().await {
                Received::Msg(m) => {
                    if let Some(t) = want(&m) {
                        return t;
                    }
                }
                Received::Closed(f) => panic!("connection closed while waiting: {f:?}"),
            }
        }
    }

    /// Skips messages until an error, which must have `code`; returns it whole.
    pub async fn expect_error(&mut self, code: ErrorCode) -> ServerMsg {
        let got = self
            .expect(|m| matches!(m, ServerMsg::Error { .. }).then(|| m.clone()))
            .await;
        match &got {
            ServerMsg::Error { code: c, .. } if *c == code => got,
            other => panic!("expected {code}, got {other:?}"),
        }
    }

    /// The next update of `room`.
    pub async fn update(&mut self, room: &RoomId) -> Update {
        self.expect(|m| match m {
            ServerMsg::Update(u) if &u.room == room => Some(u.clone()),
            _ => None,
        })
        .await
    }

    /// The next update of `room` at `seq` or later.
    pub async fn update_at(&mut self, room: &RoomId, seq: u64) -> Update {
        loop {
            let u = self.update(room).await;
            if u.seq >= seq {
                return u;
            }
        }
    }

    /// Creates a room and returns its id.
    pub async fn create(&mut self, game: &str, options: Value, clock: Option<Value>) -> RoomId {
        let mut msg = json!({"type": "create_room", "game": game, "options": options});
        if let Some(c) = clock {
            msg["clock"] = c;
        }
        self.send_json(msg).await;
        self.expect(|m| match m {
            ServerMsg::RoomCreated { room, .. } => Some(room.clone()),
            ServerMsg::Error { .. } => panic!("create failed: {m:?}"),
            _ => None,
        })
        .await
    }

    /// Joins `seat` of `room` and returns the first update.
    pub async fn join(&mut self, room: &RoomId, seat: u8) -> Update {
        self.send(&ClientMsg::Join {
            room: room.clone(),
            seat: Some(Seat(seat)),
            client_seed: None,
        })
        .await;
        self.expect(|m| match m {
            ServerMsg::Joined { .. } => Some(()),
            ServerMsg::Error { .. } => panic!("join failed: {m:?}"),
            _ => None,
        })
        .await;
        self.update(room).await
    }

    /// Plays `mv` for `seat` answering `seq`.
    pub async fn play(&mut self, room: &RoomId, seat: u8, seq: u64, mv: Value) {
        self.send(&ClientMsg::Play {
            room: room.clone(),
            seat: Seat(seat),
            seq,
            mv,
        })
        .await;
    }

    /// Reads frames until an update of `room` at `seq` or later in a
    /// started match, keeping every update of `room` in `seen`.
    pub async fn read_to(&mut self, room: &RoomId, seq: u64, seen: &mut Vec<Update>) -> Update {
        loop {
            match self.next().await {
                Received::Msg(ServerMsg::Update(u)) if &u.room == room => {
                    seen.push(u.clone());
                    if u.seq >= seq && u.status != parlor_protocol::RoomStatus::Waiting {
                        return u;
                    }
                }
                Received::Msg(_) => {}
                Received::Closed(f) => panic!("closed: {f:?}"),
            }
        }
    }

    /// Closes the connection cleanly and waits for the server's answer
    /// (or the stream's end): by then the server has let go of what the
    /// connection held, such as its seeks.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
        let _ = tokio::time::timeout(CLOSE_ANSWER_WITHIN, async {
            while let Some(Ok(_)) = self.ws.next().await {}
        })
        .await;
    }
}

/// Checks that `room`'s log, read on `c`, holds exactly the `end.seq`
/// steps played, all moves (nothing lost, nothing doubled).
pub async fn assert_log_of_moves(c: &mut Raw, room: &RoomId, end: &Update) {
    let log = match_log(c, room).await;
    assert_eq!(log.moves.len() as u64, end.seq);
    assert!(log
        .moves
        .iter()
        .all(|e| matches!(e.action, parlor_protocol::LoggedAction::Move(_))));
}

/// A new connection to `url` that resumes `token`'s seats there.
pub async fn resume_at(url: &str, token: Uuid) -> Raw {
    let mut c = Raw::greeted(url, "again").await;
    c.send(&ClientMsg::Resume { token }).await;
    c.expect(|m| match m {
        ServerMsg::Resumed { .. } => Some(()),
        ServerMsg::Error { .. } => panic!("resume refused: {m:?}"),
        _ => None,
    })
    .await;
    c
}

/// Nimrod piles in an update.
pub fn nimrod_piles(u: &Update) -> Piles {
    serde_json::from_value::<NimrodView>(u.view.clone())
        .unwrap_or_else(|e| panic!("not a nimrod view: {e}"))
        .piles
}

/// A good Nimrod move from `u`'s piles (perfect play, or one rod).
pub fn nimrod_move(u: &Update) -> Value {
    let piles = nimrod_piles(u);
    let mv = best_move(piles).unwrap_or(parlor_games::nimrod::Move::new(0, 1));
    json!(mv)
}

/// Plays a Nimrod match to its end from update `u`, each seat moving
/// through its own client with a good move; returns the final update.
pub async fn play_out_nimrod(players: &mut [Raw], room: &RoomId, mut u: Update) -> Update {
    while u.outcome.is_none() {
        let seat = u
            .to_act
            .iter()
            .next()
            .unwrap_or_else(|| panic!("nobody to act"));
        let p = &mut players[seat.index()];
        p.play(room, seat.0, u.seq, nimrod_move(&u)).await;
        u = p.update_at(room, u.seq + 1).await;
    }
    u
}

/// Every Rummikub block (`{"number", "color"}` object) anywhere in `v`.
pub fn blocks_in(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    walk(v, &mut |o| {
        if o.get("number").is_some() && o.get("color").is_some() {
            out.push(json!({"number": o["number"], "color": o["color"]}));
        }
    });
    out
}

/// Every card (`{"rank", "suit"}` object) anywhere in `v`.
pub fn cards_in(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    walk(v, &mut |o| {
        if o.get("rank").is_some() && o.get("suit").is_some() {
            out.push(json!({"rank": o["rank"], "suit": o["suit"]}));
        }
    });
    out
}

fn walk(v: &Value, f: &mut impl FnMut(&serde_json::Map<String, Value>)) {
    match v {
        Value::Object(o) => {
            f(o);
            o.values().for_each(|x| walk(x, f));
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, f)),
        _ => {}
    }
}

/// Creates a room of `game` with `options` and `seats` seats.
pub async fn create_room(c: &mut Raw, game: &str, seats: u8, options: Value) -> RoomId {
    c.send_json(json!({"type": "create_room", "game": game, "seats": seats, "options": options}))
        .await;
    c.expect(|m| match m {
        ServerMsg::RoomCreated { room, .. } => Some(room.clone()),
        ServerMsg::Error { .. } => panic!("create failed: {m:?}"),
        _ => None,
    })
    .await
}

/// Seats a built-in bot.
pub async fn add_bot(c: &mut Raw, room: &RoomId, seat: u8, strategy: &str) {
    c.send(&ClientMsg::AddBot {
        room: room.clone(),
        seat: Some(Seat(seat)),
        strategy: Some(strategy.into()),
    })
    .await;
    c.expect(|m| match m {
        ServerMsg::BotAdded { .. } => Some(()),
        ServerMsg::Error { .. } => panic!("add_bot failed: {m:?}"),
        _ => None,
    })
    .await;
}

/// The log of a finished room.
pub async fn match_log(c: &mut Raw, room: &RoomId) -> parlor_protocol::MatchLog {
    c.send(&ClientMsg::GetLog {
        room: room.clone(),
        predict: false,
    })
    .await;
    c.expect(|m| match m {
        ServerMsg::Log(l) => Some(l.clone()),
        ServerMsg::Error { .. } => panic!("get_log failed: {m:?}"),
        _ => None,
    })
    .await
}

/// The current update of `room` as a new spectator sees it.
pub async fn snapshot(url: &str, room: &RoomId) -> Update {
    let mut w = Raw::greeted(url, "snapshot").await;
    w.send(&ClientMsg::Spectate { room: room.clone() }).await;
    let u = w.update(room).await;
    w.close().await;
    u
}

/// Starts a server on a free loopback port with `config` (for tests that
/// need small caps or short timeouts). A config with the default store (a
/// throwaway SQLite file) gets a store of its own of the kind the run
/// asks for.
pub async fn start_server_with(mut config: Config) -> TestServer {
    let mut own = None;
    if config.store == StoreConfig::default() && postgres_run() {
        let store = TestStore::new().await;
        config.store = store.config();
        own = Some(store);
    }
    // On PostgreSQL the server runs as a cluster node, with its bus.
    if postgres_run()
        && config.bus.is_none()
        && matches!(config.store, StoreConfig::Postgres { .. })
    {
        config.bus = redis_bus().await;
    }
    let server = Server::start(([127, 0, 0, 1], 0).into(), config)
        .await
        .unwrap_or_else(|e| panic!("server did not start: {e}"));
    TestServer {
        server,
        _store: own,
    }
}

/// A frame read by [`Wire`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireFrame {
    /// A text frame.
    Text(String),
    /// A close frame with its code (if any).
    Close(Option<u16>),
    /// Any other frame (ping, pong, binary), by opcode.
    Other(u8),
}

/// A WebSocket client written by hand on a bare TCP stream: it answers
/// nothing by itself (no pongs) and can send frames no library would
/// (invalid UTF-8 in a text frame), so tests control every byte.
#[derive(Debug)]
pub struct Wire {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Wire {
    /// Opens a TCP connection and performs the WebSocket handshake.
    pub async fn connect(addr: std::net::SocketAddr) -> Wire {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        stream.write_all(req.as_bytes()).await.unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 1024];
        loop {
            let n = tokio::time::timeout(PATIENCE, stream.read(&mut chunk))
                .await
                .unwrap()
                .unwrap();
            assert!(n > 0, "closed during the handshake");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_string();
                assert!(head.starts_with("HTTP/1.1 101"), "{head}");
                buf.drain(..end + 4);
                return Wire { stream, buf };
            }
        }
    }

    /// Sends one frame with `opcode` and `payload` (masked with a zero
    /// key, as clients must mask).
    pub async fn send_frame(&mut self, opcode: u8, payload: &[u8]) -> std::io::Result<()> {
        self.send_first_byte(0x80 | opcode, payload).await
    }

    /// Sends one frame whose first byte (FIN, reserved bits, opcode) is
    /// `first`, masked with a zero key: fragments, and frames a server
    /// must refuse.
    pub async fn send_first_byte(&mut self, first: u8, payload: &[u8]) -> std::io::Result<()> {
        use tokio::io::AsyncWriteExt;
        let mut frame = vec![first];
        let len = payload.len();
        if len < 126 {
            frame.push(0x80 | len as u8);
        } else if len <= 0xffff {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        } else {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(len as u64).to_be_bytes());
        }
        frame.extend_from_slice(&[0, 0, 0, 0]);
        frame.extend_from_slice(payload);
        self.stream.write_all(&frame).await
    }

    /// Sends bytes as they are (an unmasked frame, say).
    pub async fn send_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        use tokio::io::AsyncWriteExt;
        self.stream.write_all(bytes).await
    }

    /// Sends a text frame.
    pub async fn send_text(&mut self, text: &str) -> std::io::Result<()> {
        self.send_frame(1, text.as_bytes()).await
    }

    /// The next frame; `None` once the server has closed the TCP stream.
    pub async fn next(&mut self) -> Option<WireFrame> {
        use tokio::io::AsyncReadExt;
        loop {
            if let Some((frame, used)) = parse_frame(&self.buf) {
                self.buf.drain(..used);
                return Some(frame);
            }
            let mut chunk = [0u8; 16 * 1024];
            let n = tokio::time::timeout(PATIENCE, self.stream.read(&mut chunk))
                .await
                .unwrap_or_else(|_| panic!("nothing received within {PATIENCE:?}"))
                .unwrap_or(0);
            if n == 0 {
                return None;
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// Reads until the server closes; returns every text frame and the
    /// close code seen.
    pub async fn drain(&mut self) -> (Vec<String>, Option<u16>) {
        let mut texts = Vec::new();
        let mut close = None;
        while let Some(f) = self.next().await {
            match f {
                WireFrame::Text(t) => texts.push(t),
                WireFrame::Close(c) => close = c,
                WireFrame::Other(_) => {}
            }
        }
        (texts, close)
    }
}

fn parse_frame(buf: &[u8]) -> Option<(WireFrame, usize)> {
    if buf.len() < 2 {
        return None;
    }
    let opcode = buf[0] & 0x0f;
    let (len, mut at) = match buf[1] & 0x7f {
        126 => (
            usize::from(u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?)),
            4,
        ),
        127 => (
            usize::try_from(u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?)).ok()?,
            10,
        ),
        n => (usize::from(n), 2),
    };
    if buf[1] & 0x80 != 0 {
        at += 4;
    }
    let payload = buf.get(at..at + len)?;
    let frame = match opcode {
        1 => WireFrame::Text(String::from_utf8_lossy(payload).into_owned()),
        8 => WireFrame::Close(payload.get(..2).map(|c| u16::from_be_bytes([c[0], c[1]]))),
        op => WireFrame::Other(op),
    };
    Some((frame, at + len))
}

/// Two greeted players in a new Nimrod room with `piles`, seats 0 and 1,
/// and seat 0's first update of the started match.
pub async fn nimrod_pair(url: &str, piles: [u64; 2]) -> (Raw, Raw, RoomId, Update) {
    let mut a = Raw::greeted(url, "alice").await;
    let room = a.create("nimrod", json!({ "piles": piles }), None).await;
    a.join(&room, 0).await;
    let mut b = Raw::greeted(url, "bob").await;
    b.join(&room, 1).await;
    let start = a.update(&room).await;
    (a, b, room, start)
}

/// What no frame may carry while a match runs: the deal's server seed and
/// salt (revealed only in the finished log), or an old match's seed.
pub fn deal_secrets(log: &parlor_protocol::MatchLog) -> Vec<String> {
    let mut secrets = Vec::new();
    if let Some(deal) = &log.header.deal {
        secrets.push(deal.server_seed.clone());
        secrets.push(deal.salt.clone());
    }
    if let Some(seed) = log.header.seed {
        secrets.push(seed.to_string());
    }
    assert!(!secrets.is_empty(), "the log reveals no deal");
    secrets
}

/// A greeted client whose connection comes from `source` (a loopback
/// address), so that tests can be several addresses at once.
pub async fn greeted_from(
    server: std::net::SocketAddr,
    source: std::net::Ipv4Addr,
    name: &str,
) -> Raw {
    let socket = tokio::net::TcpSocket::new_v4().unwrap_or_else(|e| panic!("{e}"));
    socket
        .bind((source, 0).into())
        .unwrap_or_else(|e| panic!("cannot bind {source}: {e}"));
    let tcp = socket
        .connect(server)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {server}: {e}"));
    Raw::greeted_on(format!("ws://{server}"), tcp, name).await
}

/// Two nodes of one cluster on a fresh schema and the test Redis, each
/// with a lease of `lease`; `None` if a service is missing (the test then
/// skips, except under `CI=true`, where the helpers fail it).
pub async fn two_nodes(lease: Duration) -> Option<(ScratchSchema, TestServer, TestServer)> {
    let scratch = ScratchSchema::new().await?;
    let bus = redis_bus().await?;
    let node = |bus: String| Config {
        store: scratch.config_with_lease(lease),
        bus: Some(bus),
        ..Config::default()
    };
    let a = start_server_with(node(bus.clone())).await;
    let b = start_server_with(node(bus)).await;
    Some((scratch, a, b))
}
