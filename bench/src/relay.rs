//! The baseline: a bare WebSocket room relay, built the usual way on
//! tokio-tungstenite (a reader per connection, a writer task fed by a
//! bounded queue, flushed when the queue runs dry; Parlor's connections
//! were built this way until they became one task over its own buffers),
//! the same message decoding, but no rules, no storage and one frame for
//! everyone instead of per-seat views. Parlor's CPU per move divided by
//! this relay's is what the rules, the durable log and hidden-information
//! filtering cost.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::{SinkExt, StreamExt};
use parlor_protocol::{decode_client, ClientMsg};
use parlor_server::limits::OUTBOX_CAPACITY;
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

type Tx = mpsc::Sender<Utf8Bytes>;

#[derive(Debug, Default)]
struct Room {
    seats: Vec<Option<Tx>>,
    watchers: Vec<Tx>,
    seq: u64,
    over: bool,
}

#[derive(Debug, Default)]
struct Relay {
    rooms: Mutex<HashMap<String, Room>>,
    next_id: Mutex<u64>,
    game_len: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Serves until killed.
pub async fn run(port_file: &Path, game_len: u64) -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let tmp = port_file.with_extension("tmp");
    std::fs::write(&tmp, listener.local_addr()?.to_string())?;
    std::fs::rename(&tmp, port_file)?;
    let relay = Arc::new(Relay {
        game_len: game_len.max(1),
        ..Relay::default()
    });
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(serve(stream, Arc::clone(&relay)));
    }
}

fn update(room_id: &str, room: &Room, mv: &serde_json::Value) -> Utf8Bytes {
    let full = room.seats.iter().all(Option::is_some);
    let status = match (room.over, full) {
        (true, _) => "finished",
        (false, true) => "playing",
        (false, false) => "waiting",
    };
    let to_act: Vec<u64> = if status == "playing" {
        vec![room.seq % room.seats.len().max(1) as u64]
    } else {
        vec![]
    };
    let mut msg = json!({
        "type": "update", "room": room_id, "game": "nimrod", "seq": room.seq,
        "status": status, "seats": [], "to_act": to_act, "view": mv,
    });
    if room.over {
        msg["outcome"] = json!({"draw": true});
    }
    Utf8Bytes::from(msg.to_string())
}

fn broadcast(room: &Room, text: &Utf8Bytes) {
    for tx in room.seats.iter().flatten().chain(room.watchers.iter()) {
        let _ = tx.try_send(text.clone());
    }
}

async fn serve(stream: TcpStream, relay: Arc<Relay>) {
    let _ = stream.set_nodelay(true);
    let Ok(ws) =
        tokio_tungstenite::accept_async_with_config(stream, Some(crate::conn::ws_config())).await
    else {
        return;
    };
    let (mut sink, mut source) = ws.split();
    let (tx, mut rx) = mpsc::channel::<Utf8Bytes>(OUTBOX_CAPACITY);
    let writer = tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            let mut next = Some(first);
            while let Some(t) = next.take() {
                if sink.feed(Message::Text(t)).await.is_err() {
                    return;
                }
                next = rx.try_recv().ok();
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
    });
    let say = |v: serde_json::Value| {
        let _ = tx.try_send(Utf8Bytes::from(v.to_string()));
    };
    while let Some(Ok(frame)) = source.next().await {
        let Message::Text(text) = frame else { continue };
        let Ok(msg) = decode_client(text.as_str()) else {
            say(json!({"type": "error", "code": "request/malformed", "message": "bad"}));
            continue;
        };
        match msg {
            ClientMsg::Hello { .. } => say(json!({
                "type": "welcome", "version": 1, "session": uuid::Uuid::nil(),
                "token": uuid::Uuid::nil(), "games": ["nimrod"],
            })),
            ClientMsg::CreateRoom { seats, .. } => {
                let id = {
                    let mut n = lock(&relay.next_id);
                    *n += 1;
                    format!("r{n}")
                };
                let room = Room {
                    seats: vec![None; usize::from(seats.unwrap_or(2).clamp(1, 8))],
                    ..Room::default()
                };
                lock(&relay.rooms).insert(id.clone(), room);
                say(json!({"type": "room_created", "room": id, "game": "nimrod", "seats": 2}));
            }
            ClientMsg::Join { room, seat, .. } => {
                let mut rooms = lock(&relay.rooms);
                let Some(r) = rooms.get_mut(room.as_str()) else {
                    continue;
                };
                let i = seat.map_or(0, |s| s.index());
                if let Some(slot) = r.seats.get_mut(i) {
                    *slot = Some(tx.clone());
                    say(json!({"type": "joined", "room": room, "seat": i}));
                    broadcast(r, &update(room.as_str(), r, &serde_json::Value::Null));
                }
            }
            ClientMsg::Spectate { room } => {
                let mut rooms = lock(&relay.rooms);
                let Some(r) = rooms.get_mut(room.as_str()) else {
                    continue;
                };
                r.watchers.push(tx.clone());
                say(json!({"type": "spectating", "room": room}));
                let _ = tx.try_send(update(room.as_str(), r, &serde_json::Value::Null));
            }
            ClientMsg::Play { room, seq, mv, .. } => {
                let mut rooms = lock(&relay.rooms);
                let Some(r) = rooms.get_mut(room.as_str()) else {
                    continue;
                };
                if seq != r.seq || r.over {
                    say(json!({"type": "error", "code": "action/stale_seq", "message": "stale"}));
                    continue;
                }
                r.seq += 1;
                r.over = r.seq >= relay.game_len;
                let text = update(room.as_str(), r, &mv);
                broadcast(r, &text);
                if r.over {
                    rooms.remove(room.as_str());
                }
            }
            ClientMsg::Ping { id } => say(json!({"type": "pong", "id": id})),
            _ => {}
        }
    }
    writer.abort();
}
