//! Players with accounts and their games, end to end: a seat taken back
//! from another connection, `my_games`, `your_turn` on a connection not in
//! the room, and a correspondence room that outlives a restart. Runs on
//! SQLite, or with `PARLOR_TEST_STORE=postgres` on a cluster node; the
//! last test runs across two nodes (skipped without PostgreSQL or Redis,
//! except under `CI=true`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use parlor_games::Seat;
use parlor_protocol::{ClientMsg, ErrorCode, GameEntry, RoomId, RoomStatus, ServerMsg};
use parlor_server::testing::ScratchSchema;
use parlor_tests::seeking::signed_in;
use parlor_tests::{start_server, Raw, TestServer, TestStore};
use serde_json::json;

/// Registers the account `name` and makes it an API token.
async fn account(addr: SocketAddr, name: &str) -> String {
    parlor_tests::http::account_with_token(addr, name).await.0
}

/// The `games` answer to `my_games` on `c`.
async fn my_games(c: &mut Raw) -> Vec<GameEntry> {
    c.send(&ClientMsg::MyGames).await;
    c.expect(|m| match m {
        ServerMsg::Games { games } => Some(games.clone()),
        ServerMsg::Error { .. } => panic!("my_games refused: {m:?}"),
        _ => None,
    })
    .await
}

fn entry<'a>(games: &'a [GameEntry], room: &RoomId) -> &'a GameEntry {
    games
        .iter()
        .find(|g| &g.room == room)
        .unwrap_or_else(|| panic!("{room} is not listed in {games:?}"))
}

/// Sends `join` for `seat` and returns the first answer about it.
async fn join_answer(c: &mut Raw, room: &RoomId, seat: u8) -> ServerMsg {
    c.send(&ClientMsg::Join {
        room: room.clone(),
        seat: Some(Seat(seat)),
        client_seed: None,
    })
    .await;
    c.expect(|m| match m {
        ServerMsg::Joined { .. } | ServerMsg::Error { .. } => Some(m.clone()),
        _ => None,
    })
    .await
}

fn error_code(m: &ServerMsg) -> Option<ErrorCode> {
    match m {
        ServerMsg::Error { code, .. } => Some(*code),
        _ => None,
    }
}

#[tokio::test]
async fn an_accounts_seat_is_open_on_all_its_connections_at_once() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let url = server.url();
    let ann = account(server.addr(), "Ann").await;
    let bob = account(server.addr(), "bob").await;
    let mut laptop = signed_in(&url, &ann).await;
    let room = laptop
        .create("nimrod", json!({"piles": [12, 20]}), None)
        .await;
    laptop.join(&room, 0).await;
    let mut b = signed_in(&url, &bob).await;
    let started = b.join(&room, 1).await;
    assert_eq!(started.status, RoomStatus::Playing);
    // A guest may not take the account's name (in any case); a guest is
    // no one's account: the seat is taken.
    let mut impostor = Raw::connect(&url).await;
    impostor
        .send_json(json!({"type": "hello", "version": 1, "name": "ann"}))
        .await;
    impostor.expect_error(ErrorCode::RoomBadName).await;
    let mut guest = Raw::greeted(&url, "ann-guest").await;
    let refused = join_answer(&mut guest, &room, 0).await;
    assert_eq!(error_code(&refused), Some(ErrorCode::RoomSeatTaken));
    // Ann's phone, signed in too, may not move before it opens the room.
    let mut phone = signed_in(&url, &ann).await;
    phone
        .play(&room, 0, started.seq, json!({"take": [1, 0]}))
        .await;
    phone.expect_error(ErrorCode::ActionNotYourSeat).await;
    // It opens the room (a join naming no seat finds hers): both show it.
    phone
        .send(&ClientMsg::Join {
            room: room.clone(),
            seat: None,
            client_seed: None,
        })
        .await;
    let joined = phone
        .expect(|m| match m {
            ServerMsg::Joined { .. } | ServerMsg::Error { .. } => Some(m.clone()),
            _ => None,
        })
        .await;
    assert!(
        matches!(joined, ServerMsg::Joined { seat: Seat(0), .. }),
        "{joined:?}"
    );
    let mut u = phone.update(&room).await;
    assert_eq!(u.you, Some(Seat(0)));
    // Moves alternate between the two (and Bob): each applied once, seen
    // by all three; the laptop is never told it left.
    let mut turn = 0;
    while u.outcome.is_none() {
        let seat = u.to_act.iter().next().unwrap();
        let mover: &mut Raw = match (seat.0, turn % 2) {
            (1, _) => &mut b,
            (_, 0) => &mut laptop,
            _ => &mut phone,
        };
        let mv = parlor_tests::nimrod_move(&u);
        mover.play(&room, seat.0, u.seq, mv).await;
        let next = u.seq + 1;
        let seen_b = b.update_at(&room, next).await;
        let seen_laptop = laptop.update_at(&room, next).await;
        u = phone.update_at(&room, next).await;
        assert_eq!((seen_b.seq, seen_laptop.seq), (u.seq, u.seq));
        assert_eq!(seen_laptop.you, Some(Seat(0)));
        turn += 1;
    }
    assert!(turn > 2, "a whole game, moved from both");
    // Nobody was told to leave, and neither lost its session.
    for c in [&mut laptop, &mut phone] {
        c.send(&ClientMsg::MyGames).await;
        let saw_left = c
            .expect(|m| match m {
                ServerMsg::Left { room: r } if *r == room => Some(true),
                ServerMsg::Games { .. } => Some(false),
                _ => None,
            })
            .await;
        assert!(!saw_left, "a connection of the account was told it left");
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn my_games_lists_an_accounts_rooms_with_whose_turn_it_is() {
    let server = start_server(None).await;
    let url = server.url();
    let ann = account(server.addr(), "ann").await;
    let bob = account(server.addr(), "Bob").await;
    let mut a = signed_in(&url, &ann).await;
    let mut b = signed_in(&url, &bob).await;
    let playing = a.create("nimrod", json!({"piles": [5, 7]}), None).await;
    a.join(&playing, 0).await;
    let u = b.join(&playing, 1).await;
    let waiting = a.create("nimrod", json!({"piles": [2, 3]}), None).await;
    a.join(&waiting, 1).await;
    // A guest's room is nobody's game.
    let mut guest = Raw::greeted(&url, "carol").await;
    let other = guest.create("nimrod", json!({"piles": [2, 3]}), None).await;
    guest.join(&other, 0).await;

    let to_act = u.to_act.iter().next().unwrap();
    let ann_games = my_games(&mut a).await;
    assert_eq!(ann_games.len(), 2, "{ann_games:?}");
    let g = entry(&ann_games, &playing);
    assert_eq!(g.seat, Seat(0));
    assert_eq!(g.status, RoomStatus::Playing);
    assert_eq!(g.your_turn, to_act == Seat(0));
    assert_eq!(
        g.players,
        vec![Some("ann".to_owned()), Some("Bob".to_owned())]
    );
    assert_eq!((g.clock, g.deadline_ms, g.rated), (None, None, false));
    let w = entry(&ann_games, &waiting);
    assert_eq!(
        (w.seat, w.status, w.your_turn),
        (Seat(1), RoomStatus::Waiting, false)
    );
    assert_eq!(w.players, vec![None, Some("ann".to_owned())]);
    let bob_games = my_games(&mut b).await;
    assert_eq!(bob_games.len(), 1);
    assert_eq!(bob_games[0].your_turn, to_act == Seat(1));
    // After a move the turn is the other's.
    let mover = if to_act == Seat(0) { &mut a } else { &mut b };
    mover
        .play(&playing, to_act.0, u.seq, json!({"take": [1, 0]}))
        .await;
    mover.update_at(&playing, u.seq + 1).await;
    let g = entry(&my_games(&mut a).await, &playing).clone();
    assert_eq!(g.your_turn, to_act != Seat(0));
    // Guests have no games to list.
    guest.send(&ClientMsg::MyGames).await;
    guest.expect_error(ErrorCode::AuthRequired).await;
    server.stop().await.unwrap();
}

#[tokio::test]
async fn your_turn_reaches_a_connection_of_the_account_not_in_the_room() {
    let server = start_server(None).await;
    let url = server.url();
    let ann = account(server.addr(), "ann").await;
    let bob = account(server.addr(), "bob").await;
    let mut a = signed_in(&url, &ann).await;
    let mut b = signed_in(&url, &bob).await;
    let room = a
        .create(
            "nimrod",
            json!({"piles": [5, 7]}),
            Some(json!({"days_per_move": 2})),
        )
        .await;
    a.join(&room, 0).await;
    let mut u = b.join(&room, 1).await;
    // Make it Bob's turn, whoever started.
    if u.to_act.contains(Seat(0)) {
        a.play(&room, 0, u.seq, json!({"take": [1, 0]})).await;
        u = b.update_at(&room, u.seq + 1).await;
    }
    // Ann's seat connection goes; her phone is signed in elsewhere.
    let mut phone = signed_in(&url, &ann).await;
    a.close().await;
    b.expect(|m| {
        matches!(
            m,
            ServerMsg::Presence {
                connected: false,
                ..
            }
        )
        .then_some(())
    })
    .await;
    b.play(&room, 1, u.seq, json!({"take": [1, 0]})).await;
    let (r, seat, deadline) = phone
        .expect(|m| match m {
            ServerMsg::YourTurn {
                room,
                seat,
                deadline_ms,
                ..
            } => Some((room.clone(), *seat, *deadline_ms)),
            _ => None,
        })
        .await;
    assert_eq!((r, seat), (room.clone(), Seat(0)));
    assert!(deadline.is_some(), "a correspondence room has a deadline");
    // Bob, in the room, hears nothing of the kind; the phone is listed Ann's turn.
    let g = entry(&my_games(&mut phone).await, &room).clone();
    assert!(g.your_turn);
    assert_eq!(g.deadline_ms, deadline);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_correspondence_room_outlives_a_restart_with_its_deadline() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let url = server.url();
    let ann = account(server.addr(), "ann").await;
    let bob = account(server.addr(), "bob").await;
    // Guests may neither create nor join one.
    let mut guest = Raw::greeted(&url, "guest").await;
    guest
        .send_json(json!({"type": "create_room", "game": "nimrod",
            "options": {"piles": [5, 7]}, "clock": {"days_per_move": 3}}))
        .await;
    guest.expect_error(ErrorCode::AuthRequired).await;
    let mut a = signed_in(&url, &ann).await;
    a.send_json(json!({"type": "create_room", "game": "nimrod",
        "options": {"piles": [5, 7]}, "clock": {"days_per_move": 15}}))
        .await;
    a.expect_error(ErrorCode::RoomBadOptions).await;
    let room = a
        .create(
            "nimrod",
            json!({"piles": [5, 7]}),
            Some(json!({"days_per_move": 3})),
        )
        .await;
    a.join(&room, 0).await;
    let refused = join_answer(&mut guest, &room, 1).await;
    assert_eq!(error_code(&refused), Some(ErrorCode::AuthRequired));
    let mut b = signed_in(&url, &bob).await;
    let u = b.join(&room, 1).await;
    let due = u.to_act.iter().next().unwrap();
    let before = match due {
        Seat(0) => my_games(&mut a).await,
        _ => my_games(&mut b).await,
    };
    let before = entry(&before, &room).clone();
    assert!(before.your_turn);
    let deadline = before.deadline_ms.expect("a deadline");
    let now = parlor_server::clock::now_ms();
    assert!(deadline > now + 3 * 86_400_000 - 60_000 && deadline <= now + 3 * 86_400_000);
    a.close().await;
    b.close().await;
    server.stop().await.unwrap();

    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let server = start_server(Some(&store)).await;
    let url = server.url();
    let mut c = signed_in(&url, if due == Seat(0) { &ann } else { &bob }).await;
    let after = my_games(&mut c).await;
    let after = entry(&after, &room);
    assert_eq!(after.clock, before.clock);
    assert!(after.your_turn);
    let kept = after.deadline_ms.expect("a deadline");
    assert!(kept.abs_diff(deadline) <= 1_000, "{kept} vs {deadline}");
    // The room runs again, its clock counting to the same deadline.
    let joined = join_answer(&mut c, &room, due.0).await;
    assert!(matches!(joined, ServerMsg::Joined { .. }), "{joined:?}");
    let u = c.update(&room).await;
    let left = u.clocks.expect("clocks")[due.index()];
    let now = parlor_server::clock::now_ms();
    assert!(
        (now + left).abs_diff(deadline) <= 1_000,
        "the clock ends at {} instead of {deadline}",
        now + left
    );
    server.stop().await.unwrap();
}

/// Two nodes of one cluster, or `None` if a service is missing.
async fn cluster() -> Option<(ScratchSchema, TestServer, TestServer)> {
    parlor_tests::two_nodes(std::time::Duration::from_millis(2_000)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_turns_and_seats_taken_back_reach_across_nodes() {
    let Some((_scratch, a, b)) = cluster().await else {
        return;
    };
    let ann = account(a.addr(), "ann").await;
    let bob = account(a.addr(), "bob").await;
    let mut laptop = signed_in(&a.url(), &ann).await;
    let mut bo = signed_in(&a.url(), &bob).await;
    let room = laptop
        .create(
            "nimrod",
            json!({"piles": [5, 7]}),
            Some(json!({"days_per_move": 2})),
        )
        .await;
    laptop.join(&room, 0).await;
    let mut u = bo.join(&room, 1).await;
    if u.to_act.contains(Seat(0)) {
        laptop.play(&room, 0, u.seq, json!({"take": [1, 0]})).await;
        u = bo.update_at(&room, u.seq + 1).await;
    }
    // Ann's phone is on the other node; her laptop closes.
    let mut phone = signed_in(&b.url(), &ann).await;
    laptop.close().await;
    bo.expect(|m| {
        matches!(
            m,
            ServerMsg::Presence {
                connected: false,
                ..
            }
        )
        .then_some(())
    })
    .await;
    bo.play(&room, 1, u.seq, json!({"take": [1, 0]})).await;
    let (r, seat) = phone
        .expect(|m| match m {
            ServerMsg::YourTurn { room, seat, .. } => Some((room.clone(), *seat)),
            _ => None,
        })
        .await;
    assert_eq!((r, seat), (room.clone(), Seat(0)));
    // The other node lists the room from the shared store ...
    let games = my_games(&mut phone).await;
    let g = entry(&games, &room);
    assert!(g.your_turn && g.deadline_ms.is_some(), "{g:?}");
    // ... and the phone takes the seat back through it, and plays.
    let joined = join_answer(&mut phone, &room, 0).await;
    assert!(
        matches!(joined, ServerMsg::Joined { seat: Seat(0), .. }),
        "{joined:?}"
    );
    let now = phone.update_at(&room, u.seq + 1).await;
    assert_eq!(now.you, Some(Seat(0)));
    phone.play(&room, 0, now.seq, json!({"take": [1, 0]})).await;
    bo.update_at(&room, now.seq + 1).await;
}

/// A room made for named accounts (here a challenge's) is in each
/// player's games by the time they are told of it: a client that
/// connected just as it was made, and so missed the news, finds it by
/// reading its games once.
#[tokio::test]
async fn a_challenges_room_is_in_both_games_lists_when_they_are_told() {
    let server = start_server(None).await;
    let (addr, url) = (server.addr(), server.url());
    let ann = account(addr, "ann").await;
    let bob = account(addr, "bob").await;
    let mut a = signed_in(&url, &ann).await;
    let mut b = signed_in(&url, &bob).await;
    // Repeated: the seats' storing raced the news before it was awaited.
    for _ in 0..10 {
        a.send_json(json!({"type": "challenge", "to": "bob", "game": "nimrod"}))
            .await;
        let made = parlor_tests::seeking::challenge_made(&mut b).await;
        b.send_json(json!({"type": "accept", "challenge": made.challenge}))
            .await;
        let (_, _, _, room) = parlor_tests::seeking::challenge_ended(&mut a).await;
        let room = room.expect("an accepted challenge names its room");
        // A fresh connection of each, asking at once.
        for token in [&ann, &bob] {
            let mut fresh = signed_in(&url, token).await;
            let games = my_games(&mut fresh).await;
            assert!(
                games.iter().any(|g| g.room == room),
                "{room} not yet in {games:?}"
            );
            fresh.close().await;
        }
        // Over, so that the open rooms' cap is never what stops the loop.
        a.send(&ClientMsg::Leave { room: room.clone() }).await;
    }
    server.stop().await.unwrap();
}

/// Every connection of an account hears `your_turn` but those showing the
/// room: a tab in the lobby while another is at the table.
#[tokio::test]
async fn your_turn_reaches_the_accounts_other_tabs_while_one_is_at_the_table() {
    let server = start_server(None).await;
    let url = server.url();
    let ann = account(server.addr(), "ann").await;
    let bob = account(server.addr(), "bob").await;
    let mut table = signed_in(&url, &ann).await;
    let mut lobby = signed_in(&url, &ann).await;
    let mut b = signed_in(&url, &bob).await;
    let room = table
        .create("nimrod", json!({"piles": [12, 20]}), None)
        .await;
    table.join(&room, 0).await;
    let mut u = b.join(&room, 1).await;
    if u.to_act.contains(Seat(0)) {
        table
            .play(&room, 0, u.seq, parlor_tests::nimrod_move(&u))
            .await;
        u = b.update_at(&room, u.seq + 1).await;
    }
    // Bob moves: Ann's turn. The lobby tab hears it; the table does not.
    b.play(&room, 1, u.seq, parlor_tests::nimrod_move(&u)).await;
    let (r, seat) = lobby
        .expect(|m| match m {
            ServerMsg::YourTurn { room, seat, .. } => Some((room.clone(), *seat)),
            _ => None,
        })
        .await;
    assert_eq!((r, seat), (room.clone(), Seat(0)));
    let at_table = table.update_at(&room, u.seq + 1).await;
    assert!(at_table.to_act.contains(Seat(0)));
    table.send(&ClientMsg::MyGames).await;
    let told = table
        .expect(|m| match m {
            ServerMsg::YourTurn { .. } => Some(true),
            ServerMsg::Games { .. } => Some(false),
            _ => None,
        })
        .await;
    assert!(!told, "the connection at the table was sent your_turn");
    server.stop().await.unwrap();
}

/// A connection of an account resuming a token another connection of the
/// same account speaks for (two tabs sharing a browser's storage) takes
/// nothing from it: both stay open and show the seat. A guest's token
/// resumed elsewhere still moves (the old connection is taken over).
#[tokio::test]
async fn an_account_resuming_its_own_live_token_takes_no_connection_over() {
    let server = start_server(None).await;
    let url = server.url();
    let ann = account(server.addr(), "ann").await;
    let mut first = signed_in(&url, &ann).await;
    let room = first.create("nimrod", json!({"piles": [3, 4]}), None).await;
    first.join(&room, 0).await;
    let token = first.token;
    let mut second = signed_in(&url, &ann).await;
    second
        .send_json(json!({"type": "resume", "token": token}))
        .await;
    second
        .expect(|m| matches!(m, ServerMsg::Resumed { .. }).then_some(()))
        .await;
    let u = second.update(&room).await;
    assert_eq!(u.you, Some(Seat(0)));
    // The first is still served: Bob's arrival starts the match on both,
    // and the first was never told it was taken over.
    let bob = account(server.addr(), "bob").await;
    let mut b = signed_in(&url, &bob).await;
    b.join(&room, 1).await;
    for c in [&mut first, &mut second] {
        let mut u = c.update(&room).await;
        while u.status != RoomStatus::Playing {
            u = c.update(&room).await;
        }
        assert_eq!(u.you, Some(Seat(0)));
    }
    first.send(&ClientMsg::MyGames).await;
    let taken = first
        .expect(|m| match m {
            ServerMsg::Error {
                code: ErrorCode::SessionTakenOver,
                ..
            } => Some(true),
            ServerMsg::Games { .. } => Some(false),
            _ => None,
        })
        .await;
    assert!(!taken, "the account's first connection was taken over");
    server.stop().await.unwrap();
}

/// An account at one table from two nodes: the laptop on the room's node,
/// the phone on the other (through the bus); both show the seat and move
/// in it, neither takes the other's place, and a third connection on the
/// other node hears `your_turn`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accounts_connections_on_two_nodes_share_its_seat() {
    let Some((_scratch, a, b)) = cluster().await else {
        return;
    };
    let ann = account(a.addr(), "ann").await;
    let bob = account(a.addr(), "bob").await;
    let mut laptop = signed_in(&a.url(), &ann).await;
    let mut bo = signed_in(&a.url(), &bob).await;
    let room = laptop
        .create("nimrod", json!({"piles": [12, 20]}), None)
        .await;
    laptop.join(&room, 0).await;
    let mut u = bo.join(&room, 1).await;
    let mut phone = signed_in(&b.url(), &ann).await;
    let mut lobby = signed_in(&b.url(), &ann).await;
    let joined = join_answer(&mut phone, &room, 0).await;
    assert!(
        matches!(joined, ServerMsg::Joined { seat: Seat(0), .. }),
        "{joined:?}"
    );
    phone.update(&room).await;
    let mut turn = 0;
    let mut heard = 0;
    while u.outcome.is_none() && turn < 8 {
        let seat = u.to_act.iter().next().unwrap();
        let mover: &mut Raw = match (seat.0, turn % 2) {
            (1, _) => &mut bo,
            (_, 0) => &mut laptop,
            _ => &mut phone,
        };
        mover
            .play(&room, seat.0, u.seq, parlor_tests::nimrod_move(&u))
            .await;
        let next = u.seq + 1;
        let on_a = laptop.update_at(&room, next).await;
        u = phone.update_at(&room, next).await;
        bo.update_at(&room, next).await;
        assert_eq!(on_a.seq, u.seq, "both of Ann's connections see each move");
        if u.outcome.is_none() && u.to_act.contains(Seat(0)) {
            let r = lobby
                .expect(|m| match m {
                    ServerMsg::YourTurn { room, .. } => Some(room.clone()),
                    _ => None,
                })
                .await;
            assert_eq!(r, room);
            heard += 1;
        }
        turn += 1;
    }
    assert!(turn >= 3 && heard >= 1, "{turn} moves, {heard} turns heard");
}
