//! Nimrod in the terminal.

use parlor_games::nimrod::View;
use parlor_protocol::Update;
use serde_json::{json, Value};

/// Piles up to this size are also drawn as rods.
const DRAWN_PILE_MAX: u64 = 60;

fn rods(n: u64) -> String {
    if n <= DRAWN_PILE_MAX {
        "|".repeat(n as usize)
    } else {
        String::new()
    }
}

/// The piles and the last move.
pub fn board(u: &Update) -> String {
    let Ok(view) = serde_json::from_value::<View>(u.view.clone()) else {
        return format!("{}", u.view);
    };
    let (a, b) = (view.piles.a(), view.piles.b());
    let mut s = format!(
        "  Pile A {a:>4}  {}\n  Pile B {b:>4}  {}\n",
        rods(a),
        rods(b)
    );
    if let Some(last) = view.last {
        let [x, y] = last.take;
        let what = match (x, y) {
            (0, y) => format!("took {y} from pile B"),
            (x, 0) => format!("took {x} from pile A"),
            (x, _) => format!("took {x} from both piles"),
        };
        s.push_str(&format!("  Last move: seat {} {what}\n", last.seat.0));
    }
    s
}

/// How to type a move.
pub fn prompt(_u: &Update) -> String {
    "Your move: \"a 3\" takes 3 from pile A, \"b 2\" 2 from pile B, \"both 1\" 1 from each (or \"x y\"):".into()
}

/// Reads `a N`, `b N`, `both N` or `X Y`.
pub fn parse(line: &str) -> Result<Value, String> {
    let words: Vec<String> = line.split_whitespace().map(str::to_lowercase).collect();
    let num = |s: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("{s:?} is not a number of rods"))
    };
    let take = match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["a", n] => [num(n)?, 0],
        ["b", n] => [0, num(n)?],
        ["both", n] => {
            let n = num(n)?;
            [n, n]
        }
        [x, y] => [num(x)?, num(y)?],
        _ => return Err("type e.g. \"a 3\", \"b 2\", \"both 1\" or \"0 2\"".into()),
    };
    Ok(json!({ "take": take }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_moves() {
        assert_eq!(parse("a 3"), Ok(json!({"take": [3, 0]})));
        assert_eq!(parse("B 2"), Ok(json!({"take": [0, 2]})));
        assert_eq!(parse("both 4"), Ok(json!({"take": [4, 4]})));
        assert_eq!(parse("0 5"), Ok(json!({"take": [0, 5]})));
        assert!(parse("take lots").is_err());
        assert!(parse("a -1").is_err());
    }
}

/// Nimrod's renderer.
#[derive(Debug)]
pub struct Nimrod;

impl super::Renderer for Nimrod {
    fn board(&self, u: &Update) -> String {
        board(u)
    }

    fn prompt(&self, u: &Update) -> String {
        prompt(u)
    }

    fn parse(&self, _u: &Update, line: &str) -> Result<Value, String> {
        parse(line)
    }
}
