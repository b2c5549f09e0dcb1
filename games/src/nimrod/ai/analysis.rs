//! Nimrod's analysis tools.
//!
//! - `lose-positions`: `{"count": N}` -> `[[0,0],[1,2],...]`, the first N.
//! - `best-move`: `{"piles": [a, b]}` -> `{"piles": [lesser, greater],
//!   "lose": bool, "move": {"take": [x, y]} | null, "to": [c, d] | null,
//!   "winning_moves": [...]}`; `take` counts from the lesser pile first.
//!
//! On the command line: `lose-positions N`, `best-move A B`
//! ([`args_input`]).

use serde::Deserialize;
use serde_json::json;

use super::lose::{best_move, is_lose, lose_position, winning_moves};
use crate::analysis::tool_args::{split, ArgsInput};
use crate::analysis::{emit_json, input, Analysis, AnalysisError, Budget, Emit, Played, Tally};
use crate::nimrod::piles::Piles;
use crate::nimrod::{Config, Move, Nimrod};
use crate::rng::GameRng;

/// The tools, by name.
pub const TOOLS: &[&str] = &["lose-positions", "best-move"];

/// Most lose positions one request may list: a million pairs is about 20 MB
/// of JSON, beyond which a caller wants the closed form, not a list.
pub const MAX_LOSE_POSITIONS: u64 = 1_000_000;

/// Bytes the list of the first `count` lose positions takes to build, an
/// upper estimate: the pairs themselves, and their JSON text in a buffer
/// that grows by doubling (so up to twice its length), each pair's text
/// being its two numbers (the larger below 2.62 times `count`), a comma,
/// two brackets and the separating comma.
fn list_bytes(count: u64) -> u64 {
    let digits = u64::from(count.saturating_mul(3).checked_ilog10().unwrap_or(0) + 1);
    let text = 2 * digits + 4;
    count.saturating_mul(std::mem::size_of::<Piles>() as u64 + 2 * text)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Count {
    count: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct At {
    piles: Piles,
}

/// The input of tool `tool` from its command-line words: `lose-positions
/// N` and `best-move A B`; no words: JSON on standard input.
pub fn args_input(tool: &str, words: &[String]) -> Result<ArgsInput, String> {
    if words.is_empty() {
        return Ok(ArgsInput::Stdin(Default::default()));
    }
    let plain = split(tool, words, &[])?.plain;
    let number = |s: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("{tool}: {s:?} is not a whole number"))
    };
    let v = match (tool, plain.as_slice()) {
        ("lose-positions", [n]) => json!({ "count": number(n)? }),
        ("lose-positions", _) => return Err("usage: parlor nimrod lose-positions N".into()),
        ("best-move", [x, y]) => json!({ "piles": [number(x)?, number(y)?] }),
        ("best-move", _) => return Err("usage: parlor nimrod best-move A B".into()),
        _ => return crate::analysis::tool_args::stdin_only("nimrod", tool, words),
    };
    Ok(ArgsInput::Complete(v))
}

/// Runs tool `tool` on `input` within `budget`.
pub fn analyze(
    tool: &str,
    value: &serde_json::Value,
    budget: Budget,
    emit: &mut Emit<'_>,
) -> Result<(), AnalysisError> {
    match tool {
        "lose-positions" => {
            let Count { count } = input(tool, value)?;
            if count > MAX_LOSE_POSITIONS {
                return Err(AnalysisError::bad(format!(
                    "lose-positions: at most {MAX_LOSE_POSITIONS} at a time, not {count}"
                )));
            }
            if budget.positions.is_some_and(|max| count > max as u64) {
                return Err(AnalysisError::TooLarge(format!(
                    "lose-positions: {count} is more than this server lists at once; the closed form floor(k*phi) gives any of them"
                )));
            }
            let bytes = list_bytes(count);
            if budget.memory.is_some_and(|max| bytes > max as u64) {
                return Err(AnalysisError::TooLarge(format!(
                    "lose-positions: a list of {count} takes about {} MiB to build, more than this server gives one request; the closed form floor(k*phi) gives any of them",
                    bytes >> 20
                )));
            }
            let list: Vec<Piles> = (0..count).map(lose_position).collect();
            emit_json(emit, 0, &list)
        }
        "best-move" => {
            let At { piles } = input(tool, value)?;
            let best = best_move(piles);
            emit_json(
                emit,
                0,
                &json!({
                "piles": piles,
                "lose": is_lose(piles),
                "move": best,
                "to": best.and_then(|m| piles.after(m)),
                "winning_moves": winning_moves(piles),
                }),
            )
        }
        _ => Err(AnalysisError::UnknownTool {
            game: "nimrod",
            tool: tool.to_owned(),
            known: TOOLS.join(", "),
        }),
    }
}

impl Analysis for Nimrod {
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
        cfg: &Config,
        seats: u8,
        rng: GameRng,
        steps: &[Played<Move>],
    ) -> Result<Vec<Tally>, String> {
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
    fn tools_answer_in_json() {
        assert_eq!(
            run("lose-positions", json!({"count": 4})),
            Ok(vec![json!([[0, 0], [1, 2], [3, 5], [4, 7]])])
        );
        let best = run("best-move", json!({"piles": [6, 4]})).unwrap_or_default();
        assert_eq!(best[0]["move"], json!({"take": [1, 1]}));
        assert_eq!(best[0]["to"], json!([3, 5]));
        assert_eq!(best[0]["lose"], json!(false));
        let lost = run("best-move", json!({"piles": [5, 3]})).unwrap_or_default();
        assert_eq!(lost[0]["move"], serde_json::Value::Null);
        assert_eq!(lost[0]["lose"], json!(true));
    }

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn command_line_words_make_the_input() {
        assert_eq!(
            args_input("best-move", &words("5 9")),
            Ok(ArgsInput::Complete(json!({"piles": [5, 9]})))
        );
        assert_eq!(
            args_input("lose-positions", &words("5")),
            Ok(ArgsInput::Complete(json!({"count": 5})))
        );
        assert_eq!(
            args_input("best-move", &[]),
            Ok(ArgsInput::Stdin(Default::default()))
        );
        for (tool, line, says) in [
            ("best-move", "5 x", "\"x\" is not a whole number"),
            ("best-move", "5 -1", "\"-1\" is not a whole number"),
            ("best-move", "5", "usage: parlor nimrod best-move A B"),
            (
                "lose-positions",
                "1 2",
                "usage: parlor nimrod lose-positions N",
            ),
            ("best-move", "5 9 --dealer", "takes no flags"),
        ] {
            let err = args_input(tool, &words(line)).err().unwrap_or_default();
            assert!(err.contains(says), "{tool} {line}: {err}");
        }
    }

    #[test]
    fn a_list_larger_than_the_memory_budget_is_refused_before_it_is_built() {
        let ask = |count: u64, bytes: usize| {
            let mut out = Vec::new();
            analyze(
                "lose-positions",
                &json!({ "count": count }),
                Budget::within(usize::MAX, bytes),
                &mut |x| {
                    out.push(x);
                    true
                },
            )
            .map(|()| out)
        };
        let budget = 1 << 20;
        let fits = ask(10_000, budget).unwrap_or_default();
        // The estimate is an upper one: the real text is within it.
        assert!(fits[0].len() as u64 * 2 + 16 * 10_000 <= list_bytes(10_000));
        assert!(list_bytes(10_000) <= budget as u64);
        match ask(MAX_LOSE_POSITIONS, budget) {
            Err(AnalysisError::TooLarge(m)) => assert!(m.contains("MiB"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_input_is_explained() {
        assert!(matches!(
            run("best-move", json!({"piles": [-1, 2]})),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run("lose-positions", json!({"count": MAX_LOSE_POSITIONS + 1})),
            Err(AnalysisError::BadInput(_))
        ));
        assert!(matches!(
            run("nope", json!({})),
            Err(AnalysisError::UnknownTool { .. })
        ));
    }
}
