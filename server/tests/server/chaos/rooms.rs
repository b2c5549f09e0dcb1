//! The rooms played through the faults: made on random nodes, played by
//! two players with spectators, or by built-in bots alone, one after
//! another until the faults are over.

use std::sync::Arc;
use std::time::Duration;

use super::players::{closed_why, on_error, player, Next};
use super::shared::{connect, lock, Shared};
use super::{PILES, SILENCE};
use crate::common::live::{get_log, recv_within, send, Ws};
use parlor_games::{GameKind, Viewer};
use parlor_protocol::{ErrorCode, RoomStatus, ServerMsg};
use rand::Rng;
use serde_json::{json, Value};

/// Whether `room`'s match is over, by its log.
pub(crate) async fn finished_log(ws: &mut Ws, room: &str) -> bool {
    log_says_over(ws, room).await == Some(true)
}

/// Whether `room`'s log says its match is over; `None` if the log could
/// not be read now (the database restarting, the connection lost).
pub(crate) async fn log_says_over(ws: &mut Ws, room: &str) -> Option<bool> {
    match get_log(ws, room).await {
        Ok(Some(l)) => Some(l.outcome.is_some()),
        Ok(None) => Some(false),
        Err(_) => None,
    }
}

/// A spectator of `room`, until its match is over.
pub(crate) async fn spectator(sh: Arc<Shared>, room: String) {
    // The highest seq shown: a lower one later is a stale update.
    let mut highest = 0;
    loop {
        let (mut ws, _, node) = connect(&sh).await;
        if send(&mut ws, json!({"type": "spectate", "room": room}))
            .await
            .is_err()
        {
            continue;
        }
        let why = loop {
            let msg = match recv_within(&mut ws, SILENCE).await {
                Ok(m) => m,
                Err(e) if e == "timeout" => {
                    sh.problem(format!(
                        "room {room} spectator: nothing heard for {SILENCE:?} on {node}"
                    ));
                    break "silence".to_string();
                }
                Err(e) => break closed_why(&e),
            };
            match msg {
                ServerMsg::Update(u) if u.room.as_str() == room => {
                    sh.record_update(&u, Viewer::Spectator, &node);
                    if u.seq < highest && u.status != RoomStatus::Waiting {
                        sh.problem(format!(
                            "room {room} spectator: shown seq {} on {node} after seq {highest}",
                            u.seq
                        ));
                    }
                    if u.status != RoomStatus::Waiting {
                        highest = highest.max(u.seq);
                    }
                    if u.outcome.is_some() || u.status == RoomStatus::Finished {
                        return;
                    }
                }
                ServerMsg::Error {
                    code: ErrorCode::RoomNotFound,
                    ..
                } => {
                    // Closed: over, if its log says so.
                    if finished_log(&mut ws, &room).await {
                        return;
                    }
                    break "room/not_found".into();
                }
                ServerMsg::Error { code, .. } => match on_error(code) {
                    Next::Reconnect(why) => break why,
                    Next::Ignore | Next::Retry => {}
                },
                _ => {}
            }
        };
        sh.reconnect(&why);
    }
}

/// Makes a room of `game` from a random node: its id.
pub(crate) async fn create(sh: &Shared, game: GameKind) -> (Ws, String) {
    loop {
        let (mut ws, _, _) = connect(sh).await;
        let options = if game == GameKind::Nimrod {
            json!({"piles": PILES})
        } else {
            Value::Null
        };
        if send(
            &mut ws,
            json!({"type": "create_room", "game": game.name(), "options": options}),
        )
        .await
        .is_err()
        {
            continue;
        }
        loop {
            match recv_within(&mut ws, SILENCE).await {
                Ok(ServerMsg::RoomCreated { room, .. }) => return (ws, room.to_string()),
                Ok(ServerMsg::Error { .. }) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }
}

/// Plays rooms of `game` with two players and spectators, one after
/// another, until the faults are over.
pub(crate) async fn played_rooms(sh: Arc<Shared>, game: GameKind) {
    loop {
        let (_, room) = create(&sh, game).await;
        lock(&sh.rooms).entry(room.clone()).or_default().game = Some(game);
        let mut tasks = Vec::new();
        for seat in 0..2 {
            tasks.push(tokio::spawn(player(sh.clone(), room.clone(), game, seat)));
        }
        let watchers = rand::thread_rng().gen_range(1..=2);
        for _ in 0..watchers {
            tasks.push(tokio::spawn(spectator(sh.clone(), room.clone())));
        }
        for t in tasks {
            t.await.unwrap();
        }
        if sh.calm() {
            return;
        }
    }
}

/// Makes rooms of `game` played by two built-in bots (`strategy`) and
/// nobody else, one after another, until the faults are over; watches
/// each end by its log.
pub(crate) async fn bot_rooms(sh: Arc<Shared>, game: GameKind, strategy: &'static str) {
    loop {
        let (mut ws, room) = create(&sh, game).await;
        let mut added = 0;
        for seat in 0..2 {
            let sent = send(
                &mut ws,
                json!({"type": "add_bot", "room": room, "seat": seat, "strategy": strategy}),
            )
            .await;
            if sent.is_err() {
                break;
            }
            loop {
                match recv_within(&mut ws, SILENCE).await {
                    Ok(ServerMsg::BotAdded { .. }) => {
                        added += 1;
                        break;
                    }
                    Ok(ServerMsg::Error { .. }) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        }
        drop(ws);
        if added < 2 {
            // A fault broke the setting up; only its creator could finish
            // it, and that connection is gone.
            *lock(&sh.unstarted) += 1;
        } else {
            {
                let mut rooms = lock(&sh.rooms);
                let r = rooms.entry(room.clone()).or_default();
                r.game = Some(game);
                r.bots_only = true;
            }
            // Nobody is connected: ask for its log now and then.
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let (mut ws, _, _) = connect(&sh).await;
                if let Ok(Some(log)) = get_log(&mut ws, &room).await {
                    if log.outcome.is_some() {
                        break;
                    }
                }
            }
        }
        if sh.calm() {
            return;
        }
    }
}
