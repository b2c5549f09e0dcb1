//! The queue of frames waiting to be written to one connection.
//!
//! Bounded twice: in frames ([`OUTBOX_CAPACITY`]) and in bytes
//! ([`MAX_QUEUED_BYTES`]), since a few large replies (room lists,
//! analyses) cost as much memory as thousands of updates. A connection over
//! either bound is ended: it sends a close frame saying why and drops
//! whatever was queued.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};

use parlor_protocol::{encode, ErrorCode, ServerMsg, MAX_SERVER_FRAME_BYTES};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::limits::{MAX_QUEUED_BYTES, OUTBOX_CAPACITY};

/// A drained queue keeps its allocation up to this many places (a move's
/// few updates); a larger one, left by a burst, is freed, so that an idle
/// connection keeps no queue memory to speak of.
const KEPT_PLACES: usize = 8;

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

/// What the connection writes next.
#[derive(Debug)]
pub enum Outgoing {
    /// Send a text frame.
    Text(Utf8Bytes),
    /// Send a WebSocket ping.
    Ping,
    /// Send a close frame with this code and reason, then stop.
    Close(u16, String),
}

/// Why a connection was ended from the server's side: the close frame it
/// sends.
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

/// WebSocket close code (application range) for a connection whose
/// credential (API token or browser session) ended: revoked, logged out,
/// the password changed, the account closed.
pub const CLOSE_REVOKED: u16 = 4002;

/// The queue itself, behind a lock taken for a push or a batch (never
/// across an await). A lock rather than a channel: the one task that
/// drains it takes a whole batch at once, and an empty queue allocates
/// nothing.
#[derive(Debug, Default)]
struct Queue {
    items: VecDeque<Outgoing>,
    /// Bytes of text frames queued and not yet written.
    bytes: usize,
    /// The connection's task, waiting for something to write.
    waker: Option<Waker>,
}

/// What the outboxes and the connection share.
#[derive(Debug)]
struct Books {
    queue: Mutex<Queue>,
    /// Set once the connection is ended or closing: nothing more is
    /// queued (read per seat per update, so a flag, not the lock).
    ended: AtomicBool,
    /// Set once the connection is ended: what is queued is dropped.
    stopped: AtomicBool,
    /// Why it was ended, first reason wins.
    ending: OnceLock<Ending>,
    /// Outboxes alive; at none the connection's queue can only drain.
    senders: AtomicUsize,
}

impl Books {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // A panic while holding it cannot leave the queue inconsistent
        // (each change is one push or pop).
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn end(&self, code: u16, why: ErrorCode) {
        let _ = self.ending.set(Ending { code, why });
        self.ended.store(true, Ordering::Relaxed);
        self.stopped.store(true, Ordering::Release);
    }

    /// Wakes the connection's task, if it waits.
    fn wake(&self) {
        let waker = self.queue().waker.take();
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// The sending side of a connection's queue. Never blocks: a connection
/// whose queue is full is too slow, and is ended rather than allowed to
/// make a room wait or the server buffer without bound.
#[derive(Debug)]
pub struct Outbox {
    id: ConnId,
    books: Arc<Books>,
}

impl Clone for Outbox {
    fn clone(&self) -> Self {
        self.books.senders.fetch_add(1, Ordering::Relaxed);
        Outbox {
            id: self.id,
            books: Arc::clone(&self.books),
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        if self.books.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.books.wake();
        }
    }
}

/// The connection's side of an outbox: what it takes frames from.
#[derive(Debug)]
pub struct Inbox {
    books: Arc<Books>,
}

impl Outbox {
    /// A new queue for connection `id`, and the connection's end of it.
    pub fn new(id: ConnId) -> (Outbox, Inbox) {
        let books = Arc::new(Books {
            queue: Mutex::new(Queue::default()),
            ended: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            ending: OnceLock::new(),
            senders: AtomicUsize::new(1),
        });
        let inbox = Inbox {
            books: Arc::clone(&books),
        };
        (Outbox { id, books }, inbox)
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
        self.queue(Outgoing::Text(text), len)
    }

    /// Encodes and queues a message.
    pub fn send(&self, msg: &ServerMsg) -> bool {
        self.send_text(Utf8Bytes::from(encode(msg)))
    }

    /// Queues a ping or a close.
    pub fn push(&self, item: Outgoing) -> bool {
        self.queue(item, 0)
    }

    /// Queues `item` of `len` text bytes, or ends the connection as too
    /// slow if either bound would be passed.
    fn queue(&self, item: Outgoing, len: usize) -> bool {
        if self.books.ended.load(Ordering::Relaxed) {
            return false;
        }
        let mut q = self.books.queue();
        if q.items.len() >= OUTBOX_CAPACITY || q.bytes + len > MAX_QUEUED_BYTES {
            drop(q);
            self.end(CLOSE_SLOW, ErrorCode::ConnectionSlow);
            return false;
        }
        q.items.push_back(item);
        q.bytes += len;
        let waker = q.waker.take();
        drop(q);
        if let Some(w) = waker {
            w.wake();
        }
        true
    }

    /// Ends the connection: it sends a close frame with `code` and `why`
    /// (unless it was already ended for another reason), drops what is
    /// queued and reads no more.
    pub fn end(&self, code: u16, why: ErrorCode) {
        self.books.end(code, why);
        self.books.wake();
    }

    /// Closes the connection after what is queued: it reads no more,
    /// sends the queue, then a close frame with `code` and `why`. A queue
    /// too full for the close frame ends it at once.
    pub fn close(&self, code: u16, why: ErrorCode) {
        let _ = self.books.ending.set(Ending { code, why });
        if !self.push(Outgoing::Close(code, why.as_str().into())) {
            self.end(code, why);
        }
        self.books.ended.store(true, Ordering::Relaxed);
        self.books.wake();
    }

    /// Why the connection was ended, if it was.
    pub fn ending(&self) -> Option<Ending> {
        self.books.ending.get().copied()
    }

    /// Whether the connection is still there.
    pub fn is_open(&self) -> bool {
        !self.books.ended.load(Ordering::Relaxed)
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        // The connection is gone: nothing more is queued for it, and
        // whoever holds an outbox sees it closed.
        self.books.ended.store(true, Ordering::Relaxed);
    }
}

impl Inbox {
    /// Whether anything waits: something to write, the end, or no outbox
    /// left. Registers the task to be woken otherwise.
    pub fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut q = self.books.queue();
        if !q.items.is_empty()
            || self.books.stopped.load(Ordering::Acquire)
            || self.books.senders.load(Ordering::Acquire) == 0
        {
            return Poll::Ready(());
        }
        match &mut q.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Waits until [`Inbox::poll_ready`].
    pub async fn ready(&mut self) {
        poll_fn(|cx| self.poll_ready(cx)).await;
    }

    /// Whether there is something to do: frames queued, or the end to
    /// send.
    pub fn is_waiting(&self) -> bool {
        self.is_ended() || !self.books.queue().items.is_empty()
    }

    /// Moves up to `max` queued frames into `batch`, stopping after a
    /// close; none once the connection is ended.
    pub fn take(&mut self, max: usize, batch: &mut Vec<Outgoing>) {
        if self.is_ended() {
            return;
        }
        let mut q = self.books.queue();
        while batch.len() < max {
            let Some(item) = q.items.pop_front() else {
                break;
            };
            if let Outgoing::Text(t) = &item {
                q.bytes -= t.len();
            }
            let last = matches!(item, Outgoing::Close(..));
            batch.push(item);
            if last {
                break;
            }
        }
        if q.items.is_empty() && q.items.capacity() > KEPT_PLACES {
            q.items = VecDeque::new();
        }
    }

    /// The next frame; `None` once the connection is ended or every
    /// outbox is gone and the queue is empty.
    pub async fn recv(&mut self) -> Option<Outgoing> {
        loop {
            self.ready().await;
            if self.is_ended() {
                return None;
            }
            if let Some(item) = self.try_recv() {
                return Some(item);
            }
            if self.books.senders.load(Ordering::Acquire) == 0 {
                return None;
            }
        }
    }

    /// The next frame if one is queued.
    pub fn try_recv(&mut self) -> Option<Outgoing> {
        let mut batch = Vec::with_capacity(1);
        self.take(1, &mut batch);
        batch.pop()
    }

    /// Why the connection was ended, if it was.
    pub fn ending(&self) -> Option<Ending> {
        self.books.ending.get().copied()
    }

    /// Ends the connection from its own side (see [`Outbox::end`]).
    pub fn end(&self, code: u16, why: ErrorCode) {
        self.books.end(code, why);
    }

    /// Whether the connection was ended (what is queued is to be dropped).
    pub fn is_ended(&self) -> bool {
        self.books.stopped.load(Ordering::Acquire)
    }

    /// Bytes queued and not yet written.
    pub fn queued_bytes(&self) -> usize {
        self.books.queue().bytes
    }

    /// Places the queue holds allocated (for tests of idle memory).
    pub fn queue_capacity(&self) -> usize {
        self.books.queue().items.capacity()
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
    fn a_connection_whose_task_is_gone_is_not_open() {
        let (out, inbox) = Outbox::new(ConnId::next());
        assert!(out.is_open());
        drop(inbox);
        assert!(!out.is_open());
        assert!(!out.send_text(Utf8Bytes::from_static("{}")));
    }

    #[tokio::test]
    async fn the_queue_drains_in_order_and_ends_when_every_outbox_is_gone() {
        let (out, mut inbox) = Outbox::new(ConnId::next());
        let other = out.clone();
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(item) = inbox.recv().await {
                if let Outgoing::Text(t) = item {
                    got.push(t.as_str().to_owned());
                }
            }
            (got, inbox.queue_capacity())
        });
        for i in 0..100 {
            assert!(out.send_text(Utf8Bytes::from(format!("{i}"))));
            if i % 7 == 0 {
                tokio::task::yield_now().await;
            }
        }
        drop(out);
        assert!(other.send_text(Utf8Bytes::from_static("last")));
        drop(other);
        let (got, capacity) = reader.await.unwrap_or_else(|e| panic!("{e}"));
        let mut want: Vec<String> = (0..100).map(|i| format!("{i}")).collect();
        want.push("last".into());
        assert_eq!(got, want);
        assert!(capacity <= KEPT_PLACES, "a drained queue keeps little");
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
