//! One connection: reads requests, answers them, and relays room traffic.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Arc;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use parlor_games::{AnalysisError, Budget, GameKind};
use parlor_protocol::{
    decode_client, negotiate, ClientMsg, ErrorCode, RoomId, ServerMsg, MIN_PROTOCOL_VERSION,
    PROTOCOL_VERSION,
};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::time::{interval_at, sleep_until, Instant};
use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::admission::Admission;
use crate::limits::{
    Limits, MAX_ANALYSIS_POSITIONS, MAX_ANALYSIS_REPLY_BYTES, MAX_ANALYSIS_RESULTS,
    MAX_FRAME_BYTES, MAX_NAME_CHARS, OUTBOX_CAPACITY, OUTBOX_STALL_TIMEOUT, REPLY_HEADROOM,
    WRITER_DRAIN_TIMEOUT,
};
use crate::lobby::{Lobby, NewRoom};
use crate::outbox::{ConnId, Outbox, Outgoing};
use crate::rate::{RateLimiter, Verdict};
use crate::room::{Member, RoomCmd};

type Sink = SplitSink<WebSocketStream<TcpStream>, Message>;
type Source = SplitStream<WebSocketStream<TcpStream>>;

/// Writes queued frames, flushing once whenever the queue runs dry so that
/// a burst of updates costs one syscall.
async fn write_loop(mut sink: Sink, mut rx: mpsc::Receiver<Outgoing>) {
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(item) = next.take() {
            let sent = match item {
                Outgoing::Text(t) => sink.feed(Message::Text(t)).await,
                Outgoing::Ping => sink.feed(Message::Ping(Default::default())).await,
                Outgoing::Close(code, reason) => {
                    let frame = CloseFrame {
                        code: CloseCode::from(code),
                        reason: reason.into(),
                    };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    return;
                }
            };
            if sent.is_err() {
                return;
            }
            next = rx.try_recv().ok();
        }
        if sink.flush().await.is_err() {
            return;
        }
    }
    let _ = sink.close().await;
}

/// What every connection of a server shares.
#[derive(Debug)]
pub struct Shared {
    /// The rooms.
    pub lobby: Arc<Lobby>,
    /// Permits for analyses running at once.
    pub analyses: Arc<Semaphore>,
    /// Connection admission by address (told of flooders).
    pub admission: Admission,
    /// The server's shutdown signal.
    pub shutdown: CancellationToken,
    /// Limits and timeouts.
    pub limits: Limits,
}

/// Serves one accepted WebSocket connection from `peer` until it closes.
/// `permit` is `None` when the server is at its connection limit: the
/// client is told so and the connection closed.
pub async fn serve(
    ws: WebSocketStream<TcpStream>,
    peer: IpAddr,
    permit: Option<OwnedSemaphorePermit>,
    shared: Arc<Shared>,
) {
    let (sink, source) = ws.split();
    let (tx, rx) = mpsc::channel(OUTBOX_CAPACITY);
    let slow = CancellationToken::new();
    let conn = ConnId::next();
    let out = Outbox::new(conn, tx, slow.clone());
    let writer = tokio::spawn(write_loop(sink, rx));
    if permit.is_none() {
        out.send(&ServerMsg::error(
            ErrorCode::ServerFull,
            "the server has as many connections as it allows; try again later",
        ));
        out.push(Outgoing::Close(1013, ErrorCode::ServerFull.as_str().into()));
        drop(out);
        drain(writer).await;
        return;
    }
    let mut session = Session {
        conn,
        out,
        token: Uuid::new_v4(),
        name: Arc::from("anonymous"),
        greeted: false,
        rooms: HashSet::new(),
        lobby: Arc::clone(&shared.lobby),
        limiter: RateLimiter::new(Instant::now()),
        analyses: Arc::clone(&shared.analyses),
    };
    let flooded = session
        .read_loop(source, shared.shutdown.clone(), slow, shared.limits)
        .await;
    if flooded {
        tracing::info!(conn = conn.0, %peer, "closed for flooding; the address cools down");
        shared.admission.flooded(peer, Instant::now());
    }
    session.detach_all();
    drop(session);
    drain(writer).await;
    drop(permit);
}

/// Lets the writer send what is queued, then aborts it if the client does
/// not read (its socket buffer is full): the connection is then closed and
/// everything queued for it freed.
async fn drain(mut writer: tokio::task::JoinHandle<()>) {
    if tokio::time::timeout(WRITER_DRAIN_TIMEOUT, &mut writer)
        .await
        .is_err()
    {
        writer.abort();
        let _ = writer.await;
    }
}

struct Session {
    conn: ConnId,
    out: Outbox,
    token: Uuid,
    name: Arc<str>,
    greeted: bool,
    rooms: HashSet<RoomId>,
    lobby: Arc<Lobby>,
    limiter: RateLimiter,
    analyses: Arc<Semaphore>,
}

/// Whether to keep reading.
enum Flow {
    Go,
    Close(u16, ErrorCode),
}

impl Session {
    /// Reads until the connection ends; true if it was closed for flooding.
    async fn read_loop(
        &mut self,
        mut source: Source,
        shutdown: CancellationToken,
        slow: CancellationToken,
        limits: Limits,
    ) -> bool {
        let hello_deadline = Instant::now() + limits.hello_timeout;
        let mut keepalive = interval_at(
            Instant::now() + limits.keepalive_interval,
            limits.keepalive_interval,
        );
        let mut last_heard = Instant::now();
        // Made once: a fresh `cancelled()` per message registered and
        // unregistered a waiter on each token every time.
        let mut shutting_down = std::pin::pin!(shutdown.cancelled());
        let mut too_slow = std::pin::pin!(slow.cancelled());
        loop {
            // In a fixed order (no random draw per message); the timers
            // come before the socket so a busy client cannot hold them off.
            let flow = tokio::select! {
                biased;
                _ = &mut shutting_down => {
                    self.out.send(&ServerMsg::error(ErrorCode::ServerShuttingDown, "the server is shutting down; resume with your token when it is back"));
                    Flow::Close(1001, ErrorCode::ServerShuttingDown)
                }
                _ = &mut too_slow => {
                    tracing::info!(conn = self.conn.0, "closing a connection that does not read its messages");
                    return false;
                }
                _ = sleep_until(hello_deadline), if !self.greeted => {
                    self.out.send(&ServerMsg::error(ErrorCode::RequestHelloFirst, format!("no hello within {} ms", limits.hello_timeout.as_millis())));
                    Flow::Close(1008, ErrorCode::RequestHelloFirst)
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
                    if !self.out.wait_room(REPLY_HEADROOM, OUTBOX_STALL_TIMEOUT).await {
                        return false;
                    }
                    match frame {
                        None | Some(Ok(Message::Close(_))) => return false,
                        Some(Ok(Message::Text(text))) => self.on_text(text.as_str()).await,
                        Some(Ok(Message::Binary(_))) => {
                            match self.throttle() {
                                Some(flow) => flow,
                                None => {
                                    self.out.send(&ServerMsg::error(ErrorCode::RequestBinary, "binary frames are not part of the protocol; send JSON text frames"));
                                    Flow::Go
                                }
                            }
                        }
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
                            return false;
                        }
                    }
                }
            };
            if let Flow::Close(code, why) = flow {
                self.out.push(Outgoing::Close(code, why.as_str().into()));
                return why == ErrorCode::RequestRateLimited;
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
        self.on_msg(msg).await;
        Flow::Go
    }

    fn member(&self) -> Member {
        Member {
            token: self.token,
            name: Arc::clone(&self.name),
            out: self.out.clone(),
        }
    }

    fn forward(&mut self, room: RoomId, cmd: impl FnOnce(Member) -> RoomCmd, remember: bool) {
        let Some(tx) = self.lobby.room(&room) else {
            self.out.send(&ServerMsg::room_error(
                &room,
                ErrorCode::RoomNotFound,
                format!("no room {room}"),
            ));
            return;
        };
        match tx.try_send(cmd(self.member())) {
            Ok(()) => {
                if remember {
                    self.rooms.insert(room);
                }
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::ServerBusy,
                    "the room is overloaded; try again",
                ));
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::RoomNotFound,
                    format!("room {room} has closed"),
                ));
            }
        }
    }

    async fn on_msg(&mut self, msg: ClientMsg) {
        match msg {
            ClientMsg::Hello { version, name } => self.hello(version, name),
            ClientMsg::Resume { token } => self.resume(token),
            ClientMsg::ListRooms => {
                self.out.send(&ServerMsg::Rooms {
                    rooms: self.lobby.list(),
                });
            }
            ClientMsg::CreateRoom {
                game,
                seats,
                options,
                clock,
                private,
            } => {
                let req = NewRoom {
                    game,
                    seats,
                    options,
                    clock,
                    private,
                    creator: Some(self.token),
                };
                match self.lobby.create(req).await {
                    Ok((room, seats)) => {
                        self.out.send(&ServerMsg::RoomCreated { room, game, seats })
                    }
                    Err((code, message)) => self.out.send(&ServerMsg::error(code, message)),
                };
            }
            ClientMsg::Join { room, seat } => {
                self.forward(room, |who| RoomCmd::Join { who, seat }, true)
            }
            ClientMsg::Spectate { room } => {
                self.forward(room, |who| RoomCmd::Spectate { who }, true)
            }
            ClientMsg::AddBot {
                room,
                seat,
                strategy,
            } => self.forward(
                room,
                |who| RoomCmd::AddBot {
                    who,
                    seat,
                    strategy,
                },
                false,
            ),
            ClientMsg::Play {
                room,
                seat,
                seq,
                mv,
            } => self.forward(room, |who| RoomCmd::Play { who, seat, seq, mv }, false),
            ClientMsg::Leave { room } => self.forward(room, |who| RoomCmd::Leave { who }, false),
            ClientMsg::GetLog { room, predict } => self.get_log(room, predict).await,
            ClientMsg::Analyze { game, tool, input } => self.analyze(game, tool, input),
            ClientMsg::Ping { id } => {
                self.out.send(&ServerMsg::Pong { id });
            }
        }
    }

    fn hello(&mut self, version: u32, name: Option<String>) {
        if self.greeted {
            self.out.send(&ServerMsg::error(
                ErrorCode::RequestHelloTwice,
                "hello was already accepted",
            ));
            return;
        }
        let Some(version) = negotiate(version) else {
            self.out.send(&ServerMsg::error(
                ErrorCode::ProtocolVersion,
                format!("this server speaks protocol versions {MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION}, not {version}"),
            ));
            return;
        };
        self.greeted = true;
        let name: String = name
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_NAME_CHARS)
            .collect();
        let name = name.trim();
        self.name = Arc::from(if name.is_empty() { "anonymous" } else { name });
        self.out.send(&ServerMsg::Welcome {
            version,
            session: Uuid::new_v4(),
            token: self.token,
            games: GameKind::ALL.to_vec(),
        });
    }

    fn resume(&mut self, token: Uuid) {
        if token != self.token && !self.lobby.seats_of(self.token).is_empty() {
            // Switching tokens would strand the seats taken under this one.
            self.out.send(&ServerMsg::error(
                ErrorCode::SessionResumeConflict,
                "this connection already holds seats under its own token; resume on a new connection",
            ));
            return;
        }
        let seats = self.lobby.seats_of(token);
        if seats.is_empty() {
            self.out.send(&ServerMsg::error(
                ErrorCode::SessionUnknownToken,
                "no seat is held under that token",
            ));
            return;
        }
        // This connection now speaks for the token; its old seats move here.
        self.detach_all();
        self.token = token;
        self.out.send(&ServerMsg::Resumed {
            token,
            seats: seats.clone(),
        });
        let mut rooms: Vec<RoomId> = seats.into_iter().map(|s| s.room).collect();
        rooms.dedup();
        for room in rooms {
            self.forward(room, |who| RoomCmd::Resume { who }, true);
        }
    }

    /// Every accepted step is in the store before anyone hears of it, so
    /// the store answers for live rooms and closed ones alike.
    async fn get_log(&mut self, room: RoomId, predict: bool) {
        match self.lobby.store().log(room.clone()).await {
            Ok(Some(log)) if log.outcome.is_some() => {
                let input = predict.then(|| parlor_protocol::rummikub_replay_input(&log));
                self.out.send(&ServerMsg::Log(log));
                match input {
                    None => {}
                    Some(Ok(input)) => self.analyze(GameKind::Rummikub, "replay".into(), input),
                    Some(Err(e)) => {
                        self.out.send(&ServerMsg::room_error(
                            &room,
                            ErrorCode::AnalysisBadInput,
                            e.to_string(),
                        ));
                    }
                }
            }
            Ok(Some(_)) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::RoomNotFinished,
                    "the log is public once the match is over",
                ));
            }
            Ok(None) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::RoomNotFound,
                    format!("no room {room}"),
                ));
            }
            Err(e) => {
                self.out.send(&ServerMsg::room_error(
                    &room,
                    ErrorCode::ServerStorage,
                    e.to_string(),
                ));
            }
        }
    }

    fn analyze(&mut self, game: GameKind, tool: String, input: serde_json::Value) {
        let Ok(permit) = Arc::clone(&self.analyses).try_acquire_owned() else {
            self.out.send(&ServerMsg::error(
                ErrorCode::ServerBusy,
                "the server is running as many analyses as it allows; try again",
            ));
            return;
        };
        let out = self.out.clone();
        tokio::spawn(async move {
            let job = tokio::task::spawn_blocking(move || {
                let mut results = Vec::new();
                let mut bytes = 0;
                let mut truncated = false;
                let budget = Budget::positions(MAX_ANALYSIS_POSITIONS);
                let res = game.analyze(&tool, &input, budget, &mut |doc| {
                    bytes += doc.len();
                    if results.len() >= MAX_ANALYSIS_RESULTS || bytes > MAX_ANALYSIS_REPLY_BYTES {
                        truncated = true;
                        return false;
                    }
                    results.push(serde_json::from_str(&doc).unwrap_or(serde_json::Value::Null));
                    true
                });
                (tool, res, results, truncated)
            });
            let msg = match job.await {
                Ok((_, Ok(()) | Err(AnalysisError::Stopped(_)), results, true)) if results.is_empty() => {
                    ServerMsg::error(
                        ErrorCode::AnalysisTooLarge,
                        format!("the first result alone is over {MAX_ANALYSIS_REPLY_BYTES} bytes; ask for less"),
                    )
                }
                Ok((tool, Ok(()) | Err(AnalysisError::Stopped(_)), results, truncated)) => {
                    ServerMsg::Analysis {
                        game,
                        tool,
                        results,
                        truncated,
                    }
                }
                Ok((_, Err(e @ AnalysisError::TooLarge(_)), _, _)) => {
                    ServerMsg::error(ErrorCode::AnalysisTooLarge, e.to_string())
                }
                Ok((_, Err(e @ AnalysisError::UnknownTool { .. }), _, _)) => {
                    ServerMsg::error(ErrorCode::AnalysisUnknownTool, e.to_string())
                }
                Ok((_, Err(e), _, _)) => {
                    ServerMsg::error(ErrorCode::AnalysisBadInput, e.to_string())
                }
                Err(e) => ServerMsg::error(
                    ErrorCode::ServerInternal,
                    format!("the analysis failed: {e}"),
                ),
            };
            out.send(&msg);
            drop(permit);
        });
    }

    /// Tells every room this connection sat or watched in that it is gone.
    fn detach_all(&mut self) {
        for room in self.rooms.drain() {
            if let Some(tx) = self.lobby.room(&room) {
                let _ = tx.try_send(RoomCmd::Detach {
                    token: self.token,
                    conn: self.conn,
                });
            }
        }
    }
}

/// The WebSocket settings every connection uses (see `limits`).
pub fn ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    use crate::limits::{MAX_WRITE_BUFFER_BYTES, READ_BUFFER_BYTES, WRITE_BUFFER_BYTES};
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .max_write_buffer_size(MAX_WRITE_BUFFER_BYTES)
        .max_message_size(Some(MAX_FRAME_BYTES))
        .max_frame_size(Some(MAX_FRAME_BYTES))
}
