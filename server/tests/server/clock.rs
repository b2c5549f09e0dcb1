//! Turn clocks, driven by tokio's paused time: no test here sleeps.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::{directory, nimrod_room, seat_all, Player};
use parlor_games::{Outcome, Seat, SeatSet};
use parlor_protocol::{Clock, LoggedAction, RoomId};
use parlor_server::directory::Directory;
use parlor_server::limits::Limits;
use parlor_server::room::{RoomCmd, RoomRequest};
use serde_json::json;
use tokio::time::Instant;

async fn room_with_clock(clock: Clock) -> (Arc<Directory>, RoomId, Player, Player) {
    let lobby = directory(Limits::default());
    let room = nimrod_room(&lobby, [10, 20], Some(clock)).await;
    let (a, b) = (Player::new(&lobby, "a"), Player::new(&lobby, "b"));
    seat_all(&lobby, &room, &[&a, &b]);
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
    lobby
        .route(
            &room,
            RoomCmd::request(
                a.member.clone(),
                RoomRequest::Play {
                    seat: Seat(0),
                    seq: 0,
                    mv: json!({"take": [0, 1]}),
                },
            ),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
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
