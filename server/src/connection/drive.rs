//! The connection's task: write what is queued, then wait for the next
//! thing to do (a request, something queued, a timer) and do it.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use parlor_protocol::{decode_client, ClientMsg, ErrorCode, ServerMsg};
use tokio::time::{interval_at, sleep_until, timeout, Instant};
use tokio_tungstenite::tungstenite::Bytes;

use super::{Session, MAX_MESSAGE};
use crate::limits::{Limits, CLOSE_LINGER};
use crate::outbox::{Inbox, Outgoing, CLOSE_SLOW};
use crate::rate::Verdict;
use crate::websocket::{Incoming, Kind, OutFrame, ReadError, Refusal, WebSocket};

/// Most queued frames written at once (one vectored write).
const BATCH_FRAMES: usize = 32;

/// Why the connection's loop stopped.
pub(super) enum Ended {
    /// The connection is over; `flooded`: closed for flooding.
    Over { flooded: bool, close: Close },
    /// The room it just entered runs on this other shard: it is to move
    /// there.
    Move(usize),
}

/// Where the closing handshake stands when the loop stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Close {
    /// The server's close frame went out: the client's answer is awaited.
    Sent,
    /// The client's close frame came (with its code): it is answered.
    Received(Option<u16>),
    /// The socket is gone or stuck: nothing more can be sent.
    Gone,
}

/// Whether to keep reading.
pub(super) enum Flow {
    Go,
    Close(u16, ErrorCode),
}

/// A text message's handling: done, or a request to wait for.
enum Step<'a> {
    Done(Flow),
    Wait(Pin<Box<dyn Future<Output = Flow> + Send + 'a>>),
}

/// How writing the queue went.
enum Wrote {
    /// All of it; the connection goes on.
    All,
    /// Up to and with a close frame.
    Closed,
    /// The socket failed, or took nothing for the stall limit.
    Failed,
}

/// Writes everything queued, a batch at a time. A batch taking longer
/// than the stall limit means the client does not read: the connection
/// is ended as too slow, what is queued after that batch is dropped, and
/// if the client reads the batch within the drain time after all, a
/// close frame tells it why.
async fn write_queued(ws: &mut WebSocket, inbox: &mut Inbox, limits: Limits) -> Wrote {
    let mut batch = Vec::new();
    loop {
        inbox.take(BATCH_FRAMES, &mut batch);
        if batch.is_empty() {
            if !inbox.is_ended() {
                return Wrote::All;
            }
            // Ended by the server (too slow, taken over): what was queued
            // is dropped, and the close frame says why.
            return write_ending(ws, inbox, limits.writer_drain_timeout).await;
        }
        let mut closed = false;
        let frames: Vec<OutFrame> = batch
            .drain(..)
            .map(|item| match item {
                Outgoing::Text(text) => OutFrame::new(Kind::Text, Bytes::from(text)),
                Outgoing::Ping => OutFrame::new(Kind::Ping, Bytes::new()),
                Outgoing::Close(code, reason) => {
                    closed = true;
                    OutFrame::close(code, &reason)
                }
            })
            .collect();
        let sent = {
            let mut sending = std::pin::pin!(ws.send(&frames));
            match timeout(limits.outbox_stall_timeout, &mut sending).await {
                Ok(sent) => Some(sent),
                Err(_) => {
                    tracing::info!(
                        "the client read nothing for the stall limit: ended as too slow"
                    );
                    inbox.end(CLOSE_SLOW, ErrorCode::ConnectionSlow);
                    match timeout(limits.writer_drain_timeout, sending).await {
                        Ok(Ok(())) => None,
                        _ => return Wrote::Failed,
                    }
                }
            }
        };
        let Some(sent) = sent else {
            // The batch went out late: the close frame follows it.
            return write_ending(ws, inbox, limits.writer_drain_timeout).await;
        };
        match sent {
            Ok(()) if closed => return Wrote::Closed,
            Ok(()) => {}
            Err(e) => {
                tracing::debug!(error = %e, "a write failed");
                return Wrote::Failed;
            }
        }
    }
}

/// The close frame of a connection the server ended, saying why.
async fn write_ending(ws: &mut WebSocket, inbox: &Inbox, limit: Duration) -> Wrote {
    let ending = inbox.ending();
    let code = ending.map_or(CLOSE_SLOW, |e| e.code);
    let why = ending.map_or(ErrorCode::ConnectionSlow, |e| e.why);
    match timeout(limit, ws.send(&[OutFrame::close(code, why.as_str())])).await {
        Ok(Ok(())) => Wrote::Closed,
        _ => Wrote::Failed,
    }
}

/// The end of a connection, after it left its rooms: the closing
/// handshake finished as far as the client lets it.
pub(super) async fn finish(ws: &mut WebSocket, close: Close, limits: Limits) {
    match close {
        Close::Gone => {}
        Close::Received(code) => {
            // Answered with the client's code, as RFC 6455 (5.5.1) asks.
            let reply = match code {
                Some(code) => OutFrame::close(code, ""),
                None => OutFrame::new(Kind::Close, Bytes::new()),
            };
            let _ = timeout(limits.writer_drain_timeout, async {
                ws.send(&[reply]).await?;
                ws.shutdown().await
            })
            .await;
        }
        Close::Sent => linger(ws).await,
    }
}

/// Reads, and drops, what the client still sends for a moment after the
/// server's close frame: closing a socket with unread input resets it,
/// and the reset can destroy the close frame just sent before the client
/// reads it. Ends at once if the client already closed, or when its close
/// reply comes.
async fn linger(ws: &mut WebSocket) {
    let _ = timeout(CLOSE_LINGER, async {
        loop {
            match ws.next(MAX_MESSAGE).await {
                Ok(Incoming::Close(_)) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
}

impl Session {
    /// Runs the connection until it ends, or until it is to move to the
    /// shard of the room it just entered.
    pub(super) async fn drive(
        &mut self,
        ws: &mut WebSocket,
        inbox: &mut Inbox,
        hello_by: Instant,
    ) -> Ended {
        let limits = self.shared.limits;
        let mut keepalive = interval_at(
            Instant::now() + limits.keepalive_interval,
            limits.keepalive_interval,
        );
        let mut last_heard = Instant::now();
        // Made once: a fresh `cancelled()` per message registered and
        // unregistered a waiter on each token every time.
        let shutdown = self.shared.shutdown.clone();
        let mut shutting_down = std::pin::pin!(shutdown.cancelled());
        let mut flooded = false;
        loop {
            // Everything queued goes out before the next request is read:
            // a client that pipelines faster than it reads is read no
            // further (TCP pushes back on it), one that never reads is
            // closed after the stall limit.
            // Boxed while it runs (it holds a batch and its timers), so
            // that an idle connection's task does not carry its state.
            let wrote = if inbox.is_waiting() {
                Box::pin(write_queued(ws, inbox, limits)).await
            } else {
                Wrote::All
            };
            match wrote {
                Wrote::All => {}
                Wrote::Closed => {
                    return Ended::Over {
                        flooded,
                        close: Close::Sent,
                    }
                }
                Wrote::Failed => {
                    return Ended::Over {
                        flooded,
                        close: Close::Gone,
                    }
                }
            }
            if let Some(shard) = self.rooms.take_move() {
                return Ended::Move(shard);
            }
            // In a fixed order (no random draw per message); the queue and
            // the timers come before the socket so a busy client cannot
            // hold them off.
            let flow = tokio::select! {
                biased;
                _ = &mut shutting_down => {
                    self.out.send(&ServerMsg::error(ErrorCode::ServerShuttingDown, "the server is shutting down; resume with your token when it is back"));
                    Flow::Close(1001, ErrorCode::ServerShuttingDown)
                }
                () = inbox.ready() => continue,
                _ = sleep_until(hello_by), if !self.greeted => {
                    self.out.send(&ServerMsg::error(ErrorCode::RequestHelloFirst, format!("no hello within {} ms", limits.hello_timeout.as_millis())));
                    Flow::Close(1008, ErrorCode::RequestHelloFirst)
                }
                summons = self.matchmaking.next() => {
                    self.on_summons(*summons);
                    Flow::Go
                }
                _ = keepalive.tick() => {
                    if last_heard.elapsed() >= limits.idle_timeout {
                        self.out.send(&ServerMsg::error(ErrorCode::ConnectionIdle, format!("nothing received for {} ms", limits.idle_timeout.as_millis())));
                        Flow::Close(1000, ErrorCode::ConnectionIdle)
                    } else {
                        self.out.push(Outgoing::Ping);
                        Flow::Go
                    }
                }
                msg = ws.next(MAX_MESSAGE) => {
                    last_heard = Instant::now();
                    match msg {
                        Ok(Incoming::Text(text)) => match self.on_text(&text) {
                            Step::Done(flow) => flow,
                            Step::Wait(answer) => answer.await,
                        },
                        Ok(Incoming::Binary) => match self.throttle() {
                            Some(flow) => flow,
                            None => {
                                self.out.send(&ServerMsg::error(ErrorCode::RequestBinary, "binary frames are not part of the protocol; send JSON text frames"));
                                Flow::Go
                            }
                        },
                        Ok(Incoming::Ping(payload)) => {
                            let pong = [OutFrame::new(Kind::Pong, Bytes::from(payload))];
                            let sent = Box::pin(timeout(limits.outbox_stall_timeout, ws.send(&pong))).await;
                            if !matches!(sent, Ok(Ok(()))) {
                                return Ended::Over { flooded, close: Close::Gone };
                            }
                            Flow::Go
                        }
                        Ok(Incoming::Pong) => Flow::Go,
                        Ok(Incoming::Close(code)) => {
                            return Ended::Over { flooded, close: Close::Received(code) };
                        }
                        Err(ReadError::Refused(Refusal::TooLarge { size, max })) => {
                            self.out.send(&ServerMsg::error(ErrorCode::RequestTooLarge, format!("a frame of {size} bytes is over the limit of {max} bytes")));
                            Flow::Close(1009, ErrorCode::RequestTooLarge)
                        }
                        Err(ReadError::Refused(why)) => {
                            let message = match why {
                                Refusal::NotUtf8 => why.to_string(),
                                _ => format!("WebSocket protocol error: {why}"),
                            };
                            self.out.send(&ServerMsg::error(ErrorCode::RequestMalformed, message));
                            Flow::Close(why.close_code(), ErrorCode::RequestMalformed)
                        }
                        Err(e) => {
                            tracing::debug!(conn = self.conn.0, error = %e, "connection error");
                            return Ended::Over { flooded, close: Close::Gone };
                        }
                    }
                }
            };
            if let Flow::Close(code, why) = flow {
                // Written at the top of the loop, after what is queued.
                flooded |= why == ErrorCode::RequestRateLimited;
                self.out.close(code, why);
            }
        }
    }

    /// Counts a message against the rate limit; `Some` when it must be
    /// dropped (and maybe the connection closed).
    fn throttle(&mut self) -> Option<Flow> {
        match self.limiter.check(Instant::now()) {
            Verdict::Allow => None,
            Verdict::Refuse => {
                if self.limiter.first_refusal() {
                    self.out.send(&ServerMsg::error(
                        ErrorCode::RequestRateLimited,
                        "too many messages; they are dropped (one notice per second)",
                    ));
                }
                Some(Flow::Go)
            }
            Verdict::Disconnect => {
                self.out.send(&ServerMsg::error(
                    ErrorCode::RequestRateLimited,
                    "flooding: the connection is closed",
                ));
                Some(Flow::Close(1008, ErrorCode::RequestRateLimited))
            }
        }
    }

    /// A text message: handled at once, or the request's future to
    /// await (boxed, so that an idle connection's task is no larger than
    /// its loop: a request's state is kept only while it runs).
    fn on_text(&mut self, text: &str) -> Step<'_> {
        if let Some(flow) = self.throttle() {
            return Step::Done(flow);
        }
        let msg = match decode_client(text) {
            Ok(msg) => msg,
            Err(f) => {
                self.out.send(&ServerMsg::error(f.code, f.message));
                return Step::Done(Flow::Go);
            }
        };
        if !self.greeted && !matches!(msg, ClientMsg::Hello { .. }) {
            self.out.send(&ServerMsg::error(
                ErrorCode::RequestHelloFirst,
                "send hello first",
            ));
            return Step::Done(Flow::Go);
        }
        match msg {
            // The move's path, with nothing to wait for here (the room
            // answers through the outbox): no allocation for it.
            ClientMsg::Play {
                room,
                seat,
                seq,
                mv,
            } => {
                let req = crate::room::RoomRequest::Play { seat, seq, mv };
                self.forward(room, req, false);
                Step::Done(Flow::Go)
            }
            ClientMsg::Hello {
                version,
                name,
                token,
            } => Step::Wait(Box::pin(async move {
                self.hello(version, name, token).await.unwrap_or(Flow::Go)
            })),
            msg => Step::Wait(Box::pin(async move {
                self.on_msg(msg).await;
                Flow::Go
            })),
        }
    }
}
