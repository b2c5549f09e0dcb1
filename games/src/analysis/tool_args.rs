//! Analysis tools on the command line: how a tool's words (`parlor
//! cribbage score 5H 5S 5C JD --start 5D`) become its JSON input.
//!
//! Each game reads its own tools' words (its `analysis::args_input`,
//! reached through [`GameKind::tool_args`](crate::GameKind::tool_args)), so
//! the CLI passes the words through without knowing any game. This module
//! holds what the games share: the result, and the split of words into
//! plain words and `--flags`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// What a tool's command-line words make of its input.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgsInput {
    /// The words are the whole input.
    Complete(Value),
    /// The input is JSON read from standard input, with these fields set
    /// over it: flags given without the rest of the input (`discard
    /// --dealer` sets `"role"`). Empty when there were no words.
    Stdin(Map<String, Value>),
}

impl ArgsInput {
    /// Standard input's JSON `read`, with the fields of a
    /// [`ArgsInput::Stdin`] set over it. Fields need an object to go in;
    /// any other JSON is refused when there are fields to set.
    pub fn over_stdin(fields: Map<String, Value>, read: Value) -> Result<Value, String> {
        if fields.is_empty() {
            return Ok(read);
        }
        match read {
            Value::Object(mut obj) => {
                obj.extend(fields);
                Ok(Value::Object(obj))
            }
            _ => {
                let names: Vec<&str> = fields.keys().map(String::as_str).collect();
                Err(format!(
                    "the input must be a JSON object to take the flags' fields ({})",
                    names.join(", ")
                ))
            }
        }
    }
}

/// A `--flag` a tool takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    /// Its name without the dashes.
    pub name: &'static str,
    /// Whether it takes a value (`--start 5D` or `--start=5D`), else it is
    /// a switch (`--crib`).
    pub takes_value: bool,
}

/// A tool's words, split.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Words<'a> {
    /// The words that are not flags, in order.
    pub plain: Vec<&'a str>,
    /// The flags given, by name: the value, or `None` for a switch.
    pub flags: BTreeMap<&'static str, Option<&'a str>>,
}

impl Words<'_> {
    /// Whether switch or flag `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.flags.contains_key(name)
    }

    /// The value of flag `name`, if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags.get(name).copied().flatten()
    }
}

/// Splits `words` into plain words and the flags of `known`. A word
/// starting with `--` is a flag (so `-1` stays a plain word, for the tool
/// to refuse); an unknown flag, a flag given twice, a value given to a
/// switch and a missing value are refused, naming the tool's flags.
pub fn split<'a>(tool: &str, words: &'a [String], known: &[Flag]) -> Result<Words<'a>, String> {
    let mut out = Words::default();
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        let Some(flag) = word.strip_prefix("--") else {
            out.plain.push(word);
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (flag, None),
        };
        let Some(spec) = known.iter().find(|f| f.name == name) else {
            return Err(unknown(tool, word, known));
        };
        let value = match (spec.takes_value, inline) {
            (true, Some(v)) => Some(v),
            (true, None) => Some(
                rest.next()
                    .map(String::as_str)
                    .ok_or_else(|| format!("{tool}: --{name} needs a value"))?,
            ),
            (false, None) => None,
            (false, Some(_)) => return Err(format!("{tool}: --{name} takes no value")),
        };
        if out.flags.insert(spec.name, value).is_some() {
            return Err(format!("{tool}: --{name} is given twice"));
        }
    }
    Ok(out)
}

fn unknown(tool: &str, word: &str, known: &[Flag]) -> String {
    if known.is_empty() {
        return format!("{tool} takes no flags, not {word}");
    }
    let names: Vec<String> = known.iter().map(|f| format!("--{}", f.name)).collect();
    format!("{tool} takes no {word} (its flags: {})", names.join(", "))
}

/// The input of a tool that reads only JSON on standard input: no words,
/// or an error saying so.
pub fn stdin_only(game: &str, tool: &str, words: &[String]) -> Result<ArgsInput, String> {
    if words.is_empty() {
        Ok(ArgsInput::Stdin(Map::new()))
    } else {
        Err(format!(
            "{game} {tool} takes its input as JSON on standard input, not as arguments"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FLAGS: &[Flag] = &[
        Flag {
            name: "start",
            takes_value: true,
        },
        Flag {
            name: "crib",
            takes_value: false,
        },
    ];

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn flags_are_split_from_plain_words_in_either_form() {
        let w = words("5H --start 5D -1 --crib JD");
        let got = split("score", &w, FLAGS).unwrap_or_default();
        assert_eq!(got.plain, ["5H", "-1", "JD"]);
        assert_eq!(got.value("start"), Some("5D"));
        assert!(got.has("crib") && got.value("crib").is_none());
        let w = words("--start=5D");
        let got = split("score", &w, FLAGS).unwrap_or_default();
        assert_eq!(got.value("start"), Some("5D"));
        assert!(got.plain.is_empty() && !got.has("crib"));
    }

    #[test]
    fn bad_flags_are_refused_with_the_reason() {
        for (line, says) in [
            ("--dealer", "its flags: --start, --crib"),
            ("5H --start", "--start needs a value"),
            ("--crib=yes", "--crib takes no value"),
            ("--crib --crib", "--crib is given twice"),
        ] {
            let w = words(line);
            let err = split("score", &w, FLAGS).err().unwrap_or_default();
            assert!(
                err.starts_with("score") && err.contains(says),
                "{line}: {err}"
            );
        }
        let w = words("--x");
        let err = split("best-move", &w, &[]).err().unwrap_or_default();
        assert_eq!(err, "best-move takes no flags, not --x");
    }

    #[test]
    fn fields_go_over_a_json_object_only() {
        let mut fields = Map::new();
        assert_eq!(
            ArgsInput::over_stdin(fields.clone(), json!([1])),
            Ok(json!([1]))
        );
        fields.insert("role".into(), json!("dealer"));
        assert_eq!(
            ArgsInput::over_stdin(fields.clone(), json!({"cards": [], "role": "pone"})),
            Ok(json!({"cards": [], "role": "dealer"}))
        );
        let err = ArgsInput::over_stdin(fields, json!("5H"))
            .err()
            .unwrap_or_default();
        assert!(err.contains("JSON object") && err.contains("role"), "{err}");
        assert!(stdin_only("rummikub", "predict", &[]).is_ok());
        let err = stdin_only("rummikub", "predict", &words("x"))
            .err()
            .unwrap_or_default();
        assert!(err.contains("standard input"), "{err}");
    }
}
