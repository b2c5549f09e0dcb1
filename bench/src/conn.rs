//! One benchmark client connection: a WebSocket that reads only the
//! fields the bots need from each frame.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parlor_protocol::MAX_SERVER_FRAME_BYTES;
use serde::Deserialize;
use serde_json::Value;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Longest wait for any one expected frame: far beyond any latency seen,
/// it only keeps a broken server from hanging the run.
pub const FRAME_PATIENCE: Duration = Duration::from_secs(30);

/// The parts of a server frame the bots look at (the view is skipped).
#[derive(Debug, Default, Deserialize)]
pub struct Frame {
    /// The message type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Room, for room messages.
    #[serde(default)]
    pub room: Option<String>,
    /// Position number, for updates.
    #[serde(default)]
    pub seq: Option<u64>,
    /// `waiting`, `playing` or `finished`, for updates.
    #[serde(default)]
    pub status: Option<String>,
    /// Seats to act, for updates.
    #[serde(default)]
    pub to_act: Vec<u8>,
    /// Legal moves, when sent.
    #[serde(default)]
    pub legal: Option<Vec<Value>>,
    /// Outcome, once the game is over.
    #[serde(default)]
    pub outcome: Option<Value>,
    /// Error code, for errors.
    #[serde(default)]
    pub code: Option<String>,
}

/// Distinct loopback addresses the bots connect from, in turn.
const BOT_ADDRESSES: u32 = 16 * 250;

/// Loopback address `i` of network 127.`net`.0.0/16: 127.`net`.x.y with y
/// in 1..=250.
pub fn loopback_address(net: u8, i: u32) -> Ipv4Addr {
    Ipv4Addr::new(127, net, (i / 250) as u8, (i % 250 + 1) as u8)
}

/// The next bot source address, in 127.1.0.0/16.
fn next_bot_address() -> Ipv4Addr {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    loopback_address(1, NEXT.fetch_add(1, Ordering::Relaxed) % BOT_ADDRESSES)
}

/// The server's address when `url` is a `ws://` URL on a loopback
/// address (the only case in which the bench picks its source address).
pub fn loopback_target(url: &str) -> Option<SocketAddrV4> {
    url.strip_prefix("ws://")
        .and_then(|rest| rest.split('/').next())
        .and_then(|host| host.parse::<SocketAddrV4>().ok())
        .filter(|a| a.ip().is_loopback())
}

/// Opens a TCP connection to the loopback `target` from `source` (any
/// port), with Nagle's delay off as every client here wants.
pub async fn tcp_from(target: SocketAddrV4, source: Ipv4Addr) -> Result<TcpStream, String> {
    let socket = TcpSocket::new_v4().map_err(|e| format!("socket: {e}"))?;
    socket
        .bind(SocketAddrV4::new(source, 0).into())
        .map_err(|e| format!("bind {source}: {e}"))?;
    let tcp = socket
        .connect(target.into())
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = tcp.set_nodelay(true);
    Ok(tcp)
}

/// tungstenite's read and write buffers, for the bench's clients and the
/// bare relay: its default read buffer (128 KiB) costs ~21x the memory of
/// 4 KiB per connection and measured slower here; our frames are small.
const BUFFER_BYTES: usize = 4 * 1024;

/// Most bytes tungstenite buffers for writing before writes fail.
const MAX_WRITE_BUFFER_BYTES: usize = 1024 * 1024;

/// The WebSocket settings of the bench's clients and of the bare relay,
/// with frames as large as the server may send (`MAX_SERVER_FRAME_BYTES`,
/// e.g. a long match's log).
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(BUFFER_BYTES)
        .write_buffer_size(BUFFER_BYTES)
        .max_write_buffer_size(MAX_WRITE_BUFFER_BYTES)
        .max_message_size(Some(MAX_SERVER_FRAME_BYTES))
        .max_frame_size(Some(MAX_SERVER_FRAME_BYTES))
}

/// Opens a WebSocket to `url`, from `source` if the server is on loopback
/// (from wherever the system picks otherwise).
pub async fn dial(
    url: &str,
    source: Ipv4Addr,
) -> Result<WebSocketStream<MaybeTlsStream<TcpStream>>, String> {
    let config = Some(ws_config());
    let Some(target) = loopback_target(url) else {
        return tokio_tungstenite::connect_async_with_config(url, config, true)
            .await
            .map(|(ws, _)| ws)
            .map_err(|e| format!("connect: {e}"));
    };
    let tcp = tcp_from(target, source).await?;
    tokio_tungstenite::client_async_with_config(url, MaybeTlsStream::Plain(tcp), config)
        .await
        .map(|(ws, _)| ws)
        .map_err(|e| format!("connect: {e}"))
}

/// A client connection.
#[derive(Debug)]
pub struct Conn {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The last update received.
    pub last: Option<Frame>,
}

impl Conn {
    /// Connects to `url` and says hello. Against a loopback server each
    /// bot connection comes from its own address in 127.1.0.0/16, as
    /// players do from their own machines (the server limits how fast one
    /// address may connect).
    pub async fn open(url: &str) -> Result<Conn, String> {
        Conn::open_from(url, next_bot_address()).await
    }

    /// Connects to `url` from `source` (when the server is on loopback)
    /// and says hello: for clients that must not share an address's
    /// limits with the bots.
    pub async fn open_from(url: &str, source: Ipv4Addr) -> Result<Conn, String> {
        let ws = tokio::time::timeout(FRAME_PATIENCE, dial(url, source))
            .await
            .map_err(|_| "connect timed out".to_owned())??;
        let mut c = Conn { ws, last: None };
        c.send(r#"{"type":"hello","version":1,"name":"bench"}"#.to_owned())
            .await?;
        c.until(|f| f.kind == "welcome").await?;
        Ok(c)
    }

    /// Connects to `url` from `source` and says hello as the account of
    /// API token `token`.
    pub async fn open_as(url: &str, source: Ipv4Addr, token: &str) -> Result<Conn, String> {
        let ws = tokio::time::timeout(FRAME_PATIENCE, dial(url, source))
            .await
            .map_err(|_| "connect timed out".to_owned())??;
        let mut c = Conn { ws, last: None };
        let hello = serde_json::json!({"type": "hello", "version": 1, "token": token});
        c.send(hello.to_string()).await?;
        c.until(|f| f.kind == "welcome").await?;
        Ok(c)
    }

    /// Sends a text frame.
    pub async fn send(&mut self, text: String) -> Result<(), String> {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .map_err(|e| format!("send: {e}"))
    }

    /// The next text frame as received (for figures on the raw reply).
    pub async fn recv_text(&mut self) -> Result<Utf8Bytes, String> {
        loop {
            let next = tokio::time::timeout(FRAME_PATIENCE, self.ws.next())
                .await
                .map_err(|_| "no frame within the patience".to_owned())?;
            match next {
                None => return Err("closed".into()),
                Some(Err(e)) => return Err(format!("read: {e}")),
                Some(Ok(Message::Text(t))) => return Ok(t),
                Some(Ok(Message::Close(f))) => return Err(format!("closed: {f:?}")),
                Some(Ok(_)) => {}
            }
        }
    }

    /// The next text frame, parsed.
    pub async fn recv(&mut self) -> Result<Frame, String> {
        let t = self.recv_text().await?;
        serde_json::from_str(t.as_str()).map_err(|e| format!("bad frame {t}: {e}"))
    }

    /// Skips frames until `want` accepts one; an error frame first is an error.
    pub async fn until(&mut self, want: impl Fn(&Frame) -> bool) -> Result<Frame, String> {
        loop {
            let f = self.recv().await?;
            if want(&f) {
                return Ok(f);
            }
            if f.kind == "error" {
                return Err(format!("error {}", f.code.unwrap_or_default()));
            }
        }
    }

    /// Waits for an update of `room` past `seq` (or, with `None`, one
    /// whose match is playing) and keeps it as `last`.
    pub async fn update_after(&mut self, room: &str, seq: Option<u64>) -> Result<(), String> {
        let f = self
            .until(|f| {
                f.kind == "update"
                    && f.room.as_deref() == Some(room)
                    && match seq {
                        Some(s) => f.seq.is_some_and(|q| q > s),
                        None => f.status.as_deref() != Some("waiting"),
                    }
            })
            .await?;
        self.last = Some(f);
        Ok(())
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
