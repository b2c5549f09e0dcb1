//! Mitsudomoe's analysis tools.
//!
//! - `perft`: `{"depth": N, "position": P}` (`position` in notation,
//!   optional: the start) -> `{"depth": N, "moves": M, "positions": Q}`:
//!   M sequences of N legal turns, reaching Q distinct positions.
//! - `best-move`: `{"position": P, "time_ms": T}` (`time_ms` optional,
//!   default [`DEFAULT_ANALYSIS_MS`], at most [`MAX_SEARCH_MS`]) ->
//!   `{"position": P, "move": {...} | null, "notation": "..." | null,
//!   "score": S, "depth": D, "nodes": N, "legal": L}`: the `search`
//!   bot's choice, its score for the player to move (±1000000 near a
//!   decided game), the depth searched, positions visited and the number
//!   of legal turns. With a position budget (over the protocol) the
//!   search also stops there, and a budget too small to look
//!   [`MIN_BUDGETED_DEPTH`] turns ahead is reported as too large.

use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::analysis::tool_args::{split, ArgsInput, Flag};
use serde_json::json;

use super::perft::{self, perft_within};
use super::search::{search, Limits, MAX_DEPTH};
use super::strategy::MAX_SEARCH_MS;
use crate::analysis::{
    emit_json, input, table_entries_within, Analysis, AnalysisError, Budget, Emit,
};
use crate::mitsudomoe::movegen::count_turns;
use crate::mitsudomoe::position::Position;
use crate::mitsudomoe::Mitsudomoe;

/// The tools, by name.
pub const TOOLS: &[&str] = &["perft", "best-move"];

/// Deepest perft asked for: the start already has billions of sequences
/// six turns deep, beyond any memory's distinct positions.
pub const MAX_PERFT_DEPTH: u32 = 6;

/// Distinct positions perft keeps at one depth without a caller's
/// budget: about 130 bytes each in the table, so about 1 GB at most;
/// enough for depth 5 from the start (4,435,150).
pub const MAX_PERFT_POSITIONS: usize = 8_000_000;

/// Thinking time of `best-move` when the input gives none.
pub const DEFAULT_ANALYSIS_MS: u64 = 1_000;

/// Turns `best-move` must look ahead within a caller's position budget
/// (else the budget is reported too small): one turn is only the greedy
/// bot's view; two see the opponent's best answer.
pub const MIN_BUDGETED_DEPTH: u32 = 2;

/// The flags of `perft`: `--depth N [--position P]`.
const PERFT_FLAGS: &[Flag] = &[
    Flag {
        name: "depth",
        takes_value: true,
    },
    Flag {
        name: "position",
        takes_value: true,
    },
];

/// The flags of `best-move`: `--position P [--time MS]`.
const BEST_MOVE_FLAGS: &[Flag] = &[
    Flag {
        name: "position",
        takes_value: true,
    },
    Flag {
        name: "time",
        takes_value: true,
    },
];

/// The input of tool `tool` from its command-line words:
/// `perft --depth N [--position P]`, `best-move --position P [--time MS]`;
/// no words: JSON on standard input.
pub fn args_input(tool: &str, words: &[String]) -> Result<ArgsInput, String> {
    if words.is_empty() {
        return Ok(ArgsInput::Stdin(Default::default()));
    }
    let number = |name: &str, s: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("{tool}: --{name} {s:?} is not a whole number"))
    };
    let v = match tool {
        "perft" => {
            let w = split(tool, words, PERFT_FLAGS)?;
            let (Some(depth), true) = (w.value("depth"), w.plain.is_empty()) else {
                return Err("usage: parlor mitsudomoe perft --depth N [--position P]".into());
            };
            let mut v = json!({ "depth": number("depth", depth)? });
            if let Some(p) = w.value("position") {
                v["position"] = json!(p);
            }
            v
        }
        "best-move" => {
            let w = split(tool, words, BEST_MOVE_FLAGS)?;
            let (Some(p), true) = (w.value("position"), w.plain.is_empty()) else {
                return Err("usage: parlor mitsudomoe best-move --position P [--time MS]".into());
            };
            let mut v = json!({ "position": p });
            if let Some(ms) = w.value("time") {
                v["time_ms"] = json!(number("time", ms)?);
            }
            v
        }
        _ => return crate::analysis::tool_args::stdin_only("mitsudomoe", tool, words),
    };
    Ok(ArgsInput::Complete(v))
}

/// Bytes perft's tables hold at most when a depth of `last` positions
/// leads to one of `next`: the last depth's table and the next one's,
/// caught while it doubles (see [`crate::analysis::table_growth_bytes`]).
#[cfg(test)]
fn perft_bytes(last: usize, next: usize) -> usize {
    use crate::analysis::{table_bytes, table_growth_bytes};
    let entry = perft::LEVEL_ENTRY_BYTES;
    table_bytes(last, entry).saturating_add(table_growth_bytes(next, entry))
}

/// The most distinct positions perft may keep at one depth within
/// `bytes`, the depth before it having `last`.
fn perft_positions_within(bytes: usize, last: usize) -> usize {
    let entry = perft::LEVEL_ENTRY_BYTES;
    let held = crate::analysis::table_bytes(last, entry);
    table_entries_within(bytes.saturating_sub(held), entry)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PerftInput {
    depth: u32,
    #[serde(default)]
    position: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BestMoveInput {
    position: String,
    #[serde(default)]
    time_ms: Option<u64>,
}

fn position(tool: &str, text: Option<&str>) -> Result<Position, AnalysisError> {
    match text {
        None => Ok(Position::initial()),
        Some(t) => t
            .parse()
            .map_err(|e| AnalysisError::bad(format!("{tool}: position: {e}"))),
    }
}

/// Runs tool `tool` on `input` within `budget`.
pub fn analyze(
    tool: &str,
    value: &serde_json::Value,
    budget: Budget,
    emit: &mut Emit<'_>,
) -> Result<(), AnalysisError> {
    match tool {
        "perft" => {
            let PerftInput { depth, position: p } = input(tool, value)?;
            if depth > MAX_PERFT_DEPTH {
                return Err(AnalysisError::bad(format!(
                    "perft: depth is at most {MAX_PERFT_DEPTH}, not {depth}"
                )));
            }
            let start = position(tool, p.as_deref())?;
            let by_time = budget
                .positions
                .unwrap_or(MAX_PERFT_POSITIONS)
                .min(MAX_PERFT_POSITIONS);
            let limit = |last: usize| {
                budget
                    .memory
                    .map_or(usize::MAX, |bytes| perft_positions_within(bytes, last))
                    .min(by_time)
            };
            let result = perft_within(&start, depth, limit).map_err(|e| {
                AnalysisError::TooLarge(match budget.memory {
                    Some(bytes) if e.limit < by_time => format!(
                        "perft: {e}, more than {} MiB of tables hold, the most this server gives one request; run `parlor mitsudomoe perft` locally",
                        bytes >> 20
                    ),
                    _ => format!("perft: {e}"),
                })
            })?;
            emit_json(emit, 0, &result)
        }
        "best-move" => {
            let BestMoveInput {
                position: p,
                time_ms,
            } = input(tool, value)?;
            let ms = time_ms.unwrap_or(DEFAULT_ANALYSIS_MS);
            if ms == 0 || ms > MAX_SEARCH_MS {
                return Err(AnalysisError::bad(format!(
                    "best-move: time_ms is 1 to {MAX_SEARCH_MS}, not {ms}"
                )));
            }
            let pos = position(tool, Some(&p))?;
            let deadline = Instant::now() + Duration::from_millis(ms);
            let found = search(
                &pos,
                Limits {
                    stop: &|| Instant::now() >= deadline,
                    max_nodes: budget.positions.map(|n| n as u64),
                    max_depth: MAX_DEPTH,
                    house: Default::default(),
                },
            );
            let over = pos.end_without_turn().is_some();
            if let Some(n) = budget.positions {
                let cut = found.nodes > n as u64;
                if cut && found.depth < MIN_BUDGETED_DEPTH && !over {
                    return Err(AnalysisError::TooLarge(format!(
                        "best-move: looking {MIN_BUDGETED_DEPTH} turns ahead here takes more than {n} positions"
                    )));
                }
            }
            let best = found.best.filter(|_| !over);
            emit_json(
                emit,
                0,
                &json!({
                    "position": pos.to_string(),
                    "move": best,
                    "notation": best.map(|m| m.to_string()),
                    "score": found.score,
                    "depth": found.depth,
                    "nodes": found.nodes,
                    "legal": if over { 0 } else { count_turns(&pos) },
                }),
            )
        }
        _ => Err(AnalysisError::UnknownTool {
            game: "mitsudomoe",
            tool: tool.to_owned(),
            known: TOOLS.join(", "),
        }),
    }
}

impl Analysis for Mitsudomoe {
    const TOOLS: &'static [&'static str] = TOOLS;

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

    fn agreement(
        cfg: &crate::mitsudomoe::Config,
        seats: u8,
        rng: crate::rng::GameRng,
        steps: &[crate::analysis::Played<crate::mitsudomoe::Move>],
    ) -> Result<Vec<crate::analysis::Tally>, String> {
        super::agreement::agreement(cfg, seats, rng, steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(tool: &str, v: serde_json::Value) -> Result<Vec<serde_json::Value>, AnalysisError> {
        crate::analysis::collect(analyze, tool, v)
    }

    #[test]
    fn perft_answers_in_json() {
        assert_eq!(
            run("perft", json!({"depth": 1})),
            Ok(vec![json!({"depth": 1, "moves": 9, "positions": 9})])
        );
        assert_eq!(
            run(
                "perft",
                json!({"depth": 0, "position": Position::initial().to_string()})
            ),
            Ok(vec![json!({"depth": 0, "moves": 1, "positions": 1})])
        );
    }

    #[test]
    fn perft_keeps_within_a_memory_budget() {
        let perft_in = |depth: u32, bytes: usize| {
            let mut out = Vec::new();
            let r = analyze(
                "perft",
                &json!({ "depth": depth }),
                Budget::within(1_000_000, bytes),
                &mut |x| {
                    out.push(serde_json::from_str::<serde_json::Value>(&x).unwrap_or_default());
                    true
                },
            );
            r.map(|()| out)
        };
        // 81 positions two turns deep (after 9) fit tables of 64 KiB...
        let budget = 64 << 10;
        assert!(perft_bytes(9, 81) <= budget);
        assert_eq!(perft_in(2, budget), run("perft", json!({"depth": 2})));
        // ... the positions three turns deep do not, and the refusal says
        // what was too large.
        let three = run("perft", json!({"depth": 3})).unwrap_or_default();
        let positions = three[0]["positions"].as_u64().unwrap_or(0) as usize;
        assert!(perft_bytes(81, positions) > budget, "{positions}");
        match perft_in(3, budget) {
            Err(AnalysisError::TooLarge(m)) => assert!(m.contains("MiB"), "{m}"),
            other => panic!("{other:?}"),
        }
        // Within the budget the tables never grow past it, whatever the
        // last depth held.
        for last in [1, 81, 200] {
            let most = perft_positions_within(budget, last);
            assert!(
                most > 0 && perft_bytes(last, most) <= budget,
                "{last}: {most}"
            );
        }
        // A last depth that alone fills the budget leaves no room.
        assert_eq!(perft_positions_within(budget, 1_000), 0);
    }

    #[test]
    fn best_move_finds_a_win_in_one() {
        // Black has two balls on goal (D1, E1) and one on D2 next to E2,
        // where a black ring waits: stepping there wins at once.
        let p = ".,.,.,b,b/.,.,.,.,b/.,.,wW,wW,wW/bB,bB,.,.,./bB,b,.,.,. b";
        let out = run("best-move", json!({"position": p, "time_ms": 200})).unwrap_or_default();
        let notation = out[0]["notation"].as_str().unwrap_or_default().to_owned();
        assert!(notation.ends_with("D2-E2"), "{notation}");
        assert!(out[0]["score"].as_i64().unwrap_or(0) > 900_000);
    }

    #[test]
    fn bad_input_is_explained() {
        assert!(matches!(
            run("perft", json!({"depth": MAX_PERFT_DEPTH + 1})),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run("perft", json!({"depth": 1, "position": "nonsense"})),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run(
                "best-move",
                json!({"position": Position::initial().to_string(), "time_ms": 0})
            ),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run("best-move", json!({})),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run("nope", json!({})),
            Err(AnalysisError::UnknownTool { .. })
        ));
        let mut out = Vec::new();
        let small = analyze(
            "perft",
            &json!({"depth": 3}),
            Budget::positions(10),
            &mut |x| {
                out.push(x);
                true
            },
        );
        assert!(matches!(small, Err(AnalysisError::TooLarge(_))));
    }
}
