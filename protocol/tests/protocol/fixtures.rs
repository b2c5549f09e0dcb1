//! Golden JSON fixtures: every message the protocol has, as it travels.
//!
//! Each file in `fixtures/client` must decode as a `ClientMsg` and each file
//! in `fixtures/server` as a `ServerMsg`; encoding the message again must
//! give back the same JSON (compared as values, so key order and spacing
//! do not matter but every field name and shape does). The protocol
//! reference, `docs/protocol/` (every chapter), is checked too: it lists
//! every error code with its meaning, and every message example in it
//! decodes.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;

use parlor_protocol::{
    decode_client, decode_server, encode, ClientMsg, ErrorCode, LogEntry, LoggedAction, ServerMsg,
    CLIENT_TYPES,
};
use serde_json::{json, Value};

use crate::reference::{self, Direction};

/// Every `type` the server sends. Adding a `ServerMsg` variant breaks the
/// exhaustive match in [`server_type`]; add the name here and a fixture.
pub const SERVER_TYPES: &[&str] = &[
    "welcome",
    "resumed",
    "rooms",
    "room_created",
    "joined",
    "spectating",
    "bot_added",
    "left",
    "update",
    "presence",
    "log",
    "analysis",
    "pong",
    "error",
    "seeking",
    "seek_ended",
    "matched",
    "tournament_game",
    "tournament_created",
    "tournament_joined",
    "tournament_left",
    "tournament_cancelled",
    "ladder_game",
    "ladder_joined",
    "ladder_left",
    "challenge_made",
    "challenge_ended",
    "rematch_offered",
    "rematch_started",
    "games",
    "your_turn",
    "said",
    "chat_history",
];

/// The wire name of a client message's variant (exhaustive on purpose).
fn client_type(m: &ClientMsg) -> &'static str {
    match m {
        ClientMsg::Hello { .. } => "hello",
        ClientMsg::Resume { .. } => "resume",
        ClientMsg::ListRooms { .. } => "list_rooms",
        ClientMsg::CreateRoom { .. } => "create_room",
        ClientMsg::Join { .. } => "join",
        ClientMsg::Spectate { .. } => "spectate",
        ClientMsg::AddBot { .. } => "add_bot",
        ClientMsg::Play { .. } => "play",
        ClientMsg::Leave { .. } => "leave",
        ClientMsg::Abort { .. } => "abort",
        ClientMsg::GetLog { .. } => "get_log",
        ClientMsg::Analyze { .. } => "analyze",
        ClientMsg::Ping { .. } => "ping",
        ClientMsg::Seek { .. } => "seek",
        ClientMsg::CancelSeek { .. } => "cancel_seek",
        ClientMsg::Challenge { .. } => "challenge",
        ClientMsg::CancelChallenge { .. } => "cancel_challenge",
        ClientMsg::Accept { .. } => "accept",
        ClientMsg::Decline { .. } => "decline",
        ClientMsg::Rematch { .. } => "rematch",
        ClientMsg::MyGames => "my_games",
        ClientMsg::CreateTournament(_) => "create_tournament",
        ClientMsg::JoinTournament { .. } => "join_tournament",
        ClientMsg::LeaveTournament { .. } => "leave_tournament",
        ClientMsg::LadderJoin { .. } => "ladder_join",
        ClientMsg::LadderLeave { .. } => "ladder_leave",
        ClientMsg::Seed { .. } => "seed",
        ClientMsg::Say { .. } => "say",
    }
}

/// The wire name of a server message's variant (exhaustive on purpose).
fn server_type(m: &ServerMsg) -> &'static str {
    match m {
        ServerMsg::Welcome { .. } => "welcome",
        ServerMsg::Resumed { .. } => "resumed",
        ServerMsg::Rooms { .. } => "rooms",
        ServerMsg::RoomCreated { .. } => "room_created",
        ServerMsg::Joined { .. } => "joined",
        ServerMsg::Spectating { .. } => "spectating",
        ServerMsg::BotAdded { .. } => "bot_added",
        ServerMsg::Left { .. } => "left",
        ServerMsg::Update(_) => "update",
        ServerMsg::Presence { .. } => "presence",
        ServerMsg::Log(_) => "log",
        ServerMsg::Analysis { .. } => "analysis",
        ServerMsg::Pong { .. } => "pong",
        ServerMsg::Error { .. } => "error",
        ServerMsg::Seeking { .. } => "seeking",
        ServerMsg::SeekEnded { .. } => "seek_ended",
        ServerMsg::Matched { .. } => "matched",
        ServerMsg::TournamentGame(_) => "tournament_game",
        ServerMsg::TournamentCreated { .. } => "tournament_created",
        ServerMsg::TournamentJoined { .. } => "tournament_joined",
        ServerMsg::TournamentLeft { .. } => "tournament_left",
        ServerMsg::TournamentCancelled { .. } => "tournament_cancelled",
        ServerMsg::LadderGame(_) => "ladder_game",
        ServerMsg::LadderJoined { .. } => "ladder_joined",
        ServerMsg::LadderLeft { .. } => "ladder_left",
        ServerMsg::ChallengeMade(_) => "challenge_made",
        ServerMsg::ChallengeEnded { .. } => "challenge_ended",
        ServerMsg::RematchOffered { .. } => "rematch_offered",
        ServerMsg::RematchStarted { .. } => "rematch_started",
        ServerMsg::Games { .. } => "games",
        ServerMsg::YourTurn { .. } => "your_turn",
        ServerMsg::Said { .. } => "said",
        ServerMsg::ChatHistory { .. } => "chat_history",
    }
}

/// `(file name, contents)` of every `.json` file in `fixtures/<side>`, by name.
pub fn fixtures(side: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(side);
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("{e}")).path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (name, text)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

fn json_of(what: &str, text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON: {e}"))
}

fn type_of<'a>(what: &str, v: &'a Value) -> &'a str {
    v.get("type")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{what} has no \"type\""))
}

/// Decodes `text` as a client message and checks that it encodes back to
/// the same JSON; returns its type.
fn client_round_trip(what: &str, text: &str) -> &'static str {
    let msg = decode_client(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let again = json_of(what, &encode(&msg));
    assert_eq!(again, json_of(what, text), "{what} does not round-trip");
    let kind = client_type(&msg);
    assert_eq!(type_of(what, &again), kind, "{what}");
    kind
}

/// Decodes `text` as a server message and checks that it encodes back to
/// the same JSON; returns its type.
fn server_round_trip(what: &str, text: &str) -> &'static str {
    let msg = decode_server(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let again = json_of(what, &encode(&msg));
    assert_eq!(again, json_of(what, text), "{what} does not round-trip");
    let kind = server_type(&msg);
    assert_eq!(type_of(what, &again), kind, "{what}");
    kind
}

#[test]
fn client_fixtures_round_trip_and_cover_every_type() {
    let mut seen = BTreeSet::new();
    for (name, text) in fixtures("client") {
        seen.insert(client_round_trip(&format!("client/{name}"), &text));
    }
    let known: BTreeSet<&str> = CLIENT_TYPES.iter().copied().collect();
    assert_eq!(
        known.len(),
        CLIENT_TYPES.len(),
        "CLIENT_TYPES repeats a name"
    );
    let missing: Vec<_> = known.difference(&seen).collect();
    assert!(missing.is_empty(), "no client fixture for {missing:?}");
    let unknown: Vec<_> = seen.difference(&known).collect();
    assert!(unknown.is_empty(), "{unknown:?} are not in CLIENT_TYPES");
}

#[test]
fn server_fixtures_round_trip_and_cover_every_type() {
    let mut seen = BTreeSet::new();
    for (name, text) in fixtures("server") {
        seen.insert(server_round_trip(&format!("server/{name}"), &text));
    }
    let known: BTreeSet<&str> = SERVER_TYPES.iter().copied().collect();
    assert_eq!(
        known.len(),
        SERVER_TYPES.len(),
        "SERVER_TYPES repeats a name"
    );
    let missing: Vec<_> = known.difference(&seen).collect();
    assert!(missing.is_empty(), "no server fixture for {missing:?}");
    let unknown: Vec<_> = seen.difference(&known).collect();
    assert!(unknown.is_empty(), "{unknown:?} are not in SERVER_TYPES");
}

#[test]
fn update_fixtures_hold_views_and_moves_of_their_game() {
    // The envelope carries a game's view and moves as plain JSON; each
    // must also be what its game reads, so that the fixtures document
    // real encodings.
    let mut checked = 0;
    for (name, text) in fixtures("server") {
        let Ok(ServerMsg::Update(u)) = decode_server(&text) else {
            continue;
        };
        let view = u
            .game
            .parse_view(&u.view)
            .unwrap_or_else(|e| panic!("server/{name}: {e}"));
        // Written back, the view is the fixture's: no field the game
        // sends is missing from it, and none is made up.
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            u.view,
            "server/{name}: the view is not as its game writes it"
        );
        for mv in u.legal.iter().flatten() {
            u.game
                .parse_move(mv)
                .unwrap_or_else(|e| panic!("server/{name}: {e}"));
        }
        checked += 1;
    }
    assert!(checked > 5, "only {checked} update fixtures");
}

/// The game a `play` fixture's move belongs to: the word after `play_` in
/// its file name when that names a game, else Nimrod (the first fixtures
/// predate the other games and carry no game in their names).
fn play_fixture_game(name: &str) -> parlor_games::GameKind {
    parlor_games::GameKind::ALL
        .iter()
        .copied()
        .find(|g| name.starts_with(&format!("play_{}", g.name())))
        .unwrap_or(parlor_games::GameKind::Nimrod)
}

#[test]
fn client_fixtures_hold_options_and_moves_of_their_game() {
    // A `create_room` fixture must be options its game accepts, seat
    // count included (the game's own setup validates them), and a `play`
    // fixture's move one its game reads; every game has both.
    let mut created = BTreeSet::new();
    let mut played = BTreeSet::new();
    for (name, text) in fixtures("client") {
        match decode_client(&text).unwrap_or_else(|e| panic!("client/{name}: {e}")) {
            ClientMsg::CreateRoom {
                game,
                seats,
                options,
                ..
            } => {
                let seats = seats.unwrap_or(game.seat_range().0);
                game.parse_config(&options)
                    .unwrap_or_else(|e| panic!("client/{name}: {e}"));
                game.setup(&options, seats, &mut parlor_games::GameRng::from_seed(0))
                    .unwrap_or_else(|e| panic!("client/{name}: {e}"));
                created.insert(game);
            }
            ClientMsg::Play { mv, .. } => {
                let game = play_fixture_game(&name);
                game.parse_move(&mv)
                    .unwrap_or_else(|e| panic!("client/{name}: {e}"));
                played.insert(game);
            }
            _ => {}
        }
    }
    for game in parlor_games::GameKind::ALL {
        assert!(created.contains(game), "no create_room fixture for {game}");
        assert!(played.contains(game), "no play fixture for {game}");
    }
}

#[test]
fn every_game_has_updates_for_a_seat_a_spectator_and_an_ending_and_a_refusal() {
    let mut seat_turn = BTreeSet::new();
    let mut spectator = BTreeSet::new();
    let mut ended = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for (name, text) in fixtures("server") {
        match decode_server(&text).unwrap_or_else(|e| panic!("server/{name}: {e}")) {
            ServerMsg::Update(u) => {
                if u.you.is_some() && u.legal.is_some() {
                    seat_turn.insert(u.game);
                }
                if u.you.is_none() {
                    spectator.insert(u.game);
                }
                if u.outcome.is_some() {
                    ended.insert(u.game);
                }
            }
            ServerMsg::Error {
                code: ErrorCode::ActionIllegalMove,
                ..
            } => {
                // Refusals carry no game; the file name says which.
                if let Some(game) = parlor_games::GameKind::ALL
                    .iter()
                    .find(|g| name.contains(&format!("_{}", g.name())))
                {
                    refused.insert(*game);
                } else {
                    refused.insert(parlor_games::GameKind::Nimrod);
                }
            }
            _ => {}
        }
    }
    for game in parlor_games::GameKind::ALL {
        assert!(
            seat_turn.contains(game),
            "no update of {game} for a seat to act"
        );
        assert!(spectator.contains(game), "no spectator's update of {game}");
        assert!(ended.contains(game), "no finished update of {game}");
        assert!(refused.contains(game), "no illegal_move fixture for {game}");
    }
}

#[test]
fn client_and_server_types_are_disjoint() {
    // The reference's check below tells the two sides apart by `type` alone.
    for t in CLIENT_TYPES {
        assert!(!SERVER_TYPES.contains(t), "{t} is on both sides");
    }
}

#[test]
fn shapes_no_nimrod_fixture_shows_are_pinned_too() {
    // Nimrod has no default move on timeout and no draws, so no fixture
    // shows these; pin their encoding here.
    let entry = LogEntry {
        seq: 4,
        seat: parlor_games::Seat(1),
        action: LoggedAction::TimeoutMove(json!({"take": [0, 1]})),
    };
    assert_eq!(
        serde_json::to_value(&entry).unwrap(),
        json!({"seq": 4, "seat": 1, "action": {"timeout_move": {"take": [0, 1]}}})
    );
    assert_eq!(
        serde_json::to_value(parlor_games::Outcome::Draw).unwrap(),
        json!({"result": "draw"})
    );
}

/// The reference's table row for `code`.
fn error_row(code: ErrorCode) -> String {
    format!("| `{}` | {} |", code.as_str(), code.meaning())
}

/// The codes in the first column of the error table (the chapter
/// `errors.md`, section 17), in order.
fn error_table_codes(doc: &str) -> Vec<String> {
    doc.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` |").map(|(code, _)| code.to_owned()))
        .collect()
}

#[test]
fn the_error_table_lists_only_known_codes_once() {
    // The other direction of the check below: the table holds no stale
    // or misspelt code, and no code twice, so both transports' codes
    // (WebSocket and HTTP API) are documented exactly once.
    let doc = reference::chapter("errors.md").text;
    assert!(
        doc.starts_with("# 17. Error codes"),
        "errors.md is not section 17"
    );
    let listed = error_table_codes(&doc);
    assert_eq!(listed.len(), ErrorCode::ALL.len(), "{listed:?}");
    let mut seen = std::collections::HashSet::new();
    for code in &listed {
        assert!(
            code.parse::<ErrorCode>().is_ok(),
            "errors.md lists {code}, which is not an ErrorCode"
        );
        assert!(seen.insert(code), "errors.md lists {code} twice");
    }
}

#[test]
fn the_error_table_lists_every_error_code_with_its_meaning() {
    let doc = reference::chapter("errors.md").text;
    for &code in ErrorCode::ALL {
        assert!(
            doc.contains(&error_row(code)),
            "errors.md's error table lacks the row\n{}",
            error_row(code)
        );
    }
}

#[test]
fn the_references_examples_are_valid_messages() {
    let mut checked = 0;
    for chapter in reference::chapters() {
        // Every ```json block holds one JSON value; those with a message
        // `type` must decode and round-trip.
        for block in reference::json_blocks(&chapter) {
            let v = json_of(&block.what, &block.text);
            match v.get("type").and_then(Value::as_str) {
                Some(t) if CLIENT_TYPES.contains(&t) => {
                    client_round_trip(&block.what, &block.text);
                }
                Some(t) if SERVER_TYPES.contains(&t) => {
                    server_round_trip(&block.what, &block.text);
                }
                _ => {}
            }
            checked += 1;
        }
        // Transcript lines in ```text blocks: `who → {...}` is a client
        // frame, `who ← {...}` a server frame.
        for (direction, frame) in reference::transcript_frames(&chapter) {
            match direction {
                Direction::FromClient => client_round_trip(&frame.what, &frame.text),
                Direction::FromServer => server_round_trip(&frame.what, &frame.text),
            };
            checked += 1;
        }
    }
    assert!(
        checked > 40,
        "only {checked} examples found in docs/protocol/"
    );
}

/// Whether `v` is one of `game`'s own encodings: a view, a move, a list
/// of moves, or options (read and validated by the game's setup).
fn is_game_encoding(game: parlor_games::GameKind, v: &Value) -> bool {
    if game.parse_view(v).is_ok() || game.parse_move(v).is_ok() {
        return true;
    }
    if let Some(list) = v.as_array() {
        if !list.is_empty() && list.iter().all(|m| game.parse_move(m).is_ok()) {
            return true;
        }
    }
    let (min, max) = game.seat_range();
    v.is_object()
        && game.parse_config(v).is_ok()
        && (min..=max).any(|seats| {
            game.setup(v, seats, &mut parlor_games::GameRng::from_seed(0))
                .is_ok()
        })
}

/// A game's own chapter (`rummikub.md`, ...) shows views, moves and
/// options as bare JSON; each must be what that game reads, so that a bot
/// written from the reference speaks the real encodings.
#[test]
fn the_game_chapters_show_real_views_moves_and_options() {
    let mut checked = BTreeSet::new();
    for chapter in reference::chapters() {
        let Some(game) = parlor_games::GameKind::ALL
            .iter()
            .copied()
            .find(|g| chapter.name == format!("{}.md", g.name()))
        else {
            continue;
        };
        for block in reference::json_blocks(&chapter) {
            let v = json_of(&block.what, &block.text);
            if v.get("type").is_none() {
                assert!(
                    is_game_encoding(game, &v),
                    "{} is not a {game} view, move, list of moves or options",
                    block.what
                );
                checked.insert(game);
            }
        }
    }
    for g in parlor_games::GameKind::ALL {
        assert!(
            checked.contains(g),
            "the chapter of {g} shows no bare view or move"
        );
    }
}

/// The bots are named once, in the games; the document lists them by
/// hand, so it is checked against `GameKind::strategies`, default first.
#[test]
fn the_reference_names_every_built_in_bot_in_order() {
    let doc = reference::chapter("rooms.md").text;
    let at = doc.find("## 11. Built-in bots").expect("section 11");
    let section = &doc[at..];
    let section = &section[..section.find("\n## 12.").unwrap_or(section.len())];
    for &game in parlor_games::GameKind::ALL {
        let mut from = 0;
        for name in game.strategies() {
            let quoted = format!("`{name}`");
            let found = section[from..].find(&quoted);
            assert!(
                found.is_some(),
                "section 11 lacks {game}'s {quoted} (after byte {from})"
            );
            from += found.unwrap_or(0) + quoted.len();
        }
    }
}

/// Prints the reference's error table: `cargo test -p parlor-protocol --test
/// protocol -- --ignored --nocapture fixtures::print_error_table`.
#[test]
#[ignore]
fn print_error_table() {
    println!("| Code | Meaning |\n|---|---|");
    for &code in ErrorCode::ALL {
        println!("{}", error_row(code));
    }
}
