//! The bot ladder from a test: its page, and a bot that joins every
//! ladder game it is given and plays it with legal moves.

use std::collections::HashSet;
use std::net::SocketAddr;

use parlor_protocol::{LadderInfo, LadderSeat, RoomId, RoomStatus, ServerMsg};
use serde_json::json;

use crate::http::request;
use crate::{Raw, Received};

/// `game`'s ladder page.
pub async fn page(addr: SocketAddr, game: &str) -> LadderInfo {
    let got = request(addr, "GET", &format!("/api/ladder/{game}"), &[], None).await;
    assert_eq!(got.status, 200, "{got:?}");
    serde_json::from_value(got.body).unwrap_or_else(|e| panic!("{e}"))
}

/// A ladder bot's games: the seats it was given, and the rooms it
/// finished.
#[derive(Debug, Default)]
pub struct Played {
    /// Every `ladder_game` received, in order.
    pub given: Vec<LadderSeat>,
    /// The rooms played to their end.
    pub finished: Vec<RoomId>,
}

/// Plays on `c` until `games` ladder games are finished: joins each seat
/// the ladder announces and plays the first legal move whenever it is the
/// seat's turn.
pub async fn play_ladder(c: &mut Raw, games: usize, played: &mut Played) {
    let mut done: HashSet<RoomId> = played.finished.iter().cloned().collect();
    let mut answered: std::collections::HashMap<RoomId, u64> = Default::default();
    while played.finished.len() < games {
        let Received::Msg(msg) = c.next().await else {
            panic!("the connection closed mid-ladder");
        };
        match msg {
            ServerMsg::LadderGame(seat) => {
                c.send_json(json!({"type": "join", "room": seat.room, "seat": seat.seat}))
                    .await;
                played.given.push(*seat);
            }
            ServerMsg::Update(u) => {
                if done.contains(&u.room) {
                    continue;
                }
                if u.status == RoomStatus::Finished {
                    done.insert(u.room.clone());
                    played.finished.push(u.room.clone());
                    continue;
                }
                let Some(me) = u.you.filter(|s| u.to_act.contains(*s)) else {
                    continue;
                };
                if answered.get(&u.room).is_some_and(|&s| s >= u.seq) {
                    continue;
                }
                if let Some(mv) = u.legal.as_ref().and_then(|l| l.first()).cloned() {
                    answered.insert(u.room.clone(), u.seq);
                    c.play(&u.room, me.0, u.seq, mv).await;
                }
            }
            ServerMsg::Error { code, message, .. } => {
                panic!("a ladder bot was refused: {code} {message}")
            }
            _ => {}
        }
    }
}
