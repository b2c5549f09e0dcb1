//! One connection: one task that reads the client's requests, answers
//! them, and writes what its outbox holds (see `drive`).
//!
//! One task rather than a reader and a writer: a connection then costs
//! one task's memory, and a move's answer is written by the task that
//! read it, without waking another.
//!
//! A `Session` holds who the connection is; what a feature keeps lives
//! with the feature: the rooms it entered (`rooms`), its analysis
//! (`analysis`), its summonses (`matchmaking`).

mod analysis;
mod asks;
mod chat;
mod drive;
mod entries;
mod games;
mod matchmaking;
mod requests;
mod rooms;
mod seek_budget;
mod standing;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

pub use analysis::Analyses;
use analysis::OneAnalysis;
use drive::Ended;
use matchmaking::Matchmaking;
use rooms::Rooms;

use crate::admission::Admission;
use crate::directory::Directory;
use crate::http::Peer;
use crate::limits::{Limits, MAX_FRAME_BYTES};
use crate::outbox::{ConnId, Inbox, Outbox};
use crate::rate::RateLimiter;
use crate::websocket::WebSocket;

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
    pub tournaments: Arc<crate::tournaments::Tournaments>,
    /// The bot ladders.
    pub ladder: Arc<crate::ladder::Ladder>,
    /// The server's tasks (a connection moving to another shard goes on
    /// as one of them).
    pub tracker: TaskTracker,
}

/// What a connection holds while it lives, wherever it runs: its place
/// under the connection cap and its count among open connections.
#[derive(Debug)]
pub struct Hold {
    /// Its place under `limits.max_connections`.
    pub permit: OwnedSemaphorePermit,
    /// Its count in the metrics.
    pub open: crate::metrics::OpenConnection,
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
    shared: Arc<Shared>,
    limiter: RateLimiter,
    /// The rooms it sat or watched in, and the shard it is to move to.
    rooms: Rooms,
    /// Its analysis, one at a time.
    analysis: OneAnalysis,
    /// Where its summonses to seats arrive.
    matchmaking: Matchmaking,
    /// Its recent chat messages, for their rate.
    chat_rate: crate::chat::ChatRate,
}

/// Serves one accepted WebSocket connection from `peer` until it closes
/// (`peer` is the upgrade request's: see [`Peer`]);
/// `hello_by` is when `hello` must have arrived (counted from the accept,
/// so the handshake's time counts against it). `hold` is released when the
/// connection is over.
///
/// The connection goes on as a task of its own on the current runtime: the
/// task that accepted it, with the state of its handshake and of any HTTP
/// requests before it, ends and is freed.
pub fn serve(
    ws: WebSocket,
    peer: Peer,
    hello_by: Instant,
    shared: Arc<Shared>,
    credential: Option<crate::accounts::Credential>,
    hold: Hold,
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
        shared,
        limiter: RateLimiter::new(Instant::now()),
        rooms: Rooms::default(),
        analysis: OneAnalysis::default(),
        matchmaking: Matchmaking::default(),
        chat_rate: crate::chat::ChatRate::default(),
    };
    let tracker = session.shared.tracker.clone();
    tracker.spawn(live(session, ws, inbox, hello_by, hold));
}

/// The connection's life on one shard. When the room it enters runs on
/// another shard, it goes on there as a new task (taking its socket,
/// queue and hold along) and this one ends. Boxed: it spawns itself.
fn live(
    mut session: Session,
    mut ws: WebSocket,
    mut inbox: Inbox,
    hello_by: Instant,
    hold: Hold,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        let (flooded, close) = match session.drive(&mut ws, &mut inbox, hello_by).await {
            Ended::Over { flooded, close } => (flooded, close),
            Ended::Move(shard) => {
                let shared = Arc::clone(&session.shared);
                let shards = shared.directory.shards();
                shards.spawn_on(&shared.tracker, shard, async move {
                    if let Err(e) = ws.rehome() {
                        tracing::warn!(error = %e, "a connection could not move to its room's shard");
                    }
                    live(session, ws, inbox, hello_by, hold).await;
                });
                return;
            }
        };
        let shared = Arc::clone(&session.shared);
        if flooded {
            tracing::info!(conn = session.conn.0, peer = %session.peer.addr, "closed for flooding; the address cools down");
            shared.admission.flooded(session.peer.addr, Instant::now());
        }
        session.detach_all();
        // Boxed for the same reason as the finish below.
        Box::pin(shared.matchmaker.closed(session.conn)).await;
        shared.directory.disconnect(session.conn, session.token);
        drop(session);
        // Boxed: rare, and its timers would make every task larger.
        Box::pin(drive::finish(&mut ws, close, shared.limits)).await;
        drop(hold);
    })
}

/// The largest message a client may send.
const MAX_MESSAGE: usize = MAX_FRAME_BYTES;
