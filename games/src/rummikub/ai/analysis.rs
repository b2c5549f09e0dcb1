//! Rummikub's analysis tools. Blocks, rows and actions are written as in
//! the design (`{"number": 5, "color": "red"}`, `{"crow": [...]}`, ...).
//!
//! - `check-table`: a table (a list of rows) -> `{"valid": bool,
//!   "problems": [{"row": i, "rule": "too_short", "message": "..."}]}`.
//! - `outcomes`: `{"p1": [blocks], "p2": [blocks], "table": [rows], "bag":
//!   [blocks]}` (table and bag optional, default empty; P1 to move) -> one
//!   document per complete game, `{"p1": [actions], "p2": [actions]}`,
//!   streamed.
//! - `predict`: the same input -> `{"outcomes": N, "p1_wins": W, "p2_wins":
//!   L, "draws": D, "win_fraction": W/N}`; the counts are exact JSON
//!   integers of any size, `win_fraction` a float (0 when N is 0).
//! - `replay`: the same input plus `"actions": [...]`, the seed's actions in
//!   turn order, P1 first (no final `win`/`lose`/`draw`) -> one document per
//!   ply, `{"ply": i, "action": a | null, "win_fraction": f, "outcomes": N}`:
//!   P1's predicted win fraction before any move (ply 0, action null) and
//!   after each. An illegal action is refused, naming the legal ones.

use std::ops::ControlFlow;

use serde::Deserialize;

use super::bound::positions_at_least;
use super::outcomes::outcomes;
use super::predict::{predict, predict_within_memory, Prediction, Solver, Tally};
use super::review::{replay_input, REVIEW_TOOL};
use crate::analysis::tool_args::{stdin_only, ArgsInput};
use crate::analysis::{emit_json, input, Analysis, AnalysisError, Budget, Emit};
use crate::game::Seat;
use crate::rng::GameRng;
use crate::rummikub::action::Action;
use crate::rummikub::block::Block;
use crate::rummikub::engine::{Engine, Step};
use crate::rummikub::position::{Player, Position};
use crate::rummikub::row::Row;
use crate::rummikub::table::valid_table;
use crate::rummikub::{Config, Move, Rummikub};

/// The tools, by name.
pub const TOOLS: &[&str] = &["check-table", "outcomes", "predict", "replay"];

/// How many legal actions an error message lists before "...": enough to
/// see what was meant, short enough to read.
const LISTED_ACTIONS: usize = 8;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Deal {
    p1: Vec<Block>,
    p2: Vec<Block>,
    #[serde(default)]
    table: Vec<Row>,
    #[serde(default)]
    bag: Vec<Block>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Replay {
    p1: Vec<Block>,
    p2: Vec<Block>,
    #[serde(default)]
    table: Vec<Row>,
    #[serde(default)]
    bag: Vec<Block>,
    actions: Vec<Action>,
}

fn position(
    tool: &str,
    p1: Vec<Block>,
    p2: Vec<Block>,
    table: Vec<Row>,
    bag: Vec<Block>,
) -> Result<Position, AnalysisError> {
    Position::new(p1, p2, table, bag).map_err(|e| AnalysisError::bad(format!("{tool}: {e}")))
}

/// The input of tool `tool` from its command-line words: every Rummikub
/// tool reads JSON on standard input (a deal does not fit in a few words),
/// so it takes none.
pub fn args_input(tool: &str, words: &[String]) -> Result<ArgsInput, String> {
    stdin_only("rummikub", tool, words)
}

/// Runs tool `tool` on `input` within `budget`.
pub fn analyze(
    tool: &str,
    value: &serde_json::Value,
    budget: Budget,
    emit: &mut Emit<'_>,
) -> Result<(), AnalysisError> {
    match tool {
        "check-table" => {
            let table: Vec<Row> = input(tool, value)?;
            let problems = valid_table(&table);
            emit_json(
                emit,
                0,
                &serde_json::json!({"valid": problems.is_empty(), "problems": problems}),
            )
        }
        "outcomes" => {
            let Deal { p1, p2, table, bag } = input(tool, value)?;
            let pos = position(tool, p1, p2, table, bag)?;
            let mut emitted = 0u64;
            let mut failure = None;
            let flow = outcomes(&pos, |solution| match emit_json(emit, emitted, solution) {
                Ok(()) => {
                    emitted += 1;
                    ControlFlow::Continue(())
                }
                Err(e) => {
                    failure = Some(e);
                    ControlFlow::Break(())
                }
            });
            match (flow, failure) {
                (_, Some(e)) => Err(e),
                _ => Ok(()),
            }
        }
        "predict" => {
            let Deal { p1, p2, table, bag } = input(tool, value)?;
            let pos = position(tool, p1, p2, table, bag)?;
            let prediction = match budget.positions {
                None => predict(&pos),
                Some(max) => {
                    refuse_beyond(tool, &pos, max)?;
                    predict_within_memory(&pos, max, budget.memory)
                        .ok_or_else(|| too_large(tool, max))?
                }
            };
            send(emit, 0, prediction_json(&prediction))
        }
        "replay" => {
            let r: Replay = input(tool, value)?;
            replay(tool, r, budget, emit)
        }
        _ => Err(AnalysisError::UnknownTool {
            game: "rummikub",
            tool: tool.to_owned(),
            known: TOOLS.join(", "),
        }),
    }
}

fn send(emit: &mut Emit<'_>, emitted: u64, text: String) -> Result<(), AnalysisError> {
    if emit(text) {
        Ok(())
    } else {
        Err(AnalysisError::Stopped(emitted))
    }
}

fn float(f: f64) -> String {
    serde_json::to_string(&f).unwrap_or_else(|_| "0.0".into())
}

/// The `predict` document, written by hand so that counts beyond 64 bits
/// stay exact JSON integers.
fn prediction_json(p: &Prediction) -> String {
    format!(
        r#"{{"outcomes":{},"p1_wins":{},"p2_wins":{},"draws":{},"win_fraction":{}}}"#,
        p.outcomes(),
        p.p1_wins,
        p.p2_wins,
        p.draws,
        float(p.win_fraction())
    )
}

/// The action as the engine writes it: crows sorted.
fn canonical(a: &Action) -> Action {
    match a {
        Action::PlayRow(r) => Action::PlayRow(r.normalised()),
        Action::PlayBlock { block, row } => Action::PlayBlock {
            block: *block,
            row: row.normalised(),
        },
        other => other.clone(),
    }
}

/// Refuses at once, before any search, a deal whose count surely needs
/// more than `max` positions: its players' own lines of play alone make
/// more (see [`super::bound`]). Time and memory both grow with positions,
/// so this is the deal that would have overrun either.
fn refuse_beyond(tool: &str, pos: &Position, max: usize) -> Result<(), AnalysisError> {
    let at_least = positions_at_least(pos, max as u128);
    if at_least > max as u128 {
        return Err(AnalysisError::TooLarge(format!(
            "{tool}: this deal has at least {at_least} positions to count (its racks alone make that many lines of play), more than the {max} this server searches per request; run `parlor rummikub {tool}` locally"
        )));
    }
    Ok(())
}

/// The error for a search over `max` positions.
fn too_large(tool: &str, max: usize) -> AnalysisError {
    AnalysisError::TooLarge(format!(
        "{tool}: this deal needs more than {max} positions searched, more than this server does per request; run `parlor rummikub {tool}` locally"
    ))
}

fn replay(tool: &str, r: Replay, budget: Budget, emit: &mut Emit<'_>) -> Result<(), AnalysisError> {
    let pos = position(tool, r.p1, r.p2, r.table, r.bag)?;
    if let Some(max) = budget.positions {
        refuse_beyond(tool, &pos, max)?;
    }
    let (engine, mut state) = Engine::new(&pos);
    // One memo for the whole replay: later plies' positions were mostly
    // counted already as descendants of earlier ones.
    let max = budget.positions.unwrap_or(usize::MAX);
    let mut solver = Solver::new(&engine, max).with_memory(budget.memory);
    let mut mover = Player::P1;
    let mut steps: Vec<Step> = Vec::new();
    let doc = |ply: usize, action: Option<&Action>, tally: &Tally, mover: Player| {
        let p = tally.prediction(mover);
        format!(
            r#"{{"ply":{ply},"action":{},"win_fraction":{},"outcomes":{}}}"#,
            action.map_or_else(
                || "null".into(),
                |a| serde_json::to_string(a).unwrap_or_default()
            ),
            float(p.win_fraction()),
            p.outcomes()
        )
    };
    let stopped = |_| too_large(tool, max);
    let tally = solver.tally(&state).map_err(stopped)?;
    send(emit, 0, doc(0, None, &tally, mover))?;
    for (i, action) in r.actions.iter().enumerate() {
        let ply = i + 1;
        if action.is_final() {
            return Err(AnalysisError::bad(format!(
                "{tool}: action {ply} is {action:?}; list moves only, the replay sees the end by itself"
            )));
        }
        if let Some(end) = engine.steps(&state, &mut steps) {
            let (w1, _) = crate::rummikub::engine::final_words(end, mover);
            return Err(AnalysisError::bad(format!(
                "{tool}: action {ply} ({action}) comes after the game ended (p1: {w1})"
            )));
        }
        let wanted = canonical(action);
        let Some(&step) = steps.iter().find(|&&s| engine.action(&state, s) == wanted) else {
            let legal: Vec<String> = steps
                .iter()
                .take(LISTED_ACTIONS)
                .map(|&s| serde_json::to_string(&engine.action(&state, s)).unwrap_or_default())
                .collect();
            let more = if steps.len() > LISTED_ACTIONS {
                ", ..."
            } else {
                ""
            };
            return Err(AnalysisError::bad(format!(
                "{tool}: action {ply} ({action}) is not legal for {mover}; legal: {}{more}",
                legal.join(", ")
            )));
        };
        state = engine.apply(&state, step);
        mover = mover.other();
        let tally = solver.tally(&state).map_err(stopped)?;
        send(emit, ply as u64, doc(ply, Some(action), &tally, mover))?;
    }
    Ok(())
}

impl Analysis for Rummikub {
    const TOOLS: &'static [&'static str] = TOOLS;

    const LOG_ANALYSIS_TOOL: Option<&'static str> = Some(REVIEW_TOOL);

    fn analyze(
        tool: &str,
        input: &serde_json::Value,
        budget: Budget,
        emit: &mut Emit<'_>,
    ) -> Result<(), AnalysisError> {
        analyze(tool, input, budget, emit)
    }

    fn args_input(tool: &str, words: &[String]) -> Result<ArgsInput, String> {
        args_input(tool, words)
    }

    fn log_analysis_input(
        cfg: &Config,
        seats: u8,
        rng: GameRng,
        steps: &[(Seat, Option<Move>)],
    ) -> Result<serde_json::Value, String> {
        replay_input(cfg, seats, rng, steps)
    }

    fn agreement(
        cfg: &Config,
        seats: u8,
        rng: GameRng,
        steps: &[crate::analysis::Played<Move>],
    ) -> Result<Vec<crate::analysis::Tally>, String> {
        super::agreement::agreement(cfg, seats, rng, steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn run(tool: &str, v: Value) -> Result<Vec<Value>, AnalysisError> {
        crate::analysis::collect(analyze, tool, v)
    }

    #[test]
    fn the_tools_take_json_on_stdin_not_words() {
        assert_eq!(
            args_input("predict", &[]),
            Ok(ArgsInput::Stdin(Default::default()))
        );
        let err = args_input("check-table", &["5r".to_owned()])
            .err()
            .unwrap_or_default();
        assert!(
            err.contains("rummikub check-table") && err.contains("standard input"),
            "{err}"
        );
    }

    fn blk(n: i64, c: &str) -> Value {
        json!({"number": n, "color": c})
    }

    fn second_example() -> Value {
        json!({
            "p1": [blk(2, "red"), blk(3, "red"), blk(4, "red"), blk(2, "blue"), blk(2, "black")],
            "p2": [blk(5, "red"), blk(6, "red"), blk(8, "blue"), blk(8, "black")],
            "bag": [blk(7, "red"), blk(8, "red"), blk(9, "red")],
        })
    }

    #[test]
    fn check_table_lists_problems() {
        let out = run(
            "check-table",
            json!([{"crow": [blk(5, "red"), blk(5, "yellow")]}, {"nrow": [blk(1, "red"), blk(2, "red"), blk(3, "red")]}]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out[0]["valid"], json!(false));
        assert_eq!(out[0]["problems"][0]["row"], json!(0));
        assert_eq!(out[0]["problems"][0]["rule"], json!("too_short"));
        assert_eq!(out[0]["problems"].as_array().map(Vec::len), Some(1));
        let ok = run("check-table", json!([])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ok, vec![json!({"valid": true, "problems": []})]);
    }

    #[test]
    fn outcomes_stream_and_stop_on_request() {
        let all = run("outcomes", second_example()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.len(), 5);
        assert!(all.iter().all(|o| o["p1"].is_array() && o["p2"].is_array()));
        let mut seen = 0;
        let r = analyze(
            "outcomes",
            &second_example(),
            Budget::UNLIMITED,
            &mut |_| {
                seen += 1;
                seen < 2
            },
        );
        assert_eq!(r, Err(AnalysisError::Stopped(1)));
        assert_eq!(seen, 2);
    }

    #[test]
    fn predict_counts_exactly() {
        let out = run("predict", second_example()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            out,
            vec![
                json!({"outcomes": 5, "p1_wins": 2, "p2_wins": 1, "draws": 2, "win_fraction": 0.4})
            ]
        );
        let none = run("predict", json!({"p1": [], "p2": []})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(none[0]["outcomes"], json!(1));
        assert_eq!(none[0]["draws"], json!(1));
    }

    #[test]
    fn replay_follows_the_win_fraction() {
        let mut input = second_example();
        input["actions"] = json!([
            {"playrow": {"nrow": [blk(2, "red"), blk(3, "red"), blk(4, "red")]}},
            {"playblock": {"block": blk(5, "red"), "row": {"nrow": [blk(2, "red"), blk(3, "red"), blk(4, "red"), blk(5, "red")]}}},
        ]);
        let out = run("replay", input.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.len(), 3);
        assert_eq!(
            out[0],
            json!({"ply": 0, "action": null, "win_fraction": 0.4, "outcomes": 5})
        );
        assert_eq!(out[1]["outcomes"], json!(2));
        assert_eq!(out[1]["win_fraction"], json!(0.0));
        input["actions"] = json!([{"draw": blk(7, "red")}]);
        let err = run("replay", input)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("not legal") && err.contains("playrow"),
            "{err}"
        );
    }

    /// The 52 hosted blocks in a fixed order (one per `seed`), dealt as
    /// racks of `a` and `b` and a bag of the rest.
    fn scrambled(seed: u64, a: usize, b: usize) -> Value {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut all = crate::rummikub::block::Block::hosted_set();
        all.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        json!({"p1": all[..a], "p2": all[a..a + b], "bag": all[a + b..]})
    }

    #[test]
    fn a_deal_too_large_for_the_budget_is_refused_before_the_search() {
        let server = Budget::within(3_000_000, 56 << 20);
        // Racks of 25, each two colours in runs of 12 and 13: their own
        // lines of play alone make about a billion positions.
        let run = |c: &'static str, lo: i64| (lo..=13).map(move |n| blk(n, c));
        let p1: Vec<Value> = run("red", 1).chain(run("blue", 2)).collect();
        let p2: Vec<Value> = run("yellow", 1).chain(run("black", 2)).collect();
        for tool in ["predict", "replay"] {
            let mut input = json!({"p1": p1, "p2": p2});
            if tool == "replay" {
                input["actions"] = json!([]);
            }
            let mut emitted = 0;
            let refused = analyze(tool, &input, server, &mut |_| {
                emitted += 1;
                true
            });
            let Err(AnalysisError::TooLarge(message)) = refused else {
                panic!("{tool}: {refused:?}");
            };
            assert!(
                message.contains("at least") && message.contains("3000000"),
                "{message}"
            );
            assert_eq!(emitted, 0);
        }
    }

    #[test]
    fn answers_within_a_memory_budget_are_the_exact_ones() {
        // About 24,000 positions: a memo within 256 KiB forgets some.
        let mut deal = scrambled(1, 22, 22);
        deal["bag"] = json!(deal["bag"].as_array().map(|b| b[..8].to_vec()));
        let tight = Budget::within(usize::MAX, 256 << 10);
        let mut within = Vec::new();
        analyze("predict", &deal, tight, &mut |x| {
            within.push(serde_json::from_str::<Value>(&x).unwrap_or_default());
            true
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            within,
            run("predict", deal).unwrap_or_else(|e| panic!("{e}"))
        );
        assert_eq!(within.len(), 1);
        assert!(within[0]["outcomes"].as_u64().unwrap_or(0) > 1_000);
    }

    #[test]
    fn bad_input_is_explained() {
        let dup = json!({"p1": [blk(1, "red")], "p2": [blk(1, "red")]});
        let err = run("predict", dup)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("red 1") && err.contains("twice"), "{err}");
        assert!(matches!(
            run("outcomes", json!({"p1": [blk(1, "green")], "p2": []})),
            Err(AnalysisError::BadInput(m)) if m.contains("green")
        ));
        assert!(matches!(
            run("predict", json!({"p1": []})),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run("check-table", json!({"crow": []})),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run("outcomes", json!({"p1": [], "p2": [], "table": [{"crow": [blk(1, "red")]}]})),
            Err(AnalysisError::BadInput(m)) if m.contains("too") || m.contains("at least")
        ));
        assert!(matches!(
            run("nope", json!({})),
            Err(AnalysisError::UnknownTool { .. })
        ));
    }
}
