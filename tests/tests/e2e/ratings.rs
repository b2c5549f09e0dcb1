//! Rated play end to end: a rated match's end moves its players' ratings
//! once, in the ledger and in the stored ratings alike; the ledger folds
//! to them exactly; seats show ratings and the final update the change;
//! pages, leaderboards and the head agree. Multi-seat matches are checked
//! against a hand computation (partners are not opponents; places rank the
//! others). On the store the run asks for (`PARLOR_TEST_STORE=postgres`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_competition::{ledger, GameResult, Glicko2, LedgerLine, Rating};
use parlor_games::Outcome;
use parlor_protocol::{Occupant, Update};
use parlor_tests::http::request;
use parlor_tests::rating::{ledger as read_ledger, play_out_first_legal, rated_match};
use parlor_tests::seeking::{challenge_ended, challenge_made};
use parlor_tests::{match_log, start_server, TestStore};
use serde_json::json;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Each seat's place, from the outcome and what the test knows of the game.
fn winners(u: &Update) -> Vec<u8> {
    match u.outcome {
        Some(Outcome::Win { winners }) => winners.iter().map(|s| s.0).collect(),
        Some(Outcome::Draw) => Vec::new(),
        None => panic!("not over"),
    }
}

#[tokio::test]
async fn a_rated_match_moves_ratings_once_and_the_ledger_folds_to_them() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let (addr, url) = (server.addr(), server.url());
    let head = request(addr, "GET", "/api/ratings/head", &[], None).await;
    assert_eq!(head.body, json!({"n": 0, "hash": ledger::GENESIS}));

    let (mut players, room, first) = rated_match(
        addr,
        &url,
        &["alice", "bobby"],
        "nimrod",
        json!({"piles": [3, 5]}),
    )
    .await;
    for u in &first {
        for s in &u.seats {
            if s.occupant == Occupant::Empty {
                assert_eq!(s.rating, None);
                continue;
            }
            let r = s.rating.expect("a rated seat shows its rating");
            assert_eq!((r.rating, r.provisional), (1500, true));
        }
    }
    let last = play_out_first_legal(&mut players, &room, first).await;
    let won = winners(&last[0]);
    assert_eq!(won.len(), 1);
    for u in &last {
        let changes = u.rating_changes.as_ref().expect("the change at the end");
        assert_eq!(changes.len(), 2);
        for c in changes {
            assert!(close(c.before, 1500.0));
            if won.contains(&c.seat.0) {
                assert!(c.after > c.before, "{c:?}");
            } else {
                assert!(c.after < c.before, "{c:?}");
            }
        }
    }

    let lines = read_ledger(addr, None).await;
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!((line.n, line.pool.as_str()), (1, "nimrod"));
    assert_eq!(line.room, room.to_string());
    let log = match_log(&mut players[0], &room).await;
    assert_eq!(
        Some(line.commitment.clone()),
        log.header.deal.as_ref().map(|d| d.commitment.clone())
    );
    // The hand computation: one game against the other, from 1500/350/0.06.
    let system = Glicko2::PARLOR;
    for p in &line.players {
        let other = line.players.iter().find(|q| q.seat != p.seat).unwrap();
        let score = if won.contains(&p.seat) { 1.0 } else { 0.0 };
        let want = system.rate(
            system.initial,
            &[GameResult {
                opponent: system.initial,
                score,
            }],
        );
        assert_eq!(p.after, want, "{}", p.name);
        assert_eq!(p.place, if score == 1.0 { 1 } else { 2 });
        assert_ne!(other.name, p.name);
    }
    let folded = ledger::verify(&system, &lines, 0.0).expect("the ledger folds");

    // The head, the pages and the stored ratings agree with the fold.
    let head = request(addr, "GET", "/api/ratings/head", &[], None).await;
    assert_eq!(head.body, json!({"n": 1, "hash": line.hash}));
    for p in &line.players {
        let page = request(addr, "GET", &format!("/api/players/{}", p.name), &[], None).await;
        assert_eq!(page.status, 200);
        let r = &page.body["ratings"]["nimrod"];
        let (rating, _) = folded.get("nimrod", &p.name).unwrap();
        assert_eq!(r["rating"].as_f64(), Some(rating.rating), "{}", page.body);
        assert_eq!(r["rd"].as_f64(), Some(rating.rd));
        assert_eq!(r["games"], 1);
        assert_eq!(r["provisional"], true);
        let games = page.body["rated_games"].as_array().unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0]["room"], room.to_string());
        assert_eq!(games[0]["after"].as_f64(), Some(p.after.rating));
    }
    // Provisional ratings stay off the leaderboard.
    let board = request(addr, "GET", "/api/leaderboard/nimrod", &[], None).await;
    assert_eq!(board.body, json!({"game": "nimrod", "players": []}));
    let bad = request(addr, "GET", "/api/leaderboard/chess", &[], None).await;
    assert_eq!((bad.status, bad.code()), (404, "ratings/unknown_pool"));

    // A second match continues the chain from the ratings the first left.
    let (mut players, room2, first) = rated_match(
        addr,
        &url,
        &["carol", "alice2"],
        "nimrod",
        json!({"piles": [2, 7]}),
    )
    .await;
    play_out_first_legal(&mut players, &room2, first).await;
    let lines = read_ledger(addr, None).await;
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1].prev, lines[0].hash);
    ledger::verify(&system, &lines, 0.0).expect("the ledger folds");
    assert_eq!(read_ledger(addr, Some("cribbage")).await.len(), 0);
    let after_one = request(addr, "GET", "/api/ratings/ledger?after=1", &[], None).await;
    assert_eq!(after_one.text.lines().count(), 1);
    server.stop().await.unwrap();
}

/// The rating a player's period gives against each (opponent rating, score).
fn by_hand(me: Rating, games: &[(Rating, f64)]) -> Rating {
    let results: Vec<GameResult> = games
        .iter()
        .map(|&(opponent, score)| GameResult { opponent, score })
        .collect();
    Glicko2::PARLOR.rate(me, &results)
}

fn score(mine: u8, theirs: u8) -> f64 {
    match mine.cmp(&theirs) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

/// Checks a finished multi-seat match's line by hand: everyone starts from
/// the initial rating and plays one game against every non-partner.
fn check_by_hand(line: &LedgerLine, partners: impl Fn(u8, u8) -> bool) {
    let initial = Glicko2::PARLOR.initial;
    for p in &line.players {
        let games: Vec<(Rating, f64)> = line
            .players
            .iter()
            .filter(|q| q.seat != p.seat && !partners(p.seat, q.seat))
            .map(|q| (initial, score(p.place, q.place)))
            .collect();
        assert_eq!(p.before, initial);
        assert_eq!(p.after, by_hand(initial, &games), "{}", p.name);
    }
}

#[tokio::test]
async fn four_player_cribbage_rates_partnerships_and_not_partners_against_each_other() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let (addr, url) = (server.addr(), server.url());
    let names = ["north", "east", "south", "west"];
    let (mut players, room, first) = rated_match(addr, &url, &names, "cribbage", json!({})).await;
    let last = play_out_first_legal(&mut players, &room, first).await;
    let won = winners(&last[0]);
    let lines = read_ledger(addr, None).await;
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(line.players.len(), 4);
    for p in &line.players {
        assert_eq!(p.team, Some(p.seat % 2));
        assert_eq!(p.place, if won.contains(&p.seat) { 1 } else { 2 });
    }
    check_by_hand(line, |a, b| a % 2 == b % 2);
    // Partners end level: the same games, the same result.
    assert_eq!(line.players[0].after, line.players[2].after);
    ledger::verify(&Glicko2::PARLOR, &lines, 0.0).expect("the ledger folds");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn three_player_rummikub_places_everyone_and_rates_each_against_both_others() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let (addr, url) = (server.addr(), server.url());
    let names = ["ann", "ben", "cat"];
    let (mut players, room, first) =
        rated_match(addr, &url, &names, "rummikub", json!({"empty_bag": "pass"})).await;
    let last = play_out_first_legal(&mut players, &room, first).await;
    let lines = read_ledger(addr, None).await;
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert_eq!(line.players.len(), 3);
    // The places the replayed match gives.
    let log = match_log(&mut players[0], &room).await;
    let moves: Vec<_> = log.moves.clone();
    let (game, _) = parlor_protocol::replay(&log.header, &moves).unwrap();
    let places = game.places().unwrap();
    for p in &line.players {
        assert_eq!(p.team, None);
        assert_eq!(p.place, places[usize::from(p.seat)]);
        assert_eq!(
            p.place == 1,
            winners(&last[0]).contains(&p.seat) || last[0].outcome == Some(Outcome::Draw)
        );
    }
    check_by_hand(line, |_, _| false);
    ledger::verify(&Glicko2::PARLOR, &lines, 0.0).expect("the ledger folds");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_players_history_is_their_ledger_lines_in_one_pool_game_by_game() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let (addr, url) = (server.addr(), server.url());
    let (mut players, room, first) = rated_match(
        addr,
        &url,
        &["hana", "ivo"],
        "nimrod",
        json!({"piles": [3, 5]}),
    )
    .await;
    let last = play_out_first_legal(&mut players, &room, first).await;
    // Players are by seat: the second's name, to challenge it.
    let changes = last[0].rating_changes.as_ref().unwrap();
    let second = changes.iter().find(|c| c.seat.0 == 1).unwrap().name.clone();
    // Two more matches between the same accounts, by challenge (a rated
    // seek would wait for the rating window to widen to the gap between them).
    for piles in [[2, 7], [3, 5]] {
        players[0]
            .send_json(json!({"type": "challenge", "to": second, "game": "nimrod",
                              "options": {"piles": piles}, "rated": true}))
            .await;
        let made = challenge_made(&mut players[1]).await;
        players[1]
            .send_json(json!({"type": "accept", "challenge": made.challenge}))
            .await;
        let (_, _, _, room) = challenge_ended(&mut players[0]).await;
        let room = room.unwrap();
        let mut firsts = Vec::new();
        for c in players.iter_mut() {
            firsts.push(c.update(&room).await);
        }
        play_out_first_legal(&mut players, &room, firsts).await;
    }
    let lines = read_ledger(addr, Some("nimrod")).await;
    assert_eq!(lines.len(), 3);

    for name in ["hana", "IVO"] {
        let page = request(
            addr,
            "GET",
            &format!("/api/players/{name}/history?pool=nimrod"),
            &[],
            None,
        )
        .await;
        assert_eq!(page.status, 200, "{page:?}");
        let body = &page.body;
        assert_eq!(body["name"], name.to_ascii_lowercase());
        assert_eq!(body["pool"], "nimrod");
        assert_eq!(body["truncated"], false);
        let points = body["points"].as_array().unwrap();
        assert_eq!(points.len(), lines.len(), "{body}");
        // Oldest first: each point is the player's part of its line.
        for (point, line) in points.iter().zip(&lines) {
            let me = line
                .players
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
                .unwrap();
            let other = line.players.iter().find(|p| p.seat != me.seat).unwrap();
            assert_eq!(point["n"], line.n);
            assert_eq!(point["at_ms"], line.at_ms);
            assert_eq!(point["room"], line.room.as_str());
            assert_eq!(point["rating"].as_f64(), Some(me.after.rating));
            assert_eq!(point["rd"].as_f64(), Some(me.after.rd));
            assert!(close(
                point["change"].as_f64().unwrap(),
                me.after.rating - me.before.rating
            ));
            let won = me.place < other.place;
            assert_eq!(point["result"], if won { "won" } else { "lost" });
            assert_eq!(point["opponents"], json!([other.name]));
            assert_eq!(point["partners"], json!([]));
        }
        // The first game started from the initial rating.
        assert_eq!(body["start"], json!({"rating": 1500.0, "rd": 350.0}));
        // The last point is the rating the page shows, before idle days.
        let shown = request(addr, "GET", &format!("/api/players/{name}"), &[], None).await;
        assert_eq!(
            shown.body["ratings"]["nimrod"]["rating"],
            points.last().unwrap()["rating"]
        );
    }
    // Another pool has no games yet; the pool must be a game's name.
    let none = request(
        addr,
        "GET",
        "/api/players/hana/history?pool=cribbage",
        &[],
        None,
    )
    .await;
    assert_eq!(none.status, 200);
    assert_eq!(none.body["points"], json!([]));
    assert_eq!(none.body["start"], json!(null));
    let bad = request(
        addr,
        "GET",
        "/api/players/hana/history?pool=chess",
        &[],
        None,
    )
    .await;
    assert_eq!((bad.status, bad.code()), (404, "ratings/unknown_pool"));
    let bad = request(addr, "GET", "/api/players/hana/history", &[], None).await;
    assert_eq!((bad.status, bad.code()), (400, "ratings/bad_query"));
    let nobody = request(
        addr,
        "GET",
        "/api/players/nobody-here/history?pool=nimrod",
        &[],
        None,
    )
    .await;
    assert_eq!((nobody.status, nobody.code()), (404, "account/not_found"));
    server.stop().await.unwrap();
}
