//! Harness for Parlor's end-to-end tests: a real server on 127.0.0.1:0 and
//! raw WebSocket clients that can send anything, well-formed or not.
//!
//! Everything here exists to fail tests, so it panics on the unexpected.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parlor_games::nimrod::{best_move, Piles, View as NimrodView};
use parlor_games::Seat;
use parlor_protocol::{
    decode_server, encode, ClientMsg, ErrorCode, RoomId, ServerMsg, Update, PROTOCOL_VERSION,
};
use parlor_server::{Config, Server};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

/// A safety net so that a broken server fails a test instead of hanging
/// it. Generous: no test depends on anything taking less than this.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Starts a server on a free loopback port with the database at `db`
/// (`None`: in memory).
pub async fn start_server(db: Option<PathBuf>) -> Server {
    let config = Config {
        db,
        ..Config::default()
    };
    Server::start(([127, 0, 0, 1], 0).into(), config)
        .await
        .unwrap_or_else(|e| panic!("server did not start: {e}"))
}

/// What a raw client received instead of the message it waited for.
#[derive(Debug)]
pub enum Received {
    /// A message.
    Msg(ServerMsg),
    /// A close frame (or the end of the stream).
    Closed(Option<CloseFrame>),
}

/// A WebSocket client that speaks the protocol by hand.
#[derive(Debug)]
pub struct Raw {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The token from `welcome`.
    pub token: Uuid,
}

impl Raw {
    /// Connects without saying hello.
    pub async fn connect(url: &str) -> Raw {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
        Raw {
            ws,
            token: Uuid::nil(),
        }
    }

    /// Connects and says hello.
    pub async fn greeted(url: &str, name: &str) -> Raw {
        let mut c = Raw::connect(url).await;
        c.send(&ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            name: Some(name.into()),
        })
        .await;
        c.token = c
            .expect(|m| match m {
                ServerMsg::Welcome { token, .. } => Some(*token),
                _ => None,
            })
            .await;
        c
    }

    /// Sends a message.
    pub async fn send(&mut self, msg: &ClientMsg) {
        self.send_text(&encode(msg)).await;
    }

    /// Sends a JSON value as a text frame.
    pub async fn send_json(&mut self, v: Value) {
        self.send_text(&v.to_string()).await;
    }

    /// Sends any text frame.
    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.to_owned().into()))
            .await
            .unwrap_or_else(|e| panic!("send failed: {e}"));
    }

    /// Sends a raw WebSocket message (binary, oversized...); errors are
    /// returned, since the server may close on it.
    pub async fn send_raw(&mut self, msg: Message) -> Result<(), String> {
        self.ws.send(msg).await.map_err(|e| e.to_string())
    }

    /// The next message or close.
    pub async fn next(&mut self) -> Received {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("nothing received within {PATIENCE:?}"));
            match frame {
                None | Some(Err(_)) => return Received::Closed(None),
                Some(Ok(Message::Close(f))) => return Received::Closed(f),
                Some(Ok(Message::Text(t))) => {
                    let msg = decode_server(t.as_str())
                        .unwrap_or_else(|e| panic!("undecodable {t}: {e}"));
                    return Received::Msg(msg);
                }
                Some(Ok(_)) => {}
            }
        }
    }

    /// Skips messages until `want` accepts one.
    pub async fn expect<T>(&mut self, mut want: impl FnMut(&ServerMsg) -> Option<T>) -> T {
        loop {
            match self.next().await {
                Received::Msg(m) => {
                    if let Some(t) = want(&m) {
                        return t;
                    }
                }
                Received::Closed(f) => panic!("connection closed while waiting: {f:?}"),
            }
        }
    }

    /// Skips messages until an error, which must have `code`; returns it whole.
    pub async fn expect_error(&mut self, code: ErrorCode) -> ServerMsg {
        let got = self
            .expect(|m| matches!(m, ServerMsg::Error { .. }).then(|| m.clone()))
            .await;
        match &got {
            ServerMsg::Error { code: c, .. } if *c == code => got,
            other => panic!("expected {code}, got {other:?}"),
        }
    }

    /// The next update of `room`.
    pub async fn update(&mut self, room: &RoomId) -> Update {
        self.expect(|m| match m {
            ServerMsg::Update(u) if &u.room == room => Some(u.clone()),
            _ => None,
        })
        .await
    }

    /// The next update of `room` at `seq` or later.
    pub async fn update_at(&mut self, room: &RoomId, seq: u64) -> Update {
        loop {
            let u = self.update(room).await;
            if u.seq >= seq {
                return u;
            }
        }
    }

    /// Creates a room and returns its id.
    pub async fn create(&mut self, game: &str, options: Value, clock: Option<Value>) -> RoomId {
        let mut msg = json!({"type": "create_room", "game": game, "options": options});
        if let Some(c) = clock {
            msg["clock"] = c;
        }
        self.send_json(msg).await;
        self.expect(|m| match m {
            ServerMsg::RoomCreated { room, .. } => Some(room.clone()),
            ServerMsg::Error { .. } => panic!("create failed: {m:?}"),
            _ => None,
        })
        .await
    }

    /// Joins `seat` of `room` and returns the first update.
    pub async fn join(&mut self, room: &RoomId, seat: u8) -> Update {
        self.send(&ClientMsg::Join {
            room: room.clone(),
            seat: Some(Seat(seat)),
        })
        .await;
        self.expect(|m| match m {
            ServerMsg::Joined { .. } => Some(()),
            ServerMsg::Error { .. } => panic!("join failed: {m:?}"),
            _ => None,
        })
        .await;
        self.update(room).await
    }

    /// Plays `mv` for `seat` answering `seq`.
    pub async fn play(&mut self, room: &RoomId, seat: u8, seq: u64, mv: Value) {
        self.send(&ClientMsg::Play {
            room: room.clone(),
            seat: Seat(seat),
            seq,
            mv,
        })
        .await;
    }

    /// Closes the connection cleanly.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// Nimrod piles in an update.
pub fn nimrod_piles(u: &Update) -> Piles {
    serde_json::from_value::<NimrodView>(u.view.clone())
        .unwrap_or_else(|e| panic!("not a nimrod view: {e}"))
        .piles
}

/// A good Nimrod move from `u`'s piles (perfect play, or one rod).
pub fn nimrod_move(u: &Update) -> Value {
    let piles = nimrod_piles(u);
    let mv = best_move(piles).unwrap_or(parlor_games::nimrod::Move::new(0, 1));
    json!(mv)
}

/// Plays a Nimrod match to its end from update `u`, each seat moving
/// through its own client with a good move; returns the final update.
pub async fn play_out_nimrod(players: &mut [Raw], room: &RoomId, mut u: Update) -> Update {
    while u.outcome.is_none() {
        let seat = u
            .to_act
            .iter()
            .next()
            .unwrap_or_else(|| panic!("nobody to act"));
        let p = &mut players[seat.index()];
        p.play(room, seat.0, u.seq, nimrod_move(&u)).await;
        u = p.update_at(room, u.seq + 1).await;
    }
    u
}
