//! The queue of frames waiting to be written to one connection.
//!
//! Bounded twice: in frames ([`OUTBOX_CAPACITY`]) and in bytes
//! ([`MAX_QUEUED_BYTES`]), since a few large replies (room lists,
//! analyses) cost as much memory as thousands of updates. A connection over
//! either bound is ended: its writer sends a close frame saying why and
//! drops whatever was queued.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parlor_protocol::{encode, ErrorCode, ServerMsg, MAX_SERVER_FRAME_BYTES};
use tokio::sync::{mpsc, Notify};
use tokio_tungstenite::tungstenite::Utf8Bytes;
use tokio_util::sync::CancellationToken;

use crate::limits::{MAX_QUEUED_BYTES, OUTBOX_CAPACITY};

/// A connection's number, unique for the server's lifetime (for logs and
/// for telling a player's old connection from a new one).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
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

/// Why a connection was ended from the server's side: the close frame its
/// writer sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The WebSocket close code.
    pub code: u16,
    /// The error code, sent as the close reason.
    pub why: ErrorCode,
}

/// WebSocket close code for a connection that does not read its messages
/// (policy violation).
pub const CLOSE_SLOW: u16 = 1008;

/// WebSocket close code (application range) for a connection whose
/// session was resumed elsewhere.
pub const CLOSE_TAKEN_OVER: u16 = 4001;

/// What the outbox and the connection's writer share.
#[derive(Debug)]
struct Books {
    /// Bytes of text frames queued and not yet written.
    queued: AtomicUsize,
    /// Set once the connection is ended (cheaper to read than the token,
    /// which takes a lock: `is_open` runs per seat per update).
    ended: AtomicBool,
    /// Why it was ended, first reason wins.
    ending: OnceLock<Ending>,
    /// Cancelled when the connection is ended: stops its reader and writer.
    stop: CancellationToken,
    /// The same as `stop`, as a flag cheap enough to read per frame.
    stopped: AtomicBool,
    /// Cancelled when the connection is to close: stops its reader (its
    /// writer goes on to the close frame queued last).
    closing: CancellationToken,
    /// Signalled by the writer whenever it has written a batch, if the
    /// reader is waiting (`waiting`): notifying takes a lock, and the
    /// writer finishes a batch per update.
    drained: Notify,
    waiting: AtomicBool,
}

/// The sending side of a connection's queue. Never blocks: a connection
/// whose queue is full is too slow, and is ended rather than allowed to
/// make a room wait or the server buffer without bound.
#[derive(Clone, Debug)]
pub struct Outbox {
    id: ConnId,
    tx: mpsc::Sender<Outgoing>,
    books: Arc<Books>,
}

/// The writer's side of an outbox: what it takes frames from.
#[derive(Debug)]
pub struct Inbox {
    rx: mpsc::Receiver<Outgoing>,
    books: Arc<Books>,
}

impl Outbox {
    /// A new queue for connection `id`, and the writer's end of it.
    pub fn new(id: ConnId) -> (Outbox, Inbox) {
        let (tx, rx) = mpsc::channel(OUTBOX_CAPACITY);
        let books = Arc::new(Books {
            queued: AtomicUsize::new(0),
            ended: AtomicBool::new(false),
            ending: OnceLock::new(),
            stop: CancellationToken::new(),
            stopped: AtomicBool::new(false),
            closing: CancellationToken::new(),
            drained: Notify::new(),
            waiting: AtomicBool::new(false),
        });
        let inbox = Inbox {
            rx,
            books: Arc::clone(&books),
        };
        (Outbox { id, tx, books }, inbox)
    }

    /// The connection's id.
    pub fn id(&self) -> ConnId {
        self.id
    }

    /// Queues a pre-encoded frame (shared frames are encoded once and
    /// cloned cheaply). Returns false if the connection is gone or too slow.
    pub fn send_text(&self, text: Utf8Bytes) -> bool {
        let len = text.len();
        if len > MAX_SERVER_FRAME_BYTES {
            tracing::warn!(
                conn = self.id.0,
                len,
                "a reply over the frame limit was refused"
            );
            return self.send(&ServerMsg::error(
                ErrorCode::ServerReplyTooLarge,
                format!(
                    "the answer would be {len} bytes, over the {MAX_SERVER_FRAME_BYTES}-byte frame limit; ask for less"
                ),
            ));
        }
        let before = self.books.queued.fetch_add(len, Ordering::Relaxed);
        if before + len > MAX_QUEUED_BYTES {
            self.books.queued.fetch_sub(len, Ordering::Relaxed);
            self.end(CLOSE_SLOW, ErrorCode::ConnectionSlow);
            return false;
        }
        if self.push(Outgoing::Text(text)) {
            true
        } else {
            self.books.queued.fetch_sub(len, Ordering::Relaxed);
            false
        }
    }

    /// Encodes and queues a message.
    pub fn send(&self, msg: &ServerMsg) -> bool {
        self.send_text(Utf8Bytes::from(encode(msg)))
    }

    /// Queues a ping or a close.
    pub fn push(&self, item: Outgoing) -> bool {
        if self.books.ended.load(Ordering::Relaxed) {
            return false;
        }
        match self.tx.try_send(item) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.end(CLOSE_SLOW, ErrorCode::ConnectionSlow);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Ends the connection: its writer sends a close frame with `code`
    /// and `why` (unless it was already ended for another reason) and
    /// drops what is queued; its reader stops.
    pub fn end(&self, code: u16, why: ErrorCode) {
        let _ = self.books.ending.set(Ending { code, why });
        self.books.ended.store(true, Ordering::Relaxed);
        self.books.stopped.store(true, Ordering::Relaxed);
        self.books.stop.cancel();
        self.books.closing.cancel();
    }

    /// Closes the connection after what is queued: its reader stops now,
    /// its writer sends the queue, then a close frame with `code` and
    /// `why`. A queue too full for the close frame ends it at once.
    pub fn close(&self, code: u16, why: ErrorCode) {
        let _ = self.books.ending.set(Ending { code, why });
        if !self.push(Outgoing::Close(code, why.as_str().into())) {
            self.end(code, why);
        }
        self.books.ended.store(true, Ordering::Relaxed);
        self.books.closing.cancel();
    }

    /// Why the connection was ended, if it was.
    pub fn ending(&self) -> Option<Ending> {
        self.books.ending.get().copied()
    }

    /// Cancelled once the connection is ended or closing: its reader stops.
    pub fn closing(&self) -> CancellationToken {
        self.books.closing.clone()
    }

    /// Waits until the queue has room for the answers to one more request
    /// (`n` frames, and fewer than half of [`MAX_QUEUED_BYTES`] queued), for
    /// at most `limit`. Returns false if the connection is gone or the room
    /// never came, in which case it is ended as too slow.
    pub async fn wait_room(&self, n: usize, limit: std::time::Duration) -> bool {
        let fits = |o: &Outbox| {
            // SeqCst with `waiting`: see `Inbox::batch_done`.
            o.books.queued.load(Ordering::SeqCst) < MAX_QUEUED_BYTES / 2 && o.tx.capacity() >= n
        };
        // Almost always there is room: check without arming a timer.
        if fits(self) {
            return self.is_open();
        }
        self.books.waiting.store(true, Ordering::SeqCst);
        let waited = tokio::time::timeout(limit, async {
            loop {
                let drained = self.books.drained.notified();
                if fits(self) || !self.is_open() {
                    return;
                }
                drained.await;
            }
        })
        .await;
        self.books.waiting.store(false, Ordering::SeqCst);
        if waited.is_err() {
            self.end(CLOSE_SLOW, ErrorCode::ConnectionSlow);
            return false;
        }
        self.is_open()
    }

    /// Whether the connection is still there.
    pub fn is_open(&self) -> bool {
        !self.books.ended.load(Ordering::Relaxed) && !self.tx.is_closed()
    }
}

impl Inbox {
    /// The next frame to write; `None` once every outbox is gone.
    pub async fn recv(&mut self) -> Option<Outgoing> {
        self.rx.recv().await
    }

    /// The next frame if one is queued.
    pub fn try_recv(&mut self) -> Option<Outgoing> {
        self.rx.try_recv().ok()
    }

    /// Records that a frame of `len` bytes was written.
    pub fn written(&self, len: usize) {
        self.books.queued.fetch_sub(len, Ordering::SeqCst);
    }

    /// Tells a reader waiting for room that a batch went out.
    pub fn batch_done(&self) {
        // Ordered after the writes' `written`: a reader that starts waiting
        // after this load sees the queue already drained.
        if self.books.waiting.load(Ordering::SeqCst) {
            self.books.drained.notify_waiters();
        }
    }

    /// Cancelled once the connection is ended.
    pub fn stopped(&self) -> CancellationToken {
        self.books.stop.clone()
    }

    /// Why the connection was ended, if it was.
    pub fn ending(&self) -> Option<Ending> {
        self.books.ending.get().copied()
    }

    /// Whether the connection was ended (what is queued is to be dropped).
    pub fn is_ended(&self) -> bool {
        self.books.stopped.load(Ordering::Relaxed)
    }

    /// Bytes queued and not yet written.
    pub fn queued_bytes(&self) -> usize {
        self.books.queued.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_over_its_byte_budget_is_ended_as_slow() {
        let (out, inbox) = Outbox::new(ConnId::next());
        let big = Utf8Bytes::from("x".repeat(MAX_SERVER_FRAME_BYTES / 2));
        let mut sent = 0;
        while out.send_text(big.clone()) {
            sent += 1;
            assert!(
                sent <= MAX_QUEUED_BYTES / big.len(),
                "the byte bound never applied"
            );
        }
        assert_eq!(sent, MAX_QUEUED_BYTES / big.len());
        assert!(inbox.queued_bytes() <= MAX_QUEUED_BYTES);
        assert_eq!(
            out.ending(),
            Some(Ending {
                code: CLOSE_SLOW,
                why: ErrorCode::ConnectionSlow
            })
        );
        assert!(!out.is_open());
    }

    #[test]
    fn an_oversized_reply_becomes_an_error_frame() {
        let (out, mut inbox) = Outbox::new(ConnId::next());
        assert!(out.send_text(Utf8Bytes::from("y".repeat(MAX_SERVER_FRAME_BYTES + 1))));
        match inbox.try_recv() {
            Some(Outgoing::Text(t)) => {
                assert!(t.len() < 1024);
                assert!(t.as_str().contains("server/reply_too_large"));
            }
            other => panic!("expected an error frame, got {other:?}"),
        }
    }

    #[test]
    fn the_first_ending_is_the_one_reported() {
        let (out, _inbox) = Outbox::new(ConnId::next());
        out.end(CLOSE_TAKEN_OVER, ErrorCode::SessionTakenOver);
        out.end(CLOSE_SLOW, ErrorCode::ConnectionSlow);
        assert_eq!(
            out.ending().map(|e| e.why),
            Some(ErrorCode::SessionTakenOver)
        );
    }
}
