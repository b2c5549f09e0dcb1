//! `parlor play` as a person uses it, through the binary: typed lines in,
//! the board out.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::session;

use parlor_cli::Client;
use parlor_games::Seat;
use parlor_protocol::{ClientMsg, ServerMsg, Update};
use parlor_server::{Config, Server};
use serde_json::json;
use session::Session;

fn server(rt: &tokio::runtime::Runtime) -> Server {
    rt.block_on(Server::start(([127, 0, 0, 1], 0).into(), Config::default()))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The next update of the client's room that satisfies `want`.
async fn update_where(c: &mut Client, want: impl Fn(&Update) -> bool) -> Update {
    loop {
        if let ServerMsg::Update(u) = c.recv().await.unwrap_or_else(|e| panic!("{e}")) {
            if want(&u) {
                return u;
            }
        }
    }
}

#[test]
fn lines_typed_out_of_turn_are_dropped_and_never_played_later() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&[
        "play",
        "nimrod",
        "--server",
        &url,
        "--vs",
        "none",
        "--seat",
        "1",
        "--options",
        r#"{"piles":[5,9]}"#,
    ]);
    let created = p.expect("Created room ");
    let room = created
        .trim_start_matches("Created room ")
        .trim_end_matches('.')
        .to_owned();
    // The printed commands can be copied as they are: they name the server.
    let join = p.expect("they join with");
    assert!(
        join.contains(&format!("--room {room} --server {url}")),
        "{join}"
    );
    let resume = p.expect("To come back to your seat");
    assert!(resume.contains(&format!("--server {url}")), "{resume}");

    let mut other = rt.block_on(Client::connect(&url, "other")).unwrap();
    let room_id = parlor_protocol::RoomId::new(&room).unwrap();
    rt.block_on(other.request(
        &ClientMsg::Join {
            room: room_id.clone(),
            seat: Some(Seat(0)),
            client_seed: None,
        },
        |m| matches!(m, ServerMsg::Joined { .. }).then_some(()),
    ))
    .unwrap();
    p.expect("Waiting for other (guest)");
    // Typed while the other thinks: refused at once, and forgotten.
    p.send("a 1");
    let said = p.expect("Not your turn");
    assert!(said.contains("a 1"), "{said}");
    rt.block_on(other.send(&ClientMsg::Play {
        room: room_id.clone(),
        seat: Seat(0),
        seq: 0,
        mv: json!({"take": [1, 0]}),
    }))
    .unwrap();
    p.expect("Your move");
    p.send("b 2");
    let u = rt.block_on(update_where(&mut other, |u| u.seq == 2));
    assert_eq!(
        u.view["last"],
        json!({"seat": 1, "take": [0, 2]}),
        "the move typed on the player's turn, not the one typed before"
    );
    // Seat 0 resigns: the game ends and so does the command.
    rt.block_on(other.send(&ClientMsg::Leave { room: room_id }))
        .unwrap();
    // A win by the other seat's leaving, said so.
    p.expect("You win! (by forfeit)");
    assert!(p.wait_exit().success(), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_loss_on_time_is_counted_down_told_and_ends_the_command_at_once() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&[
        "play",
        "nimrod",
        "--server",
        &url,
        "--move-time",
        "12",
        "--options",
        r#"{"piles":[5,9]}"#,
    ]);
    p.expect("Your move");
    let have = p.expect("You have ");
    assert!(have.ends_with(" to move."), "{have}");
    p.expect("10 seconds left to move.");
    p.expect("5 seconds left to move.");
    let told = p.expect("You ran out of time");
    assert!(told.contains("you lose"), "{told}");
    // The result says how: on time.
    p.expect("optimal bot won on time. You lose.");
    // Standard input is still open: the command must not wait for a line.
    let status = p.wait_exit();
    assert!(status.success(), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_server_shutting_down_on_the_players_turn_ends_the_command_at_once() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&["play", "nimrod", "--server", &url]);
    p.expect("Your move");
    rt.block_on(server.stop()).unwrap();
    let status = p.wait_exit();
    assert_eq!(status.code(), Some(2), "{}", p.transcript);
    assert!(
        p.transcript.contains("The server is shutting down"),
        "{}",
        p.transcript
    );
    assert!(
        p.transcript.contains("parlor play nimrod --resume"),
        "{}",
        p.transcript
    );
    assert!(p.transcript.contains(&format!("--server {url}")));
}

#[test]
fn a_move_the_clock_played_is_told() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&["play", "cribbage", "--server", &url, "--move-time", "2"]);
    p.expect("Throw to the crib");
    let told = p.expect("You ran out of time");
    assert!(
        told.contains("a move was played for you: you threw"),
        "{}",
        p.transcript
    );
    drop(p);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn nimrod_piles_keep_their_place_on_screen() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&[
        "play",
        "nimrod",
        "--server",
        &url,
        "--options",
        r#"{"piles":[5,9]}"#,
    ]);
    p.expect("Your move");
    // 5 and 3 left: the server now calls the 3 its pile A; the screen
    // keeps the 5 as A.
    p.send("b 6");
    p.expect("Pile A    5");
    p.expect("Pile B    3");
    p.expect("Last move: you took 6 rods from pile B");
    // The optimal bot, in a lost position, takes 1 from the greater pile:
    // the 5, which is pile A here.
    // Named, not numbered: the seat's holder is the optimal bot.
    p.expect("Last move: optimal bot took 1 rod from pile A");
    p.expect("Your move");
    assert!(p.transcript.contains("Pile A    4"), "{}", p.transcript);
    // `quit` leaves, keeping the seat; the command printed to come back
    // works as printed.
    p.send("quit");
    p.expect("your seat stays yours");
    let again = p.expect("To come back to your seat: ");
    assert!(p.wait_exit().success());
    let words: Vec<&str> = again
        .trim_start_matches("To come back to your seat: parlor ")
        .split_whitespace()
        .collect();
    let mut back = Session::start(&words);
    back.expect("You are seat 0");
    back.expect("Your move");
    back.send("quit");
    assert!(back.wait_exit().success(), "{}", back.transcript);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn refusals_are_told_in_the_games_words_and_codes_only_when_verbose() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    for verbose in [false, true] {
        let mut args = vec![
            "play",
            "nimrod",
            "--server",
            &url,
            "--options",
            r#"{"piles":[1,2]}"#,
        ];
        if verbose {
            args.push("--verbose");
        }
        let mut p = Session::start(&args);
        p.expect("Your move");
        p.send("both 5");
        let said = p.expect("Refused:");
        assert!(
            said.contains("pile A has only 1 rod, so you cannot take 5"),
            "{said}"
        );
        assert_eq!(said.contains("[action/illegal_move]"), verbose, "{said}");
        p.send("0 0");
        let said = p.expect("Refused:");
        assert!(said.contains("take rods from one pile"), "{said}");
        assert!(!said.contains("[0, 0]"), "{said}");
        p.send("a 1");
        p.expect("You lose.");
        assert!(p.wait_exit().success());
    }
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn in_game_commands_and_ctrl_c() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&[
        "play",
        "nimrod",
        "--server",
        &url,
        "--options",
        r#"{"piles":[5,9]}"#,
    ]);
    p.expect("Your move");
    p.send("help");
    p.expect("In a game, type `help`");
    p.send("last");
    p.expect("No move has been played yet.");
    p.send("a 1");
    p.expect("Last move: optimal bot");
    p.expect("Your move");
    p.send("last");
    p.expect("move 1: you took 1 rod from pile A");
    p.expect("move 2: optimal bot took");
    p.interrupt();
    p.expect("Leave the game?");
    p.send("");
    p.expect("Playing on.");
    p.interrupt();
    p.expect("Leave the game?");
    p.send("resign");
    p.expect("You resign.");
    p.expect("optimal bot won by forfeit. You lose.");
    assert!(p.wait_exit().success());
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_private_server_says_plainly_that_its_games_cannot_be_resumed() {
    let mut p = Session::start(&["play", "nimrod", "--private"]);
    p.expect("cannot be resumed");
    p.expect("Your move");
    p.send("quit");
    let status = p.wait_exit();
    assert!(status.success());
    assert!(!p.transcript.contains("--resume"), "{}", p.transcript);
}

#[test]
fn cribbage_shows_the_show_whose_crib_partners_and_who_laid_each_card() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&["play", "cribbage", "--server", &url, "--seats", "4"]);
    let mut show = None;
    while let Some(line) = p.next_line() {
        if line.starts_with("Throw to the crib") || line.starts_with("Lay a card") {
            p.send("1");
        }
        if line.contains("-- The show of hand 1") {
            show = Some(line);
            break;
        }
    }
    assert!(show.is_some(), "{}", p.transcript);
    // The show: four hands then the crib, labelled, with their totals.
    let mut hands = 0;
    let crib = loop {
        let line = p.next_line().unwrap();
        if line.contains(" hand: ") {
            hands += 1;
        }
        if line.contains("crib") && line.contains(" = ") {
            break line;
        }
    };
    assert_eq!(hands, 4, "{}", p.transcript);
    assert!(
        crib.contains("Your crib")
            || crib.contains("Your partner's (expert bot, seat 2) crib")
            || crib.contains("expert bot, seat 1's crib")
            || crib.contains("expert bot, seat 3's crib"),
        "{crib}"
    );
    let t = p.transcript.clone();
    assert!(t.contains("you & partner (expert bot, seat 2)"), "{t}");
    assert!(t.contains("seat 2 (expert bot), your partner"), "{t}");
    assert!(t.contains("Last move: "), "{t}");
    assert!(t.contains(" · laid: "), "{t}");
    // Another seat's throw is one line, not the board and its scores again.
    assert!(
        t.lines()
            .any(|l| l.starts_with("  expert bot, seat ")
                && l.ends_with(" threw a card to the crib.")),
        "{t}"
    );
    // Whose crib it is, on the hand's line or (long names) the next.
    let lines: Vec<&str> = t.lines().collect();
    assert!(
        lines.windows(2).any(|w| w[0].contains("Hand 1 · ")
            && (w[0].contains("crib") || w[1].trim_start().contains("crib"))),
        "{t}"
    );
    for l in t
        .lines()
        .filter(|l| l.starts_with("==") || l.starts_with("  "))
    {
        assert!(l.chars().count() <= 80, "{l}");
    }
    drop(p);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn rummikub_speaks_of_groups_runs_and_blocks_not_of_its_encoding() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&["play", "rummikub", "--server", &url]);
    let (mut refused, mut bot_moves) = (false, 0);
    while !(refused && bot_moves >= 3) {
        let Some(line) = p.next_line() else { break };
        if line.starts_with("Your move:") {
            // Drawing while a block can be laid is refused; then lay one.
            p.send("draw");
        }
        if line.starts_with("Refused: you can still play, so you may not draw: for example, ") {
            refused = true;
            p.send("1");
        }
        if let Some(what) = line.strip_prefix("  Last move: greedy bot ") {
            bot_moves += 1;
            let verb = what.split(' ').next().unwrap_or_default();
            assert!(
                ["laid", "added", "drew", "passed"].contains(&verb),
                "{line}"
            );
        }
        if line.contains(" won.") || line.contains("draw.") {
            break;
        }
    }
    assert!(refused && bot_moves > 0, "{}", p.transcript);
    for word in ["playrow", "playblock", "nrow", "crow", "illegal_move"] {
        assert!(!p.transcript.contains(word), "{word}: {}", p.transcript);
    }
    drop(p);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_waiting_room_shows_no_deal_and_the_seat_shows_the_players_name() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let mut p = Session::start(&[
        "play", "nimrod", "--server", &url, "--vs", "none", "--name", "alice",
    ]);
    let created = p.expect("Created room ");
    let room = created
        .trim_start_matches("Created room ")
        .trim_end_matches('.')
        .to_owned();
    // Waiting: what it waits for, and no piles (they are dealt from every
    // player's seed when the last seat is taken, and would not be these).
    let header = p.expect("== nimrod");
    assert!(header.contains("you (alice)"), "{header}");
    assert!(!header.contains("anonymous"), "{header}");
    p.expect("Waiting for players: seat 1 is free.");
    p.expect("The piles: dealt when every seat is taken.");
    assert!(!p.transcript.contains("Pile A"), "{}", p.transcript);

    let mut other = rt.block_on(Client::connect(&url, "bob")).unwrap();
    let room_id = parlor_protocol::RoomId::new(&room).unwrap();
    rt.block_on(other.request(
        &ClientMsg::Join {
            room: room_id.clone(),
            seat: Some(Seat(1)),
            client_seed: None,
        },
        |m| matches!(m, ServerMsg::Joined { .. }).then_some(()),
    ))
    .unwrap();
    // Every seat taken: the deal is made, and now the piles show.
    let header = p.expect("== nimrod");
    assert!(header.contains("you (alice)"), "{header}");
    assert!(header.contains("seat 1 (bob, guest)"), "{header}");
    p.expect("Pile A");
    p.expect("Your move");
    rt.block_on(other.send(&ClientMsg::Leave { room: room_id }))
        .unwrap();
    // A win by the other seat's leaving, said so.
    p.expect("You win! (by forfeit)");
    assert!(p.wait_exit().success(), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn abort_ends_the_game_without_a_result_only_before_ones_first_move() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = server(&rt);
    let url = server.url();
    let args = [
        "play",
        "nimrod",
        "--server",
        &url,
        "--options",
        r#"{"piles":[5,9]}"#,
    ];
    // Before our first move: the match ends, aborted, and so does the command.
    let mut p = Session::start(&args);
    p.expect("Your move");
    p.send("/abort");
    p.expect("You abort the match.");
    p.expect("The match was aborted: it has no result and does not count.");
    assert!(p.wait_exit().success(), "{}", p.transcript);
    // After it: refused here, the game goes on, and resigning still ends it.
    let mut p = Session::start(&args);
    p.expect("Your move");
    p.send("a 1");
    p.expect("Last move: optimal bot");
    p.expect("Your move");
    p.send("/abort");
    p.expect("The match cannot be aborted now");
    p.send("resign");
    p.expect("optimal bot won by forfeit. You lose.");
    assert!(p.wait_exit().success(), "{}", p.transcript);
    rt.block_on(server.stop()).unwrap();
}
