//! Turn clocks, driven by tokio's paused time: no test here sleeps.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use parlor_games::{GameKind, Outcome, Seat, SeatSet};
use parlor_protocol::{decode_server, Clock, LoggedAction, RoomId, RoomStatus, ServerMsg, Update};
use parlor_server::lobby::{Lobby, NewRoom};
use parlor_server::outbox::{ConnId, Outbox, Outgoing};
use parlor_server::room::{Member, RoomCmd};
use parlor_server::store::Store;
use parlor_server::Sync;
use serde_json::json;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

struct Player {
    member: Member,
    rx: mpsc::Receiver<Outgoing>,
}

impl Player {
    fn new(name: &str) -> Player {
        let (tx, rx) = mpsc::channel(256);
        let out = Outbox::new(ConnId::next(), tx, CancellationToken::new());
        Player {
            member: Member {
                token: Uuid::new_v4(),
                name: Arc::from(name),
                out,
            },
            rx,
        }
    }

    async fn next(&mut self) -> ServerMsg {
        loop {
            match self.rx.recv().await {
                Some(Outgoing::Text(t)) => {
                    return decode_server(t.as_str()).unwrap_or_else(|e| panic!("{e:?}"))
                }
                Some(_) => {}
                None => panic!("outbox closed"),
            }
        }
    }

    /// The next update of a started match at `seq` or later.
    async fn update_at(&mut self, seq: u64) -> Update {
        loop {
            if let ServerMsg::Update(u) = self.next().await {
                if u.seq >= seq && u.status != RoomStatus::Waiting {
                    return u;
                }
            }
        }
    }
}

async fn room_with_clock(clock: Clock) -> (Arc<Lobby>, RoomId, Player, Player) {
    let (store, _thread) = Store::open(None, Sync::Normal).unwrap_or_else(|e| panic!("{e}"));
    let lobby = Lobby::new(store, TaskTracker::new(), CancellationToken::new());
    let (room, _) = lobby
        .create(NewRoom {
            game: GameKind::Nimrod,
            seats: None,
            options: json!({"piles": [10, 20]}),
            clock: Some(clock),
            private: false,
            creator: None,
        })
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    let tx = lobby.room(&room).unwrap_or_else(|| panic!("no room"));
    let (a, b) = (Player::new("a"), Player::new("b"));
    for (p, seat) in [(&a, 0), (&b, 1)] {
        tx.send(RoomCmd::Join {
            who: p.member.clone(),
            seat: Some(Seat(seat)),
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    }
    (lobby, room, a, b)
}

#[tokio::test(start_paused = true)]
async fn a_seat_whose_time_runs_out_forfeits_nimrod_having_no_default_move() {
    let (lobby, room, mut a, mut b) = room_with_clock(Clock::PerMove { ms: 30_000 }).await;
    let started = a.update_at(0).await;
    let t0 = Instant::now();
    assert_eq!(started.clocks, Some(vec![30_000, 30_000]));
    // Seat 0 never moves; time advances by itself to its deadline.
    let end = loop {
        let u = b.update_at(0).await;
        if u.outcome.is_some() {
            break u;
        }
    };
    assert!(t0.elapsed() >= Duration::from_secs(30));
    assert_eq!(
        end.outcome,
        Some(Outcome::Win {
            winners: SeatSet::single(Seat(1))
        })
    );
    assert_eq!(end.clocks.map(|c| c[0]), Some(0));
    // The forfeit is in the log.
    let log = lobby
        .store()
        .log(room)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no log"));
    assert_eq!(
        log.moves.last().map(|e| (&e.action, e.seat)),
        Some((&LoggedAction::Forfeit, Seat(0)))
    );
}

#[tokio::test(start_paused = true)]
async fn an_increment_clock_charges_only_thinking_time() {
    let (lobby, room, mut a, mut b) = room_with_clock(Clock::Increment {
        main_ms: 60_000,
        increment_ms: 5_000,
    })
    .await;
    let u = a.update_at(0).await;
    assert_eq!(u.to_act, SeatSet::single(Seat(0)));
    tokio::time::advance(Duration::from_secs(20)).await;
    let tx = lobby.room(&room).unwrap_or_else(|| panic!("no room"));
    tx.send(RoomCmd::Play {
        who: a.member.clone(),
        seat: Seat(0),
        seq: 0,
        mv: json!({"take": [0, 1]}),
    })
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let after = b.update_at(1).await;
    // 60 s - 20 s thinking + 5 s increment; seat 1's clock has only just started.
    assert_eq!(after.clocks, Some(vec![45_000, 60_000]));
    assert!(after.outcome.is_none());
    // Seat 1 now thinks for its whole 60 s and loses on time.
    let end = loop {
        let u = a.update_at(1).await;
        if u.outcome.is_some() {
            break u;
        }
    };
    assert_eq!(
        end.outcome,
        Some(Outcome::Win {
            winners: SeatSet::single(Seat(0))
        })
    );
}
