//! `GameKind::log_analysis`: the review of a finished match that the
//! server runs for `get_log` with `predict`, checked on short played
//! games through the generic interface.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::rummikub::{Action, Block, Config, Move, Row, Rummikub};
use parlor_games::{AnyMove, Budget, Game, GameKind, GameRng, Seat, Viewer};
use serde_json::{json, Value};

/// Positions the replay tool may search in this test: plenty for the
/// small bag it is given, and a bound on a debug build's time.
const BUDGET: usize = 2_000_000;

/// Options of the short games played here.
const RACK: u32 = 5;

/// A key whose deal lets seat 0 open with a crow, and that crow.
fn deal_with_a_crow() -> ([u8; 32], Row) {
    for k in 0..=u8::MAX {
        let key = [k; 32];
        let g = Rummikub::setup(
            &Config {
                rack_size: RACK,
                ..Default::default()
            },
            2,
            &mut GameRng::from_key(key),
        )
        .unwrap();
        let crow = g.legal_moves(Seat(0)).into_iter().find_map(|m| match m {
            Move::PlayRow(row @ Row::Crow(_)) => Some(row),
            _ => None,
        });
        if let Some(crow) = crow {
            return (key, crow);
        }
    }
    panic!("no key of the 256 tried deals seat 0 a crow");
}

/// Plays seat 0's crow with its blocks reversed, then the first legal move
/// each turn, `turns` moves in all or until the game ends. Returns the
/// steps as logged, and the actions as the tool must see them, built from
/// what each seat saw: its own draws name the block its view shows.
fn short_game(
    key: [u8; 32],
    crow: &Row,
    turns: usize,
) -> (Vec<(Seat, Option<AnyMove>)>, Vec<Action>) {
    let mut rng = GameRng::from_key(key);
    let mut g = Rummikub::setup(
        &Config {
            rack_size: RACK,
            ..Default::default()
        },
        2,
        &mut rng,
    )
    .unwrap();
    let mut reversed = crow.blocks().to_vec();
    reversed.reverse();
    let mut steps = Vec::new();
    let mut actions = Vec::new();
    let mut first = Some(Move::PlayRow(Row::Crow(reversed)));
    while g.outcome().is_none() && steps.len() < turns {
        let seat = g.to_act().iter().next().unwrap();
        let mv = first
            .take()
            .unwrap_or_else(|| g.legal_moves(seat).remove(0));
        g.play(seat, &mv, &mut rng).unwrap();
        let drew: Option<Block> = g.view(Viewer::Seat(seat)).last.and_then(|l| l.drew);
        actions.push(match &mv {
            Move::PlayRow(Row::Crow(_)) => Action::PlayRow(crow.clone()),
            Move::PlayRow(r) => Action::PlayRow(r.clone()),
            Move::PlayBlock { block, row } => Action::PlayBlock {
                block: *block,
                row: row.clone(),
            },
            Move::Draw => Action::Draw(drew.unwrap()),
            Move::Pass => panic!("no passing under the default rules"),
        });
        steps.push((seat, Some(AnyMove::Rummikub(mv))));
    }
    (steps, actions)
}

fn run_tool(tool: &str, input: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    GameKind::Rummikub
        .analyze(tool, input, Budget::positions(BUDGET), &mut |doc| {
            out.push(serde_json::from_str(&doc).unwrap());
            true
        })
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    out
}

#[test]
fn a_finished_two_seat_match_becomes_the_replay_tools_input() {
    let (key, crow) = deal_with_a_crow();
    let (mut steps, actions) = short_game(key, &crow, 12);
    let dealt = Rummikub::setup(
        &Config {
            rack_size: RACK,
            ..Default::default()
        },
        2,
        &mut GameRng::from_key(key),
    )
    .unwrap();
    // A forfeit ends the seed's game: nothing after it is reviewed.
    steps.push((Seat(1), None));
    steps.push((Seat(0), steps[1].1.clone()));
    let options = json!({"rack_size": RACK});
    let got = GameKind::Rummikub.log_analysis(&options, 2, GameRng::from_key(key), &steps);
    let Some(Ok((tool, input))) = got else {
        panic!("no review: {got:?}");
    };
    assert_eq!(tool, "replay");
    assert!(GameKind::Rummikub.tools().contains(&tool));
    assert_eq!(input["p1"], json!(dealt.rack(Seat(0))));
    assert_eq!(input["p2"], json!(dealt.rack(Seat(1))));
    assert_eq!(input["bag"], json!(dealt.bag()));
    // The crow, laid reversed, is reviewed as the table shows it.
    assert_eq!(input["actions"], json!(actions));
    assert_eq!(input["actions"][0], json!({"playrow": crow}));

    // The tool accepts every action in turn. Its search covers every
    // continuation, so the bag is cut to the blocks this game drew (the
    // actions are the same, and the search stays small).
    let drawn = actions
        .iter()
        .filter(|a| matches!(a, Action::Draw(_)))
        .count();
    let mut small = input.clone();
    small["bag"] = json!(dealt.bag()[..drawn]);
    let docs = run_tool(tool, &small);
    assert_eq!(docs.len(), actions.len() + 1);
    assert_eq!(docs[0]["action"], Value::Null);
    for (i, doc) in docs.iter().enumerate().skip(1) {
        assert_eq!(doc["ply"], json!(i));
        assert_eq!(doc["action"], json!(actions[i - 1]));
    }
}

#[test]
fn only_what_can_be_reviewed_is() {
    let (key, crow) = deal_with_a_crow();
    let (steps, _) = short_game(key, &crow, 4);
    let rng = || GameRng::from_key(key);
    // Games without a review say so with None.
    assert_eq!(
        GameKind::Nimrod.log_analysis(&Value::Null, 2, rng(), &[]),
        None
    );
    assert_eq!(
        GameKind::Cribbage.log_analysis(&Value::Null, 2, rng(), &[]),
        None
    );
    let why = |got: Option<Result<(&str, Value), String>>| match got {
        Some(Err(e)) => e,
        other => panic!("not refused: {other:?}"),
    };
    let three = why(GameKind::Rummikub.log_analysis(&Value::Null, 3, rng(), &[]));
    assert!(three.contains("two-player"), "{three}");
    let nimrod = GameKind::Nimrod
        .parse_move(&json!({"take": [1, 0]}))
        .unwrap();
    let mixed =
        why(GameKind::Rummikub.log_analysis(&Value::Null, 2, rng(), &[(Seat(0), Some(nimrod))]));
    assert!(
        mixed.contains("step 0") && mixed.contains("nimrod"),
        "{mixed}"
    );
    // Seat 1 answering its own move: the second step does not replay.
    let mut bad = steps.clone();
    bad[1].0 = Seat(0);
    let options = json!({"rack_size": RACK});
    let stale = why(GameKind::Rummikub.log_analysis(&options, 2, rng(), &bad));
    assert!(stale.contains("step 1 does not replay"), "{stale}");
    let options = json!({"rack_size": 26});
    let setup = why(GameKind::Rummikub.log_analysis(&options, 2, rng(), &[]));
    assert!(setup.contains("cannot be set up"), "{setup}");
    // Defaults (`null`) deal as the default options do.
    let got = GameKind::Rummikub.log_analysis(&Value::Null, 2, rng(), &[]);
    let dealt = Rummikub::setup(&Config::default(), 2, &mut rng()).unwrap();
    assert_eq!(
        got.and_then(Result::ok)
            .map(|(_, input)| input["p1"].clone()),
        Some(json!(dealt.rack(Seat(0))))
    );
}
