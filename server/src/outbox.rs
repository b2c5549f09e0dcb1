//! The queue of frames waiting to be written to one connection.

use std::sync::atomic::{AtomicU64, Ordering};

use parlor_protocol::{encode, ServerMsg};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_util::sync::CancellationToken;

/// A connection's number, unique for the server's lifetime (for logs and
/// for telling a player's old connection from a new one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConnId(pub u64);

impl ConnId {
    /// A fresh id.
    pub fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ConnId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// What the writer task does next.
#[derive(Debug)]
pub enum Outgoing {
    /// Send a text frame.
    Text(Utf8Bytes),
    /// Send a WebSocket ping.
    Ping,
    /// Send a close frame with this code and reason, then stop.
    Close(u16, String),
}

/// The sending side of a connection's queue. Never blocks: a connection
/// whose queue is full is too slow, and is closed rather than allowed to
/// make a room wait or the server buffer without bound.
#[derive(Clone, Debug)]
pub struct Outbox {
    id: ConnId,
    tx: mpsc::Sender<Outgoing>,
    slow: CancellationToken,
}

impl Outbox {
    /// An outbox feeding `tx`; `slow` is cancelled if the queue overflows.
    pub fn new(id: ConnId, tx: mpsc::Sender<Outgoing>, slow: CancellationToken) -> Self {
        Outbox { id, tx, slow }
    }

    /// The connection's id.
    pub fn id(&self) -> ConnId {
        self.id
    }

    /// Queues a pre-encoded frame (shared frames are encoded once and
    /// cloned cheaply). Returns false if the connection is gone or too slow.
    pub fn send_text(&self, text: Utf8Bytes) -> bool {
        self.push(Outgoing::Text(text))
    }

    /// Encodes and queues a message.
    pub fn send(&self, msg: &ServerMsg) -> bool {
        self.send_text(Utf8Bytes::from(encode(msg)))
    }

    /// Queues a ping or a close.
    pub fn push(&self, item: Outgoing) -> bool {
        match self.tx.try_send(item) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.slow.cancel();
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Waits until `n` more frames fit in the queue, for at most `limit`.
    /// Returns false if the connection is gone or if the frames never fit,
    /// in which case it is marked too slow (and will be closed).
    pub async fn wait_room(&self, n: usize, limit: std::time::Duration) -> bool {
        // Almost always there is room: check without arming a timer.
        if self.tx.try_reserve_many(n).is_ok() {
            return true;
        }
        match tokio::time::timeout(limit, self.tx.reserve_many(n)).await {
            Ok(Ok(permits)) => {
                drop(permits);
                true
            }
            Ok(Err(_)) => false,
            Err(_) => {
                self.slow.cancel();
                false
            }
        }
    }

    /// Whether the connection is still there.
    pub fn is_open(&self) -> bool {
        !self.tx.is_closed() && !self.slow.is_cancelled()
    }
}
