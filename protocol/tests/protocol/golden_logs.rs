//! Golden match logs: stored matches must replay exactly, whatever
//! dependency is upgraded.
//!
//! Each file in `data/golden_logs/` holds one match log, as `get_log`
//! returns it, and the views every seat and a spectator had after its last
//! step, as JSON text. The test replays the log with
//! [`parlor_protocol::replay`] (every step must be accepted), checks the
//! outcome against the logged one and compares each view byte for byte.
//! A change to a deal, a draw, a rule or a view's wire form shows up here.
//!
//! The files were written by this test's generator (run with
//! `PARLOR_BLESS_GOLDEN_LOGS=1`): built-in bots with a fixed RNG chose the
//! steps of each [`Case`]. The data folder's README says more. Never
//! regenerate to make a failure pass: a stored match that replays
//! differently is the bug this test exists to catch.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use parlor_games::{AnyGame, DealSecret, GameKind, GameRng, Seat, Viewer};
use parlor_protocol::{
    replay, Closed, Deal, LogEntry, LoggedAction, MatchHeader, MatchLog, RoomId,
};
use serde_json::{json, Value};

/// Set to regenerate the files instead of checking them.
const BLESS_VAR: &str = "PARLOR_BLESS_GOLDEN_LOGS";

/// The note every file carries.
const NOTE: &str = "Written by protocol/tests/golden_logs.rs with PARLOR_BLESS_GOLDEN_LOGS=1: built-in bots with a fixed RNG chose the steps. `views` are every seat's then the spectator's view after the last step, as JSON text, compared byte for byte. Never regenerate to make a failure pass: a change here changes how stored matches replay.";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden_logs")
}

/// Where a case's chance comes from.
#[derive(Clone, Copy)]
enum Chance {
    /// A fair deal: the server seed and salt are derived from `pattern`
    /// (see [`deal`]), with these client seeds.
    Deal {
        pattern: u8,
        client_seeds: &'static [Option<&'static str>],
    },
    /// A match stored before fair dealing: its `u64` seed.
    Legacy(u64),
}

/// One frozen match and how the generator plays it.
struct Case {
    /// The file's name, without `.json`.
    name: &'static str,
    game: GameKind,
    options: fn() -> Value,
    seats: u8,
    chance: Chance,
    /// Each seat's built-in strategy.
    bots: &'static [&'static str],
    /// Seed of the bots' own RNG (their choices are logged, so it only
    /// matters when regenerating).
    bot_seed: u64,
    /// Most steps the bots play; a match still on after them is left
    /// unfinished (closed as abandoned) unless `forfeit` ends it.
    max_steps: usize,
    /// The step (by index) played as the game's timeout move instead of
    /// the bot's choice, where the game has one.
    timeout_at: Option<usize>,
    /// The seat that resigns after `max_steps`, if the match is still on.
    forfeit: Option<Seat>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "nimrod-2-random-piles",
            game: GameKind::Nimrod,
            options: || json!({"random": {"min": 20, "max": 60}}),
            seats: 2,
            chance: Chance::Deal {
                pattern: 1,
                client_seeds: &[Some("alice-7f3a"), None],
            },
            bots: &["simple", "optimal"],
            bot_seed: 11,
            max_steps: 500,
            timeout_at: None,
            forfeit: None,
        },
        Case {
            name: "rummikub-2",
            game: GameKind::Rummikub,
            options: || Value::Null,
            seats: 2,
            chance: Chance::Deal {
                pattern: 2,
                client_seeds: &[None, Some("b0b")],
            },
            bots: &["greedy", "random"],
            bot_seed: 12,
            max_steps: 500,
            timeout_at: None,
            forfeit: None,
        },
        Case {
            name: "rummikub-4",
            game: GameKind::Rummikub,
            options: || json!({"rack_size": 7}),
            seats: 4,
            chance: Chance::Deal {
                pattern: 3,
                client_seeds: &[Some("carol"), None, Some("d-4_x"), None],
            },
            bots: &["greedy", "random", "greedy", "random"],
            bot_seed: 13,
            max_steps: 500,
            timeout_at: None,
            forfeit: None,
        },
        Case {
            name: "cribbage-2-partial",
            game: GameKind::Cribbage,
            options: || Value::Null,
            seats: 2,
            chance: Chance::Deal {
                pattern: 4,
                client_seeds: &[Some("erin"), Some("frank")],
            },
            bots: &["expert", "seed"],
            bot_seed: 14,
            max_steps: 60,
            timeout_at: Some(1),
            forfeit: None,
        },
        Case {
            name: "cribbage-3-forfeit",
            game: GameKind::Cribbage,
            options: || Value::Null,
            seats: 3,
            chance: Chance::Deal {
                pattern: 5,
                client_seeds: &[None, None, Some("grace")],
            },
            bots: &["expert", "random", "seed"],
            bot_seed: 15,
            max_steps: 60,
            timeout_at: None,
            forfeit: Some(Seat(1)),
        },
        Case {
            name: "mitsudomoe-2",
            game: GameKind::Mitsudomoe,
            options: || Value::Null,
            seats: 2,
            chance: Chance::Deal {
                pattern: 6,
                client_seeds: &[Some("hana"), Some("ivo")],
            },
            // Not `search`: it thinks against a clock, so its choices
            // would differ from one regeneration to the next.
            bots: &["greedy", "random"],
            bot_seed: 17,
            max_steps: 500,
            timeout_at: None,
            forfeit: None,
        },
        Case {
            name: "cribbage-2-legacy-seed",
            game: GameKind::Cribbage,
            options: || Value::Null,
            seats: 2,
            chance: Chance::Legacy(0x5eed_cafe),
            bots: &["random", "expert"],
            bot_seed: 16,
            max_steps: 60,
            timeout_at: None,
            forfeit: None,
        },
    ]
}

/// A fixed deal: server seed byte `i` is `31 * i + 17 * pattern`, salt
/// byte `i` is `255 - 13 * i - pattern` (both mod 256), so every case has
/// its own secret and anyone can rebuild it from this rule.
fn deal(pattern: u8, client_seeds: &[Option<&str>]) -> Deal {
    let mut seed = [0u8; 32];
    for (i, b) in (0u8..).zip(seed.iter_mut()) {
        *b = i.wrapping_mul(31).wrapping_add(pattern.wrapping_mul(17));
    }
    let mut salt = [0u8; 16];
    for (i, b) in (0u8..).zip(salt.iter_mut()) {
        *b = 255u8.wrapping_sub(i.wrapping_mul(13)).wrapping_sub(pattern);
    }
    let secret = DealSecret::new(seed, salt);
    Deal {
        commitment: secret.commitment(),
        server_seed: secret.seed_hex(),
        salt: secret.salt_hex(),
        client_seeds: client_seeds.iter().map(|s| s.map(str::to_owned)).collect(),
        bot_seats: Vec::new(),
    }
}

fn header(case: &Case) -> MatchHeader {
    let (seed, deal) = match case.chance {
        Chance::Deal {
            pattern,
            client_seeds,
        } => (None, Some(deal(pattern, client_seeds))),
        Chance::Legacy(seed) => (Some(seed), None),
    };
    MatchHeader {
        game: case.game,
        options: case.game.parse_config(&(case.options)()).unwrap(),
        seats: case.seats,
        seed,
        deal,
        clock: None,
        rated: false,
        event: None,
        ladder: None,
        matched: None,
    }
}

/// Plays the case with its bots, as a room would log it.
fn generate(case: &Case) -> MatchLog {
    let header = header(case);
    let (mut game, mut rng) = replay(&header, &[]).unwrap();
    let mut bots: Vec<_> = case
        .bots
        .iter()
        .map(|name| case.game.bot(name).unwrap())
        .collect();
    let mut bot_rng = GameRng::from_seed(case.bot_seed);
    let mut moves = Vec::new();
    while moves.len() < case.max_steps && game.outcome().is_none() {
        let seat = game.to_act().iter().next().unwrap();
        let timeout = case.timeout_at == Some(moves.len());
        let mv = if timeout {
            game.timeout_move(seat).unwrap()
        } else {
            let view = game.view(Viewer::Seat(seat));
            bots[seat.index()]
                .choose(seat, &view, &mut bot_rng)
                .unwrap()
        };
        // Logged in the one form the table shows, as a room logs it.
        let mv = game.canonical(seat, &mv);
        game.play(seat, &mv, &mut rng).unwrap();
        let mv = serde_json::to_value(&mv).unwrap();
        moves.push(LogEntry {
            seq: moves.len() as u64,
            seat,
            action: if timeout {
                LoggedAction::TimeoutMove(mv)
            } else {
                LoggedAction::Move(mv)
            },
        });
    }
    if let (Some(seat), None) = (case.forfeit, game.outcome()) {
        game.forfeit(seat);
        moves.push(LogEntry {
            seq: moves.len() as u64,
            seat,
            action: LoggedAction::Forfeit,
        });
    }
    let outcome = game.outcome();
    MatchLog {
        chat: Vec::new(),
        room: RoomId::new(format!("golden-{}", case.name)).unwrap(),
        header,
        moves,
        outcome,
        closed: outcome.is_none().then_some(Closed::Abandoned),
        players: Vec::new(),
    }
}

/// Every seat's view, then the spectator's, as JSON text.
fn views(game: &AnyGame) -> Vec<String> {
    (0..game.seats())
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator])
        .map(|v| serde_json::to_string(&game.view(v)).unwrap())
        .collect()
}

/// One value as compact JSON text.
fn line<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

/// The file of one case: the note, the log (its header on one line, then
/// one line per step) and the views, one per line, so that a diff shows
/// which step or view changed.
fn file_text(log: &MatchLog, views: &[String]) -> String {
    let steps: Vec<String> = log.moves.iter().map(line).collect();
    let views: Vec<String> = views.iter().map(line).collect();
    let mut fields = vec![
        format!("\"room\": {}", line(&log.room)),
        format!("\"header\": {}", line(&log.header)),
        format!("\"moves\": [\n    {}\n  ]", steps.join(",\n    ")),
        format!("\"outcome\": {}", line(&log.outcome)),
    ];
    if let Some(closed) = &log.closed {
        fields.push(format!("\"closed\": {}", line(closed)));
    }
    format!(
        "{{\n\"note\": {},\n\"log\": {{\n  {}\n}},\n\"views\": [\n  {}\n]\n}}\n",
        line(NOTE),
        fields.join(",\n  "),
        views.join(",\n  ")
    )
}

fn bless() {
    for case in cases() {
        let log = generate(&case);
        let (game, _) = replay(&log.header, &log.moves).unwrap();
        let text = file_text(&log, &views(&game));
        std::fs::write(dir().join(format!("{}.json", case.name)), text).unwrap();
    }
}

/// A case's file: its log and the views after the last step.
fn load(name: &str) -> (Value, MatchLog) {
    let text = std::fs::read_to_string(dir().join(format!("{name}.json"))).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let log = serde_json::from_value(doc["log"].clone()).unwrap();
    (doc, log)
}

/// Replays one case's file and compares it with what it froze.
fn check(case: &Case, doc: &Value, log: &MatchLog) {
    let name = case.name;
    // The log reads back whole: no field of it is silently dropped.
    assert_eq!(serde_json::to_value(log).unwrap(), doc["log"], "{name}");
    assert_eq!(log.header.game, case.game, "{name}");
    assert_eq!(log.header.seats, case.seats, "{name}");
    match &log.header.deal {
        Some(deal) => assert_eq!(deal.check(), Ok(()), "{name}: commitment"),
        None => assert!(log.header.seed.is_some(), "{name}: a legacy seed"),
    }
    let (game, _) = replay(&log.header, &log.moves)
        .unwrap_or_else(|e| panic!("{name}: the stored log no longer replays: {e}"));
    assert_eq!(game.outcome(), log.outcome, "{name}: outcome");
    let want = doc["views"].as_array().unwrap();
    let got = views(&game);
    assert_eq!(
        want.len(),
        got.len(),
        "{name}: one view per seat and the spectator"
    );
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(w.as_str(), Some(g.as_str()), "{name}: view {i}");
    }
}

/// One test, so that blessing writes every file before anything reads one.
#[test]
fn golden_logs_replay_byte_for_byte() {
    if std::env::var_os(BLESS_VAR).is_some() {
        bless();
    }
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    let wanted: BTreeSet<String> = cases().iter().map(|c| format!("{}.json", c.name)).collect();
    assert_eq!(on_disk, wanted, "one file per case, none stale");

    let mut logs = Vec::new();
    for case in cases() {
        let (doc, log) = load(case.name);
        check(&case, &doc, &log);
        logs.push((case, log));
    }

    // What the set as a whole must cover.
    for &game in GameKind::ALL {
        assert!(logs.iter().any(|(c, _)| c.game == game), "{game}");
    }
    assert!(logs.iter().any(|(_, l)| l.header.seed.is_some()));
    let any_step = |want: fn(&LoggedAction) -> bool| {
        logs.iter()
            .any(|(_, l)| l.moves.iter().any(|e| want(&e.action)))
    };
    assert!(any_step(|a| matches!(a, LoggedAction::Forfeit)));
    assert!(any_step(|a| matches!(a, LoggedAction::TimeoutMove(_))));
    // Finished and unfinished matches both.
    assert!(logs.iter().any(|(_, l)| l.outcome.is_some()));
    assert!(logs.iter().any(|(_, l)| l.outcome.is_none()));
}
