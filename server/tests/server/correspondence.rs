//! Rated aborts, correspondence clocks and `your_turn`, driven through a
//! directory on tokio's paused time (one test on real time, with clocks
//! of a second: see its comment).

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::{directory, route, seat_all, Player};
use parlor_games::{GameKind, Outcome, Seat, SeatSet};
use parlor_protocol::{Clock, Closed, ErrorCode, LoggedAction, RoomId, RoomStatus, ServerMsg};
use parlor_server::directory::{Directory, NewRoom};
use parlor_server::limits::Limits;
use parlor_server::room::{RoomCmd, RoomRequest, DAY_MS};
use serde_json::json;
use tokio::time::Instant;

fn limits() -> Limits {
    Limits {
        unstarted_room_timeout: Duration::from_secs(600),
        abandoned_room_timeout: Duration::from_secs(300),
        ..Limits::default()
    }
}

/// A Nimrod room with `clock`, rated or not, made by an account or not.
async fn room(dir: &Directory, clock: Clock, rated: bool, by_account: bool) -> RoomId {
    dir.create(NewRoom {
        game: GameKind::Nimrod,
        seats: None,
        options: json!({ "piles": [10, 20] }),
        clock: Some(clock),
        private: false,
        creator: None,
        creator_addr: None,
        rated,
        by_account,
        scheduled: None,
        matched: Vec::new(),
    })
    .await
    .unwrap_or_else(|e| panic!("{e:?}"))
    .room
}

/// A player signed in to the account `name`.
fn account(dir: &Directory, name: &str) -> Player {
    let mut p = Player::new(dir, name);
    p.member.account = true;
    dir.sign_in(&name.to_ascii_lowercase(), p.member.conn);
    p
}

fn play(dir: &Directory, room: &RoomId, p: &Player, seat: u8, seq: u64) {
    route(
        dir,
        room,
        RoomCmd::request(
            p.member.clone(),
            RoomRequest::Play {
                seat: Seat(seat),
                seq,
                mv: json!({"take": [1, 0]}),
            },
        ),
    );
}

/// The room's last update: the one that ends it.
async fn last_update(p: &mut Player) -> parlor_protocol::Update {
    loop {
        let u = p.update().await;
        if u.status == RoomStatus::Finished {
            return u;
        }
    }
}

async fn stored_log(dir: &Directory, room: &RoomId) -> parlor_protocol::MatchLog {
    dir.store()
        .log(room.clone())
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no log"))
}

#[tokio::test(start_paused = true)]
async fn a_rated_match_whose_seat_never_moves_is_aborted_and_a_casual_one_times_out() {
    for rated in [true, false] {
        let dir = directory(limits());
        let room = room(&dir, Clock::PerMove { ms: 30_000 }, rated, false).await;
        let (mut a, b) = (Player::new(&dir, "a"), Player::new(&dir, "b"));
        seat_all(&dir, &room, &[&a, &b]);
        a.update_at(0).await;
        let t0 = Instant::now();
        // Seat 0 never makes its first move.
        let end = last_update(&mut a).await;
        assert!(t0.elapsed() >= Duration::from_secs(30));
        let log = stored_log(&dir, &room).await;
        if rated {
            assert_eq!((end.closed, end.outcome), (Some(Closed::Aborted), None));
            assert_eq!((log.closed, log.outcome), (Some(Closed::Aborted), None));
            assert!(log.moves.is_empty(), "an abort is no step");
        } else {
            let won = Outcome::Win {
                winners: SeatSet::single(Seat(1)),
            };
            assert_eq!((end.closed, end.outcome), (None, Some(won)));
            assert_eq!((log.closed, log.outcome), (None, Some(won)));
            assert_eq!(
                log.moves.last().map(|e| &e.action),
                Some(&LoggedAction::Forfeit)
            );
        }
    }
}

/// A per-move clock short enough to run out for real, long enough that a
/// move sent at once is in before it does.
const REAL_CLOCK: Clock = Clock::PerMove { ms: 1_000 };

/// On real time: paused time runs ahead to the next timer whenever the
/// runtime waits, also while the store's own thread commits a move, so a
/// clock could run out before a move already sent was read (a hang here
/// about one run in eight on a busy machine, before and after the
/// connection rework alike).
#[tokio::test]
async fn a_rated_match_is_aborted_when_the_second_seat_misses_its_first_move_only() {
    let dir = directory(limits());
    let r = room(&dir, REAL_CLOCK, true, false).await;
    let (mut a, b) = (Player::new(&dir, "a"), Player::new(&dir, "b"));
    seat_all(&dir, &r, &[&a, &b]);
    a.update_at(0).await;
    play(&dir, &r, &a, 0, 0);
    a.update_at(1).await;
    // Seat 1 never moves: aborted too.
    let end = last_update(&mut a).await;
    assert_eq!((end.closed, end.outcome), (Some(Closed::Aborted), None));

    // Once both have moved, running out of time loses as always.
    let r = room(&dir, REAL_CLOCK, true, false).await;
    let (mut a, b) = (Player::new(&dir, "a2"), Player::new(&dir, "b2"));
    seat_all(&dir, &r, &[&a, &b]);
    a.update_at(0).await;
    play(&dir, &r, &a, 0, 0);
    a.update_at(1).await;
    play(&dir, &r, &b, 1, 1);
    a.update_at(2).await;
    let end = last_update(&mut a).await;
    assert_eq!(end.closed, None);
    assert_eq!(
        end.outcome,
        Some(Outcome::Win {
            winners: SeatSet::single(Seat(1))
        })
    );
}

#[tokio::test(start_paused = true)]
async fn correspondence_rooms_are_for_accounts_and_wait_for_their_players() {
    let dir = directory(limits());
    // Only accounts make them, with 1 to 14 days.
    let guest = dir
        .create(NewRoom {
            game: GameKind::Nimrod,
            seats: None,
            options: json!({ "piles": [10, 20] }),
            clock: Some(Clock::DaysPerMove(3)),
            private: false,
            creator: None,
            creator_addr: None,
            rated: false,
            by_account: false,
            scheduled: None,
            matched: Vec::new(),
        })
        .await;
    assert_eq!(guest.map_err(|e| e.code), Err(ErrorCode::AuthRequired));
    for days in [0, 15] {
        let bad = dir
            .create(NewRoom {
                game: GameKind::Nimrod,
                seats: None,
                options: json!({ "piles": [10, 20] }),
                clock: Some(Clock::DaysPerMove(days)),
                private: false,
                creator: None,
                creator_addr: None,
                rated: false,
                by_account: true,
                scheduled: None,
                matched: Vec::new(),
            })
            .await;
        assert_eq!(bad.map_err(|e| e.code), Err(ErrorCode::RoomBadOptions));
    }
    let r = room(&dir, Clock::DaysPerMove(1), false, true).await;
    // A guest may not join.
    let mut stranger = Player::new(&dir, "stranger");
    route(&dir, &r, stranger.join(0));
    match stranger.next().await {
        ServerMsg::Error { code, .. } => assert_eq!(code, ErrorCode::AuthRequired),
        other => panic!("expected auth/required, got {other:?}"),
    }
    let (mut a, b) = (account(&dir, "Ann"), account(&dir, "Ben"));
    seat_all(&dir, &r, &[&a, &b]);
    let started = a.update_at(0).await;
    assert_eq!(started.clocks, Some(vec![DAY_MS, DAY_MS]));
    play(&dir, &r, &a, 0, 0);
    a.update_at(1).await;
    // Both go away for far longer than a real-time room is kept.
    route(&dir, &r, a.detach());
    route(&dir, &r, b.detach());
    tokio::time::sleep(Duration::from_secs(3 * 3600)).await;
    assert_eq!(dir.len(), 1, "a correspondence room closed as abandoned");
    // Ann looks again; Ben's day runs out and he loses.
    let mut back = account(&dir, "Ann");
    route(
        &dir,
        &r,
        RoomCmd::request(back.member.clone(), RoomRequest::Spectate),
    );
    let end = last_update(&mut back).await;
    assert_eq!(end.closed, None);
    assert_eq!(
        end.outcome,
        Some(Outcome::Win {
            winners: SeatSet::single(Seat(0))
        })
    );
}

#[tokio::test(start_paused = true)]
async fn your_turn_reaches_the_accounts_other_connections_once_per_turn() {
    let dir = directory(limits());
    let r = room(&dir, Clock::DaysPerMove(2), false, true).await;
    let (mut a, mut b) = (account(&dir, "Ann"), account(&dir, "Ben"));
    seat_all(&dir, &r, &[&a, &b]);
    a.update_at(0).await;
    // Ann's phone: signed in, not in the room.
    let mut phone = account(&dir, "ann");
    play(&dir, &r, &a, 0, 0);
    a.update_at(1).await;
    // Ann's seat connection goes; Ben moves: Ann's turn, told to her phone.
    route(&dir, &r, a.detach());
    b.update_at(1).await;
    let before = parlor_server::clock::now_ms();
    play(&dir, &r, &b, 1, 1);
    b.update_at(2).await;
    let msg = phone.next().await;
    let ServerMsg::YourTurn {
        room,
        game,
        seat,
        deadline_ms,
    } = msg
    else {
        panic!("expected your_turn, got {msg:?}");
    };
    assert_eq!((room, game, seat), (r.clone(), GameKind::Nimrod, Seat(0)));
    let deadline = deadline_ms.unwrap_or_else(|| panic!("a deadline"));
    assert!(deadline >= before + 2 * DAY_MS && deadline <= before + 2 * DAY_MS + 60_000);
    // Ben, connected to the room, is not told when his turn comes.
    let mut back = account(&dir, "ann");
    route(
        &dir,
        &r,
        RoomCmd::request(
            back.member.clone(),
            RoomRequest::Join {
                seat: Some(Seat(0)),
                client_seed: None,
                await_seed: false,
            },
        ),
    );
    back.update_at(2).await;
    play(&dir, &r, &back, 0, 2);
    b.update_at(3).await;
    // Nothing else came to the phone (one notice for the one turn): the
    // next message it gets is the ping we send it ourselves.
    phone.out.send(&ServerMsg::Pong { id: Some(7) });
    assert!(matches!(
        phone.next().await,
        ServerMsg::Pong { id: Some(7) }
    ));
}

/// Whose turn the store holds for `room`'s match (read as a restore
/// reads it).
async fn stored_turn(dir: &Directory, room: &RoomId) -> Option<parlor_server::store::Turn> {
    let unfinished = dir
        .store()
        .unfinished()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    unfinished
        .into_iter()
        .find(|m| &m.record.room == room)
        .unwrap_or_else(|| panic!("{room} is not unfinished"))
        .turn
}

// On real time: paused time would jump to the clocks' deadlines while
// the test waits for the store's reader thread.
#[tokio::test]
async fn only_rooms_with_an_account_seat_record_whose_turn_it_is() {
    let dir = directory(limits());
    // Guests (the benchmarks' rooms): nothing more is written per move.
    let hour = Clock::PerMove { ms: 3_600_000 };
    let guests = room(&dir, hour, false, false).await;
    let (mut a, b) = (Player::new(&dir, "a"), Player::new(&dir, "b"));
    seat_all(&dir, &guests, &[&a, &b]);
    a.update_at(0).await;
    play(&dir, &guests, &a, 0, 0);
    a.update_at(1).await;
    assert_eq!(stored_turn(&dir, &guests).await, None);
    // One account seat: recorded at the start and with every step.
    let mixed = room(&dir, hour, false, false).await;
    let (mut c, d) = (account(&dir, "Cy"), Player::new(&dir, "d"));
    seat_all(&dir, &mixed, &[&c, &d]);
    c.update_at(0).await;
    let started = stored_turn(&dir, &mixed)
        .await
        .expect("recorded at the start");
    assert!(started.of(Seat(0)).is_some_and(|d| d.is_some()));
    assert_eq!(started.of(Seat(1)), None);
    play(&dir, &mixed, &c, 0, 0);
    c.update_at(1).await;
    let next = stored_turn(&dir, &mixed)
        .await
        .expect("recorded with the step");
    assert_eq!(next.of(Seat(0)), None);
    assert!(next.of(Seat(1)).is_some());
}
