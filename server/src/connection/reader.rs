//! The reading half of a connection: frames in, flow control, rate limits.

use futures_util::stream::SplitStream;
use futures_util::StreamExt;
use parlor_protocol::{decode_client, ClientMsg, ErrorCode, ServerMsg};
use tokio::time::{interval_at, sleep_until, Instant};
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::Session;
use crate::http::Transport;
use crate::limits::REPLY_HEADROOM;
use crate::outbox::Outgoing;
use crate::rate::Verdict;

/// The socket's receiving half.
pub(super) type Source = SplitStream<WebSocketStream<Transport>>;

/// Why reading stopped.
pub(super) enum Ended {
    /// The connection is over; `flooded`: closed for flooding.
    Over { flooded: bool },
    /// The room it just entered runs on this other shard: it is to move
    /// there.
    Move(usize),
}

/// Whether to keep reading.
pub(super) enum Flow {
    Go,
    Close(u16, ErrorCode),
}

/// The next summons, for a session that listens for them; never, for
/// one that does not.
async fn next_summons(
    queue: &mut Option<tokio::sync::mpsc::Receiver<crate::directory::Summons>>,
) -> crate::directory::Summons {
    match queue {
        Some(rx) => match rx.recv().await {
            Some(s) => s,
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

impl Session {
    /// Reads until the connection ends, or until it is to move to the
    /// shard of the room it just entered.
    pub(super) async fn read_loop(&mut self, source: &mut Source, hello_by: Instant) -> Ended {
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
        let ended = self.out.closing();
        let mut ended = std::pin::pin!(ended.cancelled());
        loop {
            // In a fixed order (no random draw per message); the timers
            // come before the socket so a busy client cannot hold them off.
            let flow = tokio::select! {
                biased;
                _ = &mut shutting_down => {
                    self.out.send(&ServerMsg::error(ErrorCode::ServerShuttingDown, "the server is shutting down; resume with your token when it is back"));
                    Flow::Close(1001, ErrorCode::ServerShuttingDown)
                }
                _ = &mut ended => {
                    tracing::info!(conn = self.conn.0, ending = ?self.out.ending(), "connection ended by the server");
                    return Ended::Over { flooded: false };
                }
                _ = sleep_until(hello_by), if !self.greeted => {
                    self.out.send(&ServerMsg::error(ErrorCode::RequestHelloFirst, format!("no hello within {} ms", limits.hello_timeout.as_millis())));
                    Flow::Close(1008, ErrorCode::RequestHelloFirst)
                }
                summons = next_summons(&mut self.summons) => {
                    self.on_summons(summons);
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
                frame = source.next() => {
                    last_heard = Instant::now();
                    // Read no further until the answers fit: a client that
                    // pipelines faster than it reads is slowed down (TCP
                    // pushes back on it), one that never reads is closed.
                    let held = Instant::now();
                    if !self.out.wait_room(REPLY_HEADROOM, limits.outbox_stall_timeout).await {
                        return Ended::Over { flooded: false };
                    }
                    // While the server did not read, the client's messages
                    // queued up in the socket: they do not count as a flood.
                    let held = held.elapsed();
                    if !held.is_zero() {
                        self.limiter.excuse(held, Instant::now());
                    }
                    match frame {
                        None | Some(Ok(Message::Close(_))) => return Ended::Over { flooded: false },
                        Some(Ok(Message::Text(text))) => self.on_text(text.as_str()).await,
                        Some(Ok(Message::Binary(_))) => match self.throttle() {
                            Some(flow) => flow,
                            None => {
                                self.out.send(&ServerMsg::error(ErrorCode::RequestBinary, "binary frames are not part of the protocol; send JSON text frames"));
                                Flow::Go
                            }
                        },
                        Some(Ok(_)) => Flow::Go,
                        Some(Err(WsError::Capacity(CapacityError::MessageTooLong { size, max_size }))) => {
                            self.out.send(&ServerMsg::error(ErrorCode::RequestTooLarge, format!("a frame of {size} bytes is over the limit of {max_size} bytes")));
                            Flow::Close(1009, ErrorCode::RequestTooLarge)
                        }
                        Some(Err(WsError::Utf8(e))) => {
                            self.out.send(&ServerMsg::error(ErrorCode::RequestMalformed, format!("a text frame must be UTF-8: {e}")));
                            Flow::Close(1007, ErrorCode::RequestMalformed)
                        }
                        Some(Err(WsError::Protocol(e))) => {
                            self.out.send(&ServerMsg::error(ErrorCode::RequestMalformed, format!("WebSocket protocol error: {e}")));
                            Flow::Close(1002, ErrorCode::RequestMalformed)
                        }
                        Some(Err(e)) => {
                            tracing::debug!(conn = self.conn.0, error = %e, "connection error");
                            return Ended::Over { flooded: false };
                        }
                    }
                }
            };
            if let Flow::Close(code, why) = flow {
                self.out.push(Outgoing::Close(code, why.as_str().into()));
                return Ended::Over {
                    flooded: why == ErrorCode::RequestRateLimited,
                };
            }
            if let Some(shard) = self.move_to.take() {
                return Ended::Move(shard);
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

    async fn on_text(&mut self, text: &str) -> Flow {
        if let Some(flow) = self.throttle() {
            return flow;
        }
        let msg = match decode_client(text) {
            Ok(msg) => msg,
            Err(f) => {
                self.out.send(&ServerMsg::error(f.code, f.message));
                return Flow::Go;
            }
        };
        if !self.greeted && !matches!(msg, ClientMsg::Hello { .. }) {
            self.out.send(&ServerMsg::error(
                ErrorCode::RequestHelloFirst,
                "send hello first",
            ));
            return Flow::Go;
        }
        if let ClientMsg::Hello {
            version,
            name,
            token,
        } = msg
        {
            return self.hello(version, name, token).await.unwrap_or(Flow::Go);
        }
        self.on_msg(msg).await;
        Flow::Go
    }
}
