//! Tournaments from a test: players who join every game a tournament
//! seats them in and play it with legal moves, and reading the event's
//! page.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::Duration;

use parlor_protocol::{RoomStatus, ServerMsg, TournamentInfo, TournamentStatus};
use serde_json::json;

use crate::http::request;
use crate::{Raw, Received};

/// How long a test waits for an event to finish.
pub const EVENT_PATIENCE: Duration = Duration::from_secs(120);

/// Plays every tournament game on `c` until stopped (the task aborted):
/// joins each seat the event announces and plays the first legal move
/// whenever it is the seat's turn.
pub async fn play_games(mut c: Raw) {
    let mut done: HashSet<String> = HashSet::new();
    let mut played: HashMap<String, u64> = HashMap::new();
    loop {
        let Received::Msg(msg) = c.next().await else {
            panic!("the connection closed mid-event");
        };
        match msg {
            ServerMsg::TournamentGame(t) => {
                c.send_json(json!({"type": "join", "room": t.room, "seat": t.seat}))
                    .await;
            }
            ServerMsg::Update(u) => {
                let room = u.room.to_string();
                if u.status == RoomStatus::Finished || done.contains(&room) {
                    done.insert(room);
                    continue;
                }
                let Some(me) = u.you.filter(|s| u.to_act.contains(*s)) else {
                    continue;
                };
                if played.get(&room).is_some_and(|&s| s >= u.seq) {
                    continue;
                }
                if let Some(mv) = u.legal.as_ref().and_then(|l| l.first()).cloned() {
                    played.insert(room, u.seq);
                    c.play(&u.room, me.0, u.seq, mv).await;
                }
            }
            ServerMsg::Error { code, message, .. } => {
                panic!("a tournament player was refused: {code} {message}")
            }
            _ => {}
        }
    }
}

/// The event's page.
pub async fn info(addr: SocketAddr, id: &str) -> TournamentInfo {
    let got = request(addr, "GET", &format!("/api/tournaments/{id}"), &[], None).await;
    assert_eq!(got.status, 200, "{got:?}");
    serde_json::from_value(got.body).unwrap_or_else(|e| panic!("{e}"))
}

/// Waits for the event to finish; its final page.
pub async fn finished(addr: SocketAddr, id: &str) -> TournamentInfo {
    let deadline = tokio::time::Instant::now() + EVENT_PATIENCE;
    loop {
        let page = info(addr, id).await;
        if page.status == TournamentStatus::Finished {
            return page;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the event did not finish: {page:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
