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
//!
//! On the command line ([`args_input`]): `score 5H 5S 5C JD --start 5D
//! [--crib]`, `discard 5H 5S JD 2C 8H KS [--dealer | --pone]`; without
//! cards the input is JSON on standard input, and the flags given set
//! their fields over it (`discard --dealer` sets `"role"`).

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::analysis::tool_args::{split, stdin_only, ArgsInput, Flag};
use crate::analysis::{emit_json, input, Analysis, AnalysisError, Budget, Emit};
use crate::cribbage::advice::{advise, select_hand, Role};
use crate::cribbage::card::{first_duplicate, Card};
use crate::cribbage::score::{breakdown, HandKind};
use crate::cribbage::Cribbage;

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

/// The flags of `score`: the start card, and whether the hand is a crib.
const SCORE_FLAGS: &[Flag] = &[
    Flag {
        name: "start",
        takes_value: true,
    },
    Flag {
        name: "crib",
        takes_value: false,
    },
];

/// The flags of `discard`: whose crib it is.
const DISCARD_FLAGS: &[Flag] = &[
    Flag {
        name: "dealer",
        takes_value: false,
    },
    Flag {
        name: "pone",
        takes_value: false,
    },
];

/// The input of tool `tool` from its command-line words (see the module
/// doc). Cards stay as typed: the tool reads and checks them.
pub fn args_input(tool: &str, words: &[String]) -> Result<ArgsInput, String> {
    let mut fields = Map::new();
    match tool {
        "score" => {
            let w = split(tool, words, SCORE_FLAGS)?;
            let crib = w.has("crib");
            if w.plain.is_empty() {
                if let Some(start) = w.value("start") {
                    fields.insert("start".into(), json!(start));
                }
                if crib {
                    fields.insert("crib".into(), json!(true));
                }
                return Ok(ArgsInput::Stdin(fields));
            }
            let Some(start) = w.value("start") else {
                return Err("usage: parlor cribbage score C1 C2 C3 C4 --start C [--crib]".into());
            };
            Ok(ArgsInput::Complete(
                json!({ "hand": w.plain, "start": start, "crib": crib }),
            ))
        }
        "discard" => {
            let w = split(tool, words, DISCARD_FLAGS)?;
            let role = match (w.has("dealer"), w.has("pone")) {
                (true, true) => {
                    return Err("discard: --dealer and --pone exclude each other".into())
                }
                (true, false) => Some("dealer"),
                (false, true) => Some("pone"),
                (false, false) => None,
            };
            if let Some(role) = role {
                fields.insert("role".into(), json!(role));
            }
            if w.plain.is_empty() {
                return Ok(ArgsInput::Stdin(fields));
            }
            fields.insert("cards".into(), json!(w.plain));
            Ok(ArgsInput::Complete(Value::Object(fields)))
        }
        _ => stdin_only("cribbage", tool, words),
    }
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
            let bad =
                |e: crate::cribbage::advice::DealError| AnalysisError::bad(format!("discard: {e}"));
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

impl Analysis for Cribbage {
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
        cfg: &crate::cribbage::Config,
        seats: u8,
        rng: crate::rng::GameRng,
        steps: &[crate::analysis::Played<crate::cribbage::Move>],
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

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn fields(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn command_line_words_make_the_input() {
        assert_eq!(
            args_input("score", &words("5H 5S 5C JD --start 5D")),
            Ok(ArgsInput::Complete(
                json!({"hand": ["5H", "5S", "5C", "JD"], "start": "5D", "crib": false})
            ))
        );
        assert_eq!(
            args_input("score", &words("--crib 2H 4H --start=KS 6H 8H")),
            Ok(ArgsInput::Complete(
                json!({"hand": ["2H", "4H", "6H", "8H"], "start": "KS", "crib": true})
            ))
        );
        assert_eq!(
            args_input("discard", &words("5H 5S JD 2C 8H KS")),
            Ok(ArgsInput::Complete(
                json!({"cards": ["5H", "5S", "JD", "2C", "8H", "KS"]})
            ))
        );
        assert_eq!(
            args_input("discard", &words("5H 5S JD 2C 8H KS --pone")),
            Ok(ArgsInput::Complete(
                json!({"cards": ["5H", "5S", "JD", "2C", "8H", "KS"], "role": "pone"})
            ))
        );
    }

    #[test]
    fn flags_without_cards_go_over_json_on_stdin() {
        assert_eq!(args_input("discard", &[]), Ok(ArgsInput::Stdin(Map::new())));
        assert_eq!(
            args_input("discard", &words("--dealer")),
            Ok(ArgsInput::Stdin(fields(json!({"role": "dealer"}))))
        );
        assert_eq!(
            args_input("score", &words("--crib --start 5D")),
            Ok(ArgsInput::Stdin(fields(
                json!({"crib": true, "start": "5D"})
            )))
        );
    }

    #[test]
    fn bad_words_are_refused_with_the_reason() {
        for (tool, line, says) in [
            ("score", "5H 5S 5C JD", "usage: parlor cribbage score"),
            ("score", "5H 5S 5C JD --start", "--start needs a value"),
            (
                "score",
                "5H 5S 5C JD --start 5D --dealer",
                "its flags: --start, --crib",
            ),
            (
                "discard",
                "5H 5S JD 2C 8H --dealer --pone",
                "exclude each other",
            ),
            (
                "discard",
                "5H 5S JD 2C 8H --start 5D",
                "its flags: --dealer, --pone",
            ),
        ] {
            let err = args_input(tool, &words(line)).err().unwrap_or_default();
            assert!(err.contains(says), "{tool} {line}: {err}");
        }
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
