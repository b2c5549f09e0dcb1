//! One connection: a reader that decodes requests and answers them, and a
//! writer that sends what the connection's outbox holds.

mod analysis;
mod games;
mod ladder;
mod matchmaking;
mod reader;
mod requests;
mod writer;

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use futures_util::StreamExt;
use parlor_protocol::RoomId;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

pub use analysis::Analyses;
use reader::Ended;

use crate::admission::Admission;
use crate::directory::Directory;
use crate::http::{Peer, Transport};
use crate::limits::{Limits, CLOSE_LINGER};
use crate::outbox::{ConnId, Inbox, Outbox};
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
    /// Accounts, tokens and sessions.
    pub accounts: Arc<crate::accounts::Accounts>,
    /// Seeks and challenges.
    pub matchmaker: Arc<crate::matchmaking::Matchmaker>,
    /// Tournaments.
    pub events: Arc<crate::events::Events>,
}

/// One connection's state.
struct Session {
    conn: ConnId,
    out: Outbox,
    token: Uuid,
    name: Arc<str>,
    greeted: bool,
    /// The account the connection acts as, once `hello` is answered.
    account: Option<crate::accounts::store::Account>,
    /// What the upgrade presented to authenticate with, checked at `hello`.
    credential: Option<crate::accounts::Credential>,
    /// Whom the connection comes from (the address its per-address
    /// limits count against) and whether it is secure (native TLS, or a
    /// trusted proxy's `X-Forwarded-Proto: https`).
    peer: Peer,
    /// Rooms this connection sat or watched in, to detach from at the end.
    rooms: HashSet<RoomId>,
    shared: Arc<Shared>,
    limiter: RateLimiter,
    /// Set while this connection has an analysis running.
    analysing: Arc<AtomicBool>,
    /// The shard this connection is to move to (see `follow`).
    move_to: Option<usize>,
    /// Where summonses to seats arrive (matches found, challenges
    /// accepted, rematches), once the session seeks, challenges or
    /// offers a rematch: made then, so idle connections do not pay for it.
    summons: Option<tokio::sync::mpsc::Receiver<crate::directory::Summons>>,
}

/// Serves one accepted WebSocket connection from `peer` until it closes
/// (`peer` is the upgrade request's: see [`Peer`]);
/// `hello_by` is when `hello` must have arrived (counted from the accept,
/// so the handshake's time counts against it).
pub async fn serve(
    ws: WebSocketStream<Transport>,
    peer: Peer,
    hello_by: Instant,
    shared: Arc<Shared>,
    credential: Option<crate::accounts::Credential>,
) {
    let conn = ConnId::next();
    let (out, inbox) = Outbox::new(conn);
    let token = Uuid::new_v4();
    shared.directory.connect(&out, token);
    let session = Session {
        conn,
        out,
        token,
        name: Arc::from("anonymous"),
        greeted: false,
        account: None,
        credential,
        peer,
        rooms: HashSet::new(),
        shared,
        limiter: RateLimiter::new(Instant::now()),
        analysing: Arc::new(AtomicBool::new(false)),
        move_to: None,
        summons: None,
    };
    live(session, ws, inbox, hello_by).await;
}

/// The connection's life on one shard: its writer on a task of its own,
/// its reader here. When the room it enters runs on another shard, the
/// writer hands the socket back between two batches and the connection
/// goes on there (this task waits for it, so that whoever waits for this
/// one, such as the connection cap, waits for the whole connection).
/// Boxed: it spawns itself.
fn live(
    mut session: Session,
    ws: WebSocketStream<Transport>,
    inbox: Inbox,
    hello_by: Instant,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        let (sink, mut source) = ws.split();
        let recall = CancellationToken::new();
        let mut writer = tokio::spawn(writer::write_loop(sink, inbox, recall.clone()));
        let limits = session.shared.limits;
        let flooded = match session.read_loop(&mut source, hello_by).await {
            Ended::Over { flooded } => flooded,
            Ended::Move(shard) => {
                recall.cancel();
                // A writer stuck on a client that does not read is given as
                // long as a reader waits for room in the outbox.
                let back = tokio::time::timeout(limits.outbox_stall_timeout, &mut writer).await;
                let handle = session.shared.directory.shards().handle(shard).cloned();
                match (back, handle) {
                    (Ok(Ok(Some((sink, inbox)))), Some(handle)) => match source.reunite(sink) {
                        Ok(mut ws) => {
                            let moved = handle.spawn(async move {
                                if let Err(e) = ws.get_mut().rehome() {
                                    tracing::warn!(error = %e, "a connection could not move to its room's shard");
                                }
                                live(session, ws, inbox, hello_by).await;
                            });
                            let _ = moved.await;
                            return;
                        }
                        Err(futures_util::stream::ReuniteError(_, halve)) => {
                            tracing::error!(
                                conn = session.conn.0,
                                "a connection's halves did not fit back together"
                            );
                            source = halve;
                        }
                    },
                    (Err(_), _) => {
                        tracing::info!(
                            conn = session.conn.0,
                            "closed: it did not read while moving to its room's shard"
                        );
                        writer.abort();
                    }
                    // The writer ended (the connection is over), or there
                    // is no such shard (never: the directory named it).
                    _ => {}
                }
                false
            }
        };
        let shared = Arc::clone(&session.shared);
        if flooded {
            tracing::info!(conn = session.conn.0, peer = %session.peer.addr, "closed for flooding; the address cools down");
            shared.admission.flooded(session.peer.addr, Instant::now());
        }
        session.detach_all();
        shared.matchmaker.closed(session.conn);
        shared.directory.disconnect(session.conn, session.token);
        drop(session);
        drain(writer, shared.limits.writer_drain_timeout).await;
        linger(&mut source).await;
    })
}

/// Reads, and drops, what the client still sends for a moment after the
/// writer is done: closing a socket with unread input resets it, and the
/// reset can destroy the close frame just sent before the client reads
/// it. Ends at once if the client already closed, or when its close
/// reply comes.
async fn linger(source: &mut reader::Source) {
    let _ = tokio::time::timeout(CLOSE_LINGER, async {
        while let Some(Ok(_)) = source.next().await {}
    })
    .await;
}

/// Lets the writer send what is queued, then aborts it if the client does
/// not read (its socket buffer is full): the connection is then closed and
/// everything queued for it freed.
async fn drain(
    mut writer: tokio::task::JoinHandle<Option<(writer::Sink, Inbox)>>,
    limit: std::time::Duration,
) {
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
