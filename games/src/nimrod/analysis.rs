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
use super::piles::Piles;
use crate::analysis::{emit_json, input, AnalysisError, Budget, Emit};
use crate::tool_args::{split, ArgsInput};

/// The tools, by name.
pub const TOOLS: &[&str] = &["lose-positions", "best-move"];

/// Most lose positions one request may list: a million pairs is about 20 MB
/// of JSON, beyond which a caller wants the closed form, not a list.
pub const MAX_LOSE_POSITIONS: u64 = 1_000_000;

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
        _ => return crate::tool_args::stdin_only("nimrod", tool, words),
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
