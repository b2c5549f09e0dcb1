//! Cribbage's analysis tools. Cards are written either way: `{"rank": 5,
//! "suit": "hearts"}` or `"5H"`; answers use the object form.
//!
//! - `score`: `{"hand": [4 cards], "start": card, "crib": bool}` (`crib`
//!   optional, default `false`) -> `{"total": N, "breakdown": {"fifteens":
//!   p, "pairs": p, "runs": p, "flush": p, "nobs": p, "items": [{"kind":
//!   "fifteen" | "pair" | "run" | "flush" | "nobs", "cards": [...],
//!   "points": p}, ...]}}`.
//! - `discard`: `{"cards": [5 or 6 cards], "role": "dealer" | "pone"}`
//!   (`role` optional) -> `{"keep": [4 cards], "crib": [cards], "expected":
//!   x}`. Without a role this is exactly the seed's `select_hand`
//!   (`expected` is the kept hand's average over the start cards); with one
//!   it is the crib-aware advisor, adding `"hand_expected"` and
//!   `"crib_expected"` (the crib's value, negative for the pone), and
//!   `expected` is their sum, the value maximised.

use serde::Deserialize;
use serde_json::json;

use super::advice::{advise, select_hand, Role};
use super::card::{first_duplicate, Card};
use super::score::{breakdown, HandKind};
use crate::analysis::{emit_json, input, AnalysisError, Budget, Emit};

/// The tools, by name.
pub const TOOLS: &[&str] = &["score", "discard"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScoreInput {
    hand: Vec<Card>,
    start: Card,
    #[serde(default)]
    crib: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiscardInput {
    cards: Vec<Card>,
    #[serde(default)]
    role: Option<Role>,
}

/// Runs tool `tool` on `input`. Cribbage's tools do a fixed, small amount
/// of work (at most a few million hand evaluations), so no budget applies.
pub fn analyze(
    tool: &str,
    value: &serde_json::Value,
    _budget: Budget,
    emit: &mut Emit<'_>,
) -> Result<(), AnalysisError> {
    match tool {
        "score" => {
            let ScoreInput { hand, start, crib } = input(tool, value)?;
            let four: [Card; 4] = hand.as_slice().try_into().map_err(|_| {
                AnalysisError::bad(format!(
                    "score: a hand is 4 cards (the start card apart), not {}",
                    hand.len()
                ))
            })?;
            let all = [four[0], four[1], four[2], four[3], start];
            if let Some(card) = first_duplicate(&all) {
                return Err(AnalysisError::bad(format!(
                    "score: {card} appears twice among the hand and the start card"
                )));
            }
            let kind = if crib { HandKind::Crib } else { HandKind::Hand };
            let b = breakdown(&four, start, kind);
            emit_json(emit, 0, &json!({"total": b.total(), "breakdown": b}))
        }
        "discard" => {
            let DiscardInput { cards, role } = input(tool, value)?;
            let bad = |e: super::advice::DealError| AnalysisError::bad(format!("discard: {e}"));
            match role {
                None => {
                    let s = select_hand(&cards).map_err(bad)?;
                    emit_json(
                        emit,
                        0,
                        &json!({"keep": s.keep, "crib": s.crib, "expected": s.expected}),
                    )
                }
                Some(role) => {
                    let a = advise(&cards, role).map_err(bad)?;
                    emit_json(
                        emit,
                        0,
                        &json!({
                            "keep": a.keep,
                            "crib": a.crib,
                            "expected": a.expected,
                            "hand_expected": a.hand_expected,
                            "crib_expected": a.crib_expected,
                        }),
                    )
                }
            }
        }
        _ => Err(AnalysisError::UnknownTool {
            game: "cribbage",
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
    fn score_answers_with_a_breakdown() {
        let out = run(
            "score",
            json!({"hand": ["5H", "5S", "5C", {"rank": "jack", "suit": "diamonds"}], "start": "5D"}),
        )
        .unwrap_or_default();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["total"], json!(29));
        let b = &out[0]["breakdown"];
        assert_eq!(b["fifteens"], json!(16));
        assert_eq!(b["pairs"], json!(12));
        assert_eq!(b["runs"], json!(0));
        assert_eq!(b["flush"], json!(0));
        assert_eq!(b["nobs"], json!(1));
        assert_eq!(b["items"].as_array().map(Vec::len), Some(8 + 6 + 1));
        assert_eq!(
            b["items"][14],
            json!({"kind": "nobs", "cards": [{"rank": "jack", "suit": "diamonds"}], "points": 1})
        );
        let crib = run(
            "score",
            json!({"hand": ["2H", "4H", "6H", "8H"], "start": "KS", "crib": true}),
        )
        .unwrap_or_default();
        assert_eq!(crib[0]["total"], json!(0));
    }

    #[test]
    fn discard_answers_like_the_seed_or_the_advisor() {
        let seed = run(
            "discard",
            json!({"cards": ["5H", "5S", "5C", "JD", "KC", "9S"]}),
        )
        .unwrap_or_default();
        assert_eq!(
            seed[0]["keep"],
            json!(["5C", "5H", "5S", "JD"].map(|c| {
                serde_json::to_value(c.parse::<Card>().unwrap_or_else(|e| panic!("{e}")))
                    .unwrap_or_default()
            }))
        );
        assert!(seed[0].get("crib_expected").is_none());
        let dealer = run(
            "discard",
            json!({"cards": ["5H", "5S", "5C", "JD", "KC", "9S"], "role": "dealer"}),
        )
        .unwrap_or_default();
        let d = &dealer[0];
        let sum =
            d["hand_expected"].as_f64().unwrap_or(0.0) + d["crib_expected"].as_f64().unwrap_or(0.0);
        assert!((d["expected"].as_f64().unwrap_or(-1.0) - sum).abs() < 1e-9);
        assert!(d["crib_expected"].as_f64().unwrap_or(-1.0) > 0.0);
        let pone = run(
            "discard",
            json!({"cards": ["5H", "5S", "5C", "JD", "KC"], "role": "pone"}),
        )
        .unwrap_or_default();
        assert!(pone[0]["crib_expected"].as_f64().unwrap_or(1.0) < 0.0);
        assert_eq!(pone[0]["crib"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn bad_input_is_explained_not_panicked_on() {
        let cases = [
            ("score", json!({"hand": ["5H", "5S", "5C"], "start": "5D"})),
            (
                "score",
                json!({"hand": ["5H", "5S", "5C", "5D"], "start": "5D"}),
            ),
            (
                "score",
                json!({"hand": ["5H", "5S", "5C", "XD"], "start": "5D"}),
            ),
            (
                "score",
                json!({"hand": ["5H", "5S", "5C", {"rank": 1, "suit": "hearts"}], "start": "5D"}),
            ),
            ("score", json!({"hand": ["5H", "5S", "5C", "6C"]})),
            (
                "score",
                json!({"hand": ["5H", "5S", "5C", "6C"], "start": "5D", "extra": 1}),
            ),
            ("discard", json!({"cards": ["5H", "5S", "5C", "6C"]})),
            (
                "discard",
                json!({"cards": ["5H", "5S", "5C", "6C", "7C", "8C", "9C"]}),
            ),
            ("discard", json!({"cards": ["5H", "5S", "5C", "6C", "5H"]})),
            (
                "discard",
                json!({"cards": ["5H", "5S", "5C", "6C", "7C"], "role": "banker"}),
            ),
            ("discard", json!("5H 5S")),
        ];
        for (tool, v) in cases {
            match run(tool, v.clone()) {
                Err(AnalysisError::BadInput(msg)) => assert!(!msg.is_empty()),
                other => panic!("{tool} {v}: {other:?}"),
            }
        }
        assert!(matches!(
            run("nope", json!({})),
            Err(AnalysisError::UnknownTool { .. })
        ));
    }
}
