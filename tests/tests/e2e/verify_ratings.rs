//! `parlor verify-ratings`, `parlor player` and `parlor leaderboard`'s
//! reading against a real server after real rated matches (two-player
//! Nimrod, four-player Cribbage partnerships, three-player Rummikub):
//! the ledger re-folds and every match replays to its line. On the store
//! the run asks for (`PARLOR_TEST_STORE=postgres`).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_cli::localtime::Zone;
use parlor_cli::ratings::{player, PlayerPage};
use parlor_cli::verify::ratings::verify_server;
use parlor_cli::{api, ratings};
use parlor_protocol::{Leaderboard, LedgerHead};
use parlor_tests::rating::{ledger as read_ledger, play_out_first_legal, rated_match};
use parlor_tests::{start_server, TestStore};
use serde_json::json;

#[tokio::test]
async fn rated_matches_on_a_real_server_verify_and_show() {
    let store = TestStore::new().await;
    let server = start_server(Some(&store)).await;
    let (addr, url) = (server.addr(), server.url());

    // Nothing rated yet: an empty ledger verifies.
    let v = verify_server(&url, None).await.unwrap().unwrap();
    assert_eq!((v.lines, v.players, v.matches), (0, 0, 0));

    let (mut p, room, first) = rated_match(
        addr,
        &url,
        &["alice", "bobby"],
        "nimrod",
        json!({"piles": [3, 5]}),
    )
    .await;
    let last = play_out_first_legal(&mut p, &room, first).await;
    // The end of the match tells each player's change, as `play` shows it.
    let told = ratings::changes(&last[0]).expect("the change at the end");
    assert!(told.starts_with("Ratings: "), "{told}");
    assert!(told.contains("1500 -> "), "{told}");
    let names = ["north", "east", "south", "west"];
    let (mut p, room, first) = rated_match(addr, &url, &names, "cribbage", json!({})).await;
    play_out_first_legal(&mut p, &room, first).await;
    let names = ["ann", "ben", "cat"];
    let (mut p, room, first) =
        rated_match(addr, &url, &names, "rummikub", json!({"empty_bag": "pass"})).await;
    play_out_first_legal(&mut p, &room, first).await;

    let lines = read_ledger(addr, None).await;
    assert_eq!(lines.len(), 3);
    let v = verify_server(&url, None).await.unwrap().unwrap();
    assert_eq!((v.lines, v.players, v.matches), (3, 9, 3));
    assert_eq!(
        v.head,
        LedgerHead {
            n: 3,
            hash: lines[2].hash.clone()
        }
    );
    let v = verify_server(&url, Some("cribbage"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((v.lines, v.matches), (3, 1));

    // A player's page as `parlor player` shows it: provisional after one
    // game, the change of the rated game.
    let a = api::get(&url, "/api/players/alice", 1 << 20).await.unwrap();
    assert_eq!(a.status, 200);
    let page: PlayerPage = serde_json::from_slice(&a.body).unwrap();
    let text = player(&page, &Zone::utc());
    let line = &lines[0];
    let alice = line.players.iter().find(|x| x.name == "alice").unwrap();
    let shown = ratings::shown(alice.after.rating, alice.after.rd);
    assert!(shown.ends_with('?'), "{shown}");
    assert!(text.contains(&format!("nimrod  {shown}")), "{text}");
    let change = ratings::change(alice.before.rating, alice.after.rating);
    assert!(text.contains(&change), "{text}");
    assert!(text.contains("1/2") || text.contains("2/2"), "{text}");
    // Every rating is provisional: the leaderboard is empty, and says so.
    let a = api::get(&url, "/api/leaderboard/nimrod?kind=bot&limit=5", 1 << 20)
        .await
        .unwrap();
    let board: Leaderboard = serde_json::from_slice(&a.body).unwrap();
    assert!(ratings::leaderboard(&board).starts_with("No established ratings in nimrod"));
    let missing = api::get(&url, "/api/players/nobody-here", 1 << 20)
        .await
        .unwrap();
    assert_eq!(missing.status, 404);
    assert!(missing.refusal().starts_with("account/not_found"));
    server.stop().await.unwrap();
}
