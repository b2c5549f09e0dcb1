//! One connection: a reader that decodes requests and answers them, and a
//! writer that sends what the connection's outbox holds.

mod analysis;
mod reader;
mod requests;
mod writer;

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use futures_util::StreamExt;
use parlor_protocol::RoomId;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

pub use analysis::Analyses;

use crate::admission::Admission;
use crate::directory::Directory;
use crate::http::Transport;
use crate::limits::Limits;
use crate::outbox::{ConnId, Outbox};
use crate::rate::RateLimiter;

/// What every connection of a server shares.
#[derive(Debug)]
pub struct Shared {
    /// The rooms.
    pub directory: Arc<Directory>,
    /// The analysis places.
    pub analyses: Arc<Analyses>,
    /// Connection admission by address (told of flooders).
    pub admission: Admission,
    /// The server's shutdown signal.
    pub shutdown: CancellationToken,
    /// Limits and timeouts.
    pub limits: Limits,
}

/// One connection's state.
struct Session {
    conn: ConnId,
    out: Outbox,
    token: Uuid,
    name: Arc<str>,
    greeted: bool,
    peer: IpAddr,
    /// Rooms this connection sat or watched in, to detach from at the end.
    rooms: HashSet<RoomId>,
    shared: Arc<Shared>,
    limiter: RateLimiter,
    /// Set while this connection has an analysis running.
    analysing: Arc<AtomicBool>,
}

/// Serves one accepted WebSocket connection from `peer` until it closes;
/// `hello_by` is when `hello` must have arrived (counted from the accept,
/// so the handshake's time counts against it).
pub async fn serve(
    ws: WebSocketStream<Transport>,
    peer: IpAddr,
    hello_by: Instant,
    shared: Arc<Shared>,
) {
    let (sink, source) = ws.split();
    let conn = ConnId::next();
    let (out, inbox) = Outbox::new(conn);
    let writer = tokio::spawn(writer::write_loop(sink, inbox));
    let token = Uuid::new_v4();
    shared.directory.connect(&out, token);
    let mut session = Session {
        conn,
        out,
        token,
        name: Arc::from("anonymous"),
        greeted: false,
        peer,
        rooms: HashSet::new(),
        shared: Arc::clone(&shared),
        limiter: RateLimiter::new(Instant::now()),
        analysing: Arc::new(AtomicBool::new(false)),
    };
    let flooded = session.read_loop(source, hello_by).await;
    if flooded {
        tracing::info!(conn = conn.0, %peer, "closed for flooding; the address cools down");
        shared.admission.flooded(peer, Instant::now());
    }
    session.detach_all();
    shared.directory.disconnect(conn, session.token);
    drop(session);
    drain(writer, shared.limits.writer_drain_timeout).await;
}

/// Lets the writer send what is queued, then aborts it if the client does
/// not read (its socket buffer is full): the connection is then closed and
/// everything queued for it freed.
async fn drain(mut writer: tokio::task::JoinHandle<()>, limit: std::time::Duration) {
    if tokio::time::timeout(limit, &mut writer).await.is_err() {
        writer.abort();
        let _ = writer.await;
    }
}

/// The WebSocket settings every connection uses (see `limits`).
pub fn ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    use crate::limits::{
        MAX_FRAME_BYTES, MAX_WRITE_BUFFER_BYTES, READ_BUFFER_BYTES, WRITE_BUFFER_BYTES,
    };
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .max_write_buffer_size(MAX_WRITE_BUFFER_BYTES)
        .max_message_size(Some(MAX_FRAME_BYTES))
        .max_frame_size(Some(MAX_FRAME_BYTES))
}
