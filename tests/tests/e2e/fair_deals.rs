//! Fair deals in every room, end to end: whichever route seats a player
//! (a seek, a challenge and its acceptance, a rematch, the ladder, a
//! tournament), the player's client adds its seed after it saw the room's
//! commitment (`joined` with `seed_wanted`, answered by `seed`), the log
//! shows every seat's seed, and `parlor verify` recomputes the deal from
//! them and says what each seat added: a seed, none (a player away), or
//! a bot seated by the server. A room restored before its deal waits for
//! the seeds again.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use parlor_cli::verify::match_log::{verify, Report};
use parlor_cli::verify::seeds::Contribution;
use parlor_protocol::{ErrorCode, MatchLog, RoomId, RoomStatus, ServerMsg, Update};
use parlor_server::limits::{LadderSettings, Limits};
use parlor_server::Config;
use parlor_tests::http::{account_with_token, bearer, request};
use parlor_tests::seeking::{challenge_made, seek_id, signed_in};
use parlor_tests::{match_log, resume_at, start_server, start_server_with, Raw, TestStore};
use serde_json::{json, Value};

/// Reads `joined` for `room` on `c`: it must ask for the seat's seed and
/// show the commitment; answers with `seed`.
async fn give_seed(c: &mut Raw, room: &RoomId, seed: &str) {
    let (commitment, wanted) = c
        .expect(|m| match m {
            ServerMsg::Joined {
                room: r,
                commitment,
                seed_wanted,
                ..
            } if r == room => Some((commitment.clone(), *seed_wanted)),
            _ => None,
        })
        .await;
    assert!(wanted, "the seat taken for the player waits for its seed");
    assert!(commitment.is_some(), "the commitment comes before the seed");
    c.send_json(json!({"type": "seed", "room": room, "client_seed": seed}))
        .await;
}

/// Reads updates of `room` until the match is on: the seat's first view
/// of the dealt match.
async fn dealt(c: &mut Raw, room: &RoomId) -> Update {
    loop {
        let u = c.update(room).await;
        if u.status == RoomStatus::Playing {
            return u;
        }
        assert_eq!(u.status, RoomStatus::Waiting, "{u:?}");
    }
}

/// `c` resigns `room`; `other` reads on to its end.
async fn resign(c: &mut Raw, other: &mut Raw, room: &RoomId) {
    c.send_json(json!({"type": "leave", "room": room})).await;
    loop {
        if other.update(room).await.status == RoomStatus::Finished {
            return;
        }
    }
}

/// The room id a `matched` for `seek` names.
async fn matched_room(c: &mut Raw, seek: u64) -> (RoomId, u8) {
    c.expect(|m| match m {
        ServerMsg::Matched {
            seek: s,
            room,
            seat,
            ..
        } if *s == seek => Some((room.clone(), seat.0)),
        _ => None,
    })
    .await
}

/// Checks `log` with `parlor verify`: verified, with `want` as each
/// seat's contribution; the report.
fn verified(log: &MatchLog, want: &[Contribution]) -> Report {
    let report = verify(log);
    assert!(report.verified, "{:?}", report.failures);
    let got: Vec<Contribution> = report.seat_seeds.iter().map(|s| s.contributed).collect();
    assert_eq!(got, want, "{:?}", report.seat_seeds);
    report
}

/// The view verify recomputed for `seat` equals the one the seat was
/// dealt.
fn same_deal(report: &Report, seat: u8, u: &Update) {
    let views = &report.deal.as_ref().expect("a deal").views;
    let recomputed = serde_json::to_value(&views[usize::from(seat)]).unwrap();
    assert_eq!(recomputed, u.view, "verify recomputes seat {seat}'s deal");
}

#[tokio::test]
async fn a_rated_seek_between_two_accounts_deals_from_every_seats_seed() {
    let server = start_server(None).await;
    let url = server.url();
    let (ta, _) = account_with_token(server.addr(), "alice").await;
    let (tb, _) = account_with_token(server.addr(), "bobby").await;
    let mut al = signed_in(&url, &ta).await;
    let mut bo = signed_in(&url, &tb).await;
    let seek = |promise: &str| json!({"type": "seek", "game": "cribbage", "rated": true, "client_seed": promise});
    let a = seek_id(&mut al, seek("alice-promise")).await;
    let b = seek_id(&mut bo, seek("bobby-promise")).await;
    let (room, sa) = matched_room(&mut al, a).await;
    let (room_b, sb) = matched_room(&mut bo, b).await;
    assert_eq!(room, room_b);
    give_seed(&mut al, &room, "alice-after-commitment").await;
    give_seed(&mut bo, &room, "bobby-after-commitment").await;
    let ua = dealt(&mut al, &room).await;
    let ub = dealt(&mut bo, &room).await;
    resign(&mut al, &mut bo, &room).await;

    let log = match_log(&mut bo, &room).await;
    assert!(log.header.rated);
    let seeds = &log.header.deal.as_ref().expect("a fair deal").client_seeds;
    let mut want = vec![None, None];
    want[usize::from(sa)] = Some("alice-after-commitment".to_owned());
    want[usize::from(sb)] = Some("bobby-after-commitment".to_owned());
    assert_eq!(seeds, &want, "every seat's seed is in the log");
    let report = verified(&log, &[Contribution::Seed, Contribution::Seed]);
    assert!(!report.server_alone);
    same_deal(&report, sa, &ua);
    same_deal(&report, sb, &ub);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_challenge_and_its_rematch_deal_from_both_players_seeds() {
    let server = start_server(None).await;
    let url = server.url();
    let (ta, _) = account_with_token(server.addr(), "carla").await;
    let (tb, _) = account_with_token(server.addr(), "dmitri").await;
    let mut al = signed_in(&url, &ta).await;
    let mut bo = signed_in(&url, &tb).await;
    al.send_json(
        json!({"type": "challenge", "to": "dmitri", "game": "nimrod",
                        "seat": 0, "client_seed": "carla-promise"}),
    )
    .await;
    let made = challenge_made(&mut al).await;
    challenge_made(&mut bo).await;
    bo.send_json(json!({"type": "accept", "challenge": made.challenge,
                        "client_seed": "dmitri-promise"}))
        .await;
    let room = al
        .expect(|m| match m {
            ServerMsg::ChallengeEnded { room: Some(r), .. } => Some(r.clone()),
            _ => None,
        })
        .await;
    give_seed(&mut al, &room, "carla-1").await;
    give_seed(&mut bo, &room, "dmitri-1").await;
    let u0 = dealt(&mut al, &room).await;
    dealt(&mut bo, &room).await;
    resign(&mut bo, &mut al, &room).await;
    let log = match_log(&mut al, &room).await;
    assert_eq!(
        log.header.deal.as_ref().unwrap().client_seeds,
        vec![Some("carla-1".to_owned()), Some("dmitri-1".to_owned())]
    );
    let report = verified(&log, &[Contribution::Seed, Contribution::Seed]);
    same_deal(&report, 0, &u0);

    // The rematch: seats rotate, and each seat again adds a fresh seed.
    for (c, promise) in [(&mut al, "carla-again"), (&mut bo, "dmitri-again")] {
        c.send_json(json!({"type": "rematch", "room": room, "client_seed": promise}))
            .await;
    }
    let next = al
        .expect(|m| match m {
            ServerMsg::RematchStarted { next, .. } => Some(next.clone()),
            _ => None,
        })
        .await;
    give_seed(&mut al, &next, "carla-2").await;
    give_seed(&mut bo, &next, "dmitri-2").await;
    dealt(&mut al, &next).await;
    dealt(&mut bo, &next).await;
    resign(&mut al, &mut bo, &next).await;
    let log = match_log(&mut bo, &next).await;
    assert_eq!(
        log.header.deal.as_ref().unwrap().client_seeds,
        vec![Some("dmitri-2".to_owned()), Some("carla-2".to_owned())]
    );
    verified(&log, &[Contribution::Seed, Contribution::Seed]);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_bot_seat_and_a_client_that_sends_no_seed_are_shown_as_such() {
    let server = start_server(None).await;
    let url = server.url();
    // A seek that waited for a built-in bot: the bot adds no seed.
    let mut al = Raw::greeted(&url, "al").await;
    let a = seek_id(
        &mut al,
        json!({"type": "seek", "game": "nimrod", "bots": true, "bots_after_ms": 1000,
               "client_seed": "al-promise"}),
    )
    .await;
    let (room, seat) = matched_room(&mut al, a).await;
    give_seed(&mut al, &room, "al-seed").await;
    dealt(&mut al, &room).await;
    al.send_json(json!({"type": "leave", "room": room})).await;
    let mut watcher = Raw::greeted(&url, "watcher").await;
    let log = loop {
        watcher
            .send_json(json!({"type": "get_log", "room": room}))
            .await;
        let got = watcher
            .expect(|m| match m {
                ServerMsg::Log(l) => Some(Some(l.clone())),
                ServerMsg::Error { .. } => Some(None),
                _ => None,
            })
            .await;
        if let Some(log) = got {
            break log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut want = vec![Contribution::Bot, Contribution::Bot];
    want[usize::from(seat)] = Contribution::Seed;
    let report = verified(&log, &want);
    assert!(!report.server_alone);

    // Two clients that promise no seed are seated at once, as before:
    // verify says plainly that the deal rests on the server alone.
    let mut cy = Raw::greeted(&url, "cy").await;
    let mut di = Raw::greeted(&url, "di").await;
    let c = seek_id(&mut cy, json!({"type": "seek", "game": "nimrod"})).await;
    let d = seek_id(&mut di, json!({"type": "seek", "game": "nimrod"})).await;
    let (room, _) = matched_room(&mut cy, c).await;
    matched_room(&mut di, d).await;
    let wanted = cy
        .expect(|m| match m {
            ServerMsg::Joined {
                room: r,
                seed_wanted,
                ..
            } if *r == room => Some(*seed_wanted),
            _ => None,
        })
        .await;
    assert!(!wanted);
    dealt(&mut cy, &room).await;
    // A seed now comes too late: the deal is made.
    cy.send_json(json!({"type": "seed", "room": room, "client_seed": "late"}))
        .await;
    cy.expect_error(ErrorCode::RoomSeedNotWanted).await;
    resign(&mut cy, &mut di, &room).await;
    let log = match_log(&mut di, &room).await;
    let report = verified(&log, &[Contribution::NoSeed, Contribution::NoSeed]);
    assert!(report.server_alone);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_bad_seed_is_refused_and_the_seat_still_waits_for_a_good_one() {
    let server = start_server(None).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let mut bo = Raw::greeted(&url, "bo").await;
    // A malformed promise is refused before anything is sought.
    al.send_json(json!({"type": "seek", "game": "nimrod", "client_seed": "not ok!"}))
        .await;
    al.expect_error(ErrorCode::RequestMalformed).await;
    let a = seek_id(
        &mut al,
        json!({"type": "seek", "game": "nimrod", "client_seed": "ok"}),
    )
    .await;
    let b = seek_id(
        &mut bo,
        json!({"type": "seek", "game": "nimrod", "client_seed": "ok"}),
    )
    .await;
    let (room, _) = matched_room(&mut al, a).await;
    matched_room(&mut bo, b).await;
    give_seed(&mut bo, &room, "bo-seed").await;
    al.expect(|m| matches!(m, ServerMsg::Joined { .. }).then_some(()))
        .await;
    al.send_json(json!({"type": "seed", "room": room, "client_seed": "x".repeat(65)}))
        .await;
    al.expect_error(ErrorCode::RequestMalformed).await;
    al.send_json(json!({"type": "seed", "room": room, "client_seed": "al-seed"}))
        .await;
    dealt(&mut al, &room).await;
    resign(&mut al, &mut bo, &room).await;
    let log = match_log(&mut bo, &room).await;
    let seeds = &log.header.deal.as_ref().unwrap().client_seeds;
    assert!(seeds.contains(&Some("al-seed".to_owned())), "{seeds:?}");
    assert!(seeds.contains(&Some("bo-seed".to_owned())), "{seeds:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_room_restored_before_its_deal_waits_for_the_seeds_again() {
    let store = TestStore::new().await;
    let config = || Config {
        store: store.config(),
        ..Config::default()
    };
    let server = start_server_with(config()).await;
    let url = server.url();
    let mut al = Raw::greeted(&url, "al").await;
    let mut bo = Raw::greeted(&url, "bo").await;
    let seek = json!({"type": "seek", "game": "nimrod", "client_seed": "promise"});
    let a = seek_id(&mut al, seek.clone()).await;
    let b = seek_id(&mut bo, seek).await;
    let (room, _) = matched_room(&mut al, a).await;
    matched_room(&mut bo, b).await;
    // Both seats are taken, neither seed has come: the server stops.
    for c in [&mut al, &mut bo] {
        c.expect(|m| {
            matches!(
                m,
                ServerMsg::Joined {
                    seed_wanted: true,
                    ..
                }
            )
            .then_some(())
        })
        .await;
    }
    let (ta, tb) = (al.token, bo.token);
    server.stop().await.unwrap();

    let server = start_server_with(config()).await;
    let url = server.url();
    let mut al = resume_at(&url, ta).await;
    let mut bo = resume_at(&url, tb).await;
    give_seed(&mut al, &room, "al-after-restart").await;
    give_seed(&mut bo, &room, "bo-after-restart").await;
    dealt(&mut al, &room).await;
    dealt(&mut bo, &room).await;
    resign(&mut al, &mut bo, &room).await;
    let log = match_log(&mut bo, &room).await;
    let seeds = &log.header.deal.as_ref().unwrap().client_seeds;
    assert!(
        seeds.contains(&Some("al-after-restart".to_owned())),
        "{seeds:?}"
    );
    assert!(
        seeds.contains(&Some("bo-after-restart".to_owned())),
        "{seeds:?}"
    );
    verified(&log, &[Contribution::Seed, Contribution::Seed]);
    server.stop().await.unwrap();
}

/// A server whose ladder ticks fast.
fn ladder_config(store: &TestStore) -> Config {
    Config {
        store: store.config(),
        limits: Limits {
            ladder: LadderSettings {
                max_games: 1,
                daily_cap: 10,
                tick: Duration::from_millis(200),
                ..LadderSettings::default()
            },
            ..Limits::default()
        },
        ..Config::default()
    }
}

#[tokio::test]
async fn a_ladder_game_deals_from_the_bots_seed_and_shows_the_anchor() {
    let store = TestStore::new().await;
    let server = start_server_with(ladder_config(&store)).await;
    let (addr, url) = (server.addr(), server.url());
    let (token, _) = account_with_token(addr, "laddie").await;
    let mut c = signed_in(&url, &token).await;
    c.send_json(json!({"type": "ladder_join", "game": "nimrod"}))
        .await;
    let seat = c
        .expect(|m| match m {
            ServerMsg::LadderGame(s) => Some((**s).clone()),
            _ => None,
        })
        .await;
    // A seed in `join` says the client sends one after the commitment.
    c.send_json(json!({"type": "join", "room": seat.room, "seat": seat.seat,
                       "client_seed": "promise"}))
        .await;
    give_seed(&mut c, &seat.room, "laddie-seed").await;
    dealt(&mut c, &seat.room).await;
    c.send_json(json!({"type": "leave", "room": seat.room}))
        .await;
    loop {
        if c.update(&seat.room).await.status == RoomStatus::Finished {
            break;
        }
    }
    let log = match_log(&mut c, &seat.room).await;
    let mut want = vec![Contribution::Bot, Contribution::Bot];
    want[usize::from(seat.seat.0)] = Contribution::Seed;
    verified(&log, &want);
    assert_eq!(
        log.header.deal.as_ref().unwrap().client_seeds[usize::from(seat.seat.0)],
        Some("laddie-seed".to_owned())
    );
    server.stop().await.unwrap();
}

/// A two-player event of `here` and `away` starting in two seconds, with
/// only `here` connected: the server, `here`'s connection and its game.
async fn lone_tournament_game(
    store: &TestStore,
    names: [&str; 2],
) -> (
    parlor_tests::TestServer,
    Raw,
    parlor_protocol::TournamentSeat,
) {
    let server = start_server(Some(store)).await;
    let (addr, url) = (server.addr(), server.url());
    let (here, _) = account_with_token(addr, names[0]).await;
    let (away, _) = account_with_token(addr, names[1]).await;
    let body: Value = json!({"game": "nimrod", "format": "round-robin", "rounds": 1,
        "options": {"random": {"min": 3, "max": 9}}, "rated": false, "kind": "bot",
        "starts_at_ms": parlor_server::clock::now_ms() + 2_000});
    let made = request(
        addr,
        "POST",
        "/api/tournaments",
        &[bearer(&here)],
        Some(body),
    )
    .await;
    assert_eq!(made.status, 201, "{made:?}");
    let id = made.body["id"].as_str().unwrap().to_owned();
    for token in [&here, &away] {
        let path = format!("/api/tournaments/{id}/join");
        let joined = request(addr, "POST", &path, &[bearer(token)], None).await;
        assert_eq!(joined.status, 200, "{joined:?}");
    }
    // Only `here` is connected; `away` never comes.
    let mut c = signed_in(&url, &here).await;
    let game = c
        .expect(|m| match m {
            ServerMsg::TournamentGame(t) => Some((**t).clone()),
            _ => None,
        })
        .await;
    (server, c, game)
}

/// Reads `room` on `c` to its end.
async fn finished(c: &mut Raw, room: &RoomId) {
    loop {
        if c.update(room).await.status == RoomStatus::Finished {
            return;
        }
    }
}

#[tokio::test]
async fn a_tournament_game_takes_the_present_players_seed_and_shows_the_absent_one() {
    let store = TestStore::new().await;
    let (server, mut c, game) = lone_tournament_game(&store, ["here", "away"]).await;
    c.send_json(json!({"type": "join", "room": game.room, "seat": game.seat,
                       "client_seed": "promise"}))
        .await;
    give_seed(&mut c, &game.room, "here-seed").await;
    // The absent seat's wait runs out: the match is dealt without it.
    dealt(&mut c, &game.room).await;
    c.send_json(json!({"type": "leave", "room": game.room}))
        .await;
    finished(&mut c, &game.room).await;
    let log = match_log(&mut c, &game.room).await;
    let mine = usize::from(game.seat.0);
    assert_eq!(
        log.header.deal.as_ref().unwrap().client_seeds[mine],
        Some("here-seed".to_owned())
    );
    let mut want = vec![Contribution::NoSeed, Contribution::NoSeed];
    want[mine] = Contribution::Seed;
    verified(&log, &want);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn leaving_a_tournament_game_before_its_deal_resigns_it_at_once() {
    let store = TestStore::new().await;
    let (server, mut c, game) = lone_tournament_game(&store, ["quitter", "absent"]).await;
    // Joined without a seed: settled at once; the absent seat still waits.
    c.send_json(json!({"type": "join", "room": game.room, "seat": game.seat}))
        .await;
    let wanted = c
        .expect(|m| match m {
            ServerMsg::Joined { seed_wanted, .. } => Some(*seed_wanted),
            _ => None,
        })
        .await;
    assert!(!wanted);
    let started = std::time::Instant::now();
    c.send_json(json!({"type": "leave", "room": game.room}))
        .await;
    finished(&mut c, &game.room).await;
    assert!(
        started.elapsed() < parlor_server::room::SEED_WAIT,
        "the leave did not wait for the absent seat's seed"
    );
    let log = match_log(&mut c, &game.room).await;
    assert_eq!(
        log.header.deal.as_ref().unwrap().client_seeds,
        vec![None, None]
    );
    let report = verified(&log, &[Contribution::NoSeed, Contribution::NoSeed]);
    assert!(report.server_alone);
    server.stop().await.unwrap();
}
