//! What a shell block's comment shows of a command's output: JSON beside
//! the command or on the line after it (`# {"lose":false,...}`), held
//! against what the command printed: the values too for a pure function
//! (analysis), the keys only for what reads a server (its state is not
//! the example's).

use serde_json::Value;

/// How a comment's JSON is held against a command's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expect {
    /// The values too (a pure function of the input: analysis).
    Exact,
    /// Its keys only (the server's state differs from the example's).
    Keys,
}

/// The JSON a comment shows (`{"lose":false,"move":{...},...}`), with
/// `"..."` for any value and a trailing `"..."` in a list for "and more",
/// if the comment starts with JSON.
fn shown_json(comment: &str) -> Option<Value> {
    let text = comment.trim();
    if !text.starts_with('{') && !text.starts_with('[') {
        return None;
    }
    // Up to the end of the JSON value: a comment may go on in words.
    let text = text
        .replace("{...}", "\"...\"")
        .replace("[...]", "\"...\"")
        .replace(",...}", "}")
        .replace(", ...}", "}")
        .replace(",...]", ",\"...\"]")
        .replace(", ...]", ",\"...\"]");
    let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    match stream.next() {
        Some(Ok(v)) => Some(v),
        _ => panic!("the comment {comment:?} starts as JSON but is not"),
    }
}

/// Whether `got` fits `shown` (see [`shown_json`]).
fn fits(shown: &Value, got: &Value, expect: Expect) -> bool {
    match (shown, got) {
        (Value::String(s), _) if s == "..." => true,
        (Value::String(s), Value::String(g)) if s.ends_with("...") => {
            g.starts_with(s.trim_end_matches("..."))
        }
        (Value::Object(s), Value::Object(g)) => s.iter().all(|(k, v)| {
            g.get(k)
                .is_some_and(|gv| expect == Expect::Keys || fits(v, gv, expect))
        }),
        (_, _) if expect == Expect::Keys => shown.is_object() == got.is_object(),
        (Value::Array(s), Value::Array(g)) => {
            let more = s.last().is_some_and(|l| l == "...");
            let s = if more { &s[..s.len() - 1] } else { &s[..] };
            (if more {
                g.len() >= s.len()
            } else {
                g.len() == s.len()
            }) && s.iter().zip(g).all(|(s, g)| fits(s, g, expect))
        }
        _ => shown == got,
    }
}

/// What a command printed, and how the comment's JSON is held against it.
#[derive(Debug, Default)]
pub(super) struct Output {
    pub(super) text: Option<String>,
    pub(super) expect: Option<Expect>,
}

/// Holds `output` against the JSON a comment shows, if it shows some.
pub(super) fn check_comment(what: &str, comment: &str, output: &Output) {
    let (Some(shown), Some(text), Some(expect)) =
        (shown_json(comment), &output.text, output.expect)
    else {
        return;
    };
    let got: Value = serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("{what}: the comment shows JSON, the command printed {text:?}"));
    assert!(
        fits(&shown, &got, expect),
        "{what}: printed {got}, the comment shows {comment}"
    );
}
