//! Rummikub Lite in the terminal.
//!
//! Blocks show as number and colour letter (`7r`, `12k`: r red, b blue,
//! y yellow, k black), coloured when the output is a terminal. Moves are
//! typed as `draw`, `pass`, `row 5r 5b 5k` (lay three blocks) or `add 8r
//! 2` (add a block to table row 2), or picked by number from the list.
//! Rows are called as players call them: a group (one number, different
//! colours) or a run (one colour, numbers in a row).

use std::io::IsTerminal;

use parlor_games::rummikub::{Block, Color, Move, Row, View};
use parlor_protocol::Update;
use serde_json::Value;

fn letter(c: Color) -> char {
    match c {
        Color::Red => 'r',
        Color::Blue => 'b',
        Color::Yellow => 'y',
        Color::Black => 'k',
    }
}

fn ansi(c: Color) -> &'static str {
    match c {
        Color::Red => "\x1b[31m",
        Color::Blue => "\x1b[34m",
        Color::Yellow => "\x1b[33m",
        Color::Black => "\x1b[90m",
    }
}

/// A block as `7r`, coloured on a terminal.
pub fn block(b: Block) -> String {
    let text = format!("{}{}", b.number, letter(b.color));
    if std::io::stdout().is_terminal() {
        format!("{}{text}\x1b[0m", ansi(b.color))
    } else {
        text
    }
}

fn blocks(bs: &[Block]) -> String {
    bs.iter().map(|b| block(*b)).collect::<Vec<_>>().join(" ")
}

fn row(r: &Row) -> String {
    let kind = match r {
        Row::Crow(_) => "group",
        Row::Nrow(_) => "run",
    };
    format!("{}  ({kind})", blocks(r.blocks()))
}

/// A move in words, as an instruction: "lay 5r 5b 5k".
pub fn describe(m: &Move) -> String {
    match m {
        Move::Draw => "draw a block".into(),
        Move::Pass => "pass (the bag is empty)".into(),
        Move::PlayRow(r) => format!("lay {}", blocks(r.blocks())),
        Move::PlayBlock { block: b, row: r } => {
            format!("add {} to make {}", block(*b), blocks(r.blocks()))
        }
    }
}

/// A move in words, as done: "laid 5r 5b 5k".
fn done(m: &Move, drew: Option<Block>) -> String {
    match (m, drew) {
        (Move::Draw, Some(b)) => format!("drew {}", block(b)),
        (Move::Draw, None) => "drew a block".into(),
        (Move::Pass, _) => "passed".into(),
        (Move::PlayRow(r), _) => format!("laid {}", blocks(r.blocks())),
        (Move::PlayBlock { block: b, row: r }, _) => {
            format!("added {}, making {}", block(*b), blocks(r.blocks()))
        }
    }
}

/// What a row rule means, in players' words.
fn rule(name: &str) -> &'static str {
    match name {
        "too_short" => "a row needs at least 3 blocks",
        "mixed_numbers" => "a group's blocks all have the same number",
        "repeated_color" => "a group's blocks all have different colours",
        "mixed_colors" => "a run's blocks are all of one colour",
        "wrong_order" | "gap" => "a run's numbers follow on one by one, e.g. 4r 5r 6r",
        "duplicate_block" => "a block can be laid only once",
        _ => "that is not a group or a run",
    }
}

/// A block from the JSON of an error's detail, in short notation.
fn block_in(v: &Value) -> Option<String> {
    serde_json::from_value::<Block>(v.clone()).ok().map(block)
}

/// A move from the JSON of an error's detail, in words.
fn move_in(v: &Value) -> Option<String> {
    serde_json::from_value::<Move>(v.clone())
        .ok()
        .map(|m| describe(&m))
}

/// Table, racks and bag.
pub fn board(u: &Update) -> String {
    let Ok(view) = serde_json::from_value::<View>(u.view.clone()) else {
        return format!("{}", u.view);
    };
    let mut s = String::from("  Table:\n");
    if view.table.is_empty() {
        s.push_str("    (empty)\n");
    }
    for (i, r) in view.table.iter().enumerate() {
        s.push_str(&format!("    {:>2}. {}\n", i + 1, row(r)));
    }
    let sizes: Vec<String> = view
        .rack_sizes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let seat = parlor_games::Seat(u8::try_from(i).unwrap_or(u8::MAX));
            format!("{}: {n}", super::who(u, seat))
        })
        .collect();
    s.push_str(&format!(
        "  Blocks held: {} · bag: {}\n",
        sizes.join(", "),
        view.bag
    ));
    if let Some(rack) = &view.rack {
        s.push_str(&format!("  Your rack: {}\n", blocks(rack)));
    }
    if let Some(last) = last_move(u) {
        s.push_str(&format!("  Last move: {last}\n"));
    }
    if let Some(totals) = &view.totals {
        let shown: Vec<String> = totals
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{} {t}", super::who(u, parlor_games::Seat(i as u8))))
            .collect();
        s.push_str(&format!(
            "  Everyone passed; rack totals (lowest wins): {}\n",
            shown.join(", ")
        ));
    } else if view.passes > 0 {
        s.push_str(&format!("  Passes in a row: {}\n", view.passes));
    }
    s
}

/// The move that led to `u`, in words.
pub fn last_move(u: &Update) -> Option<String> {
    let view = serde_json::from_value::<View>(u.view.clone()).ok()?;
    let last = view.last?;
    Some(format!(
        "{} {}",
        super::who(u, last.seat),
        done(&last.mv, last.drew)
    ))
}

/// A refusal of the rules in players' words.
pub fn refusal(detail: &Value) -> Option<String> {
    let get = |k: &str| detail.get(k);
    Some(match get("reason")?.as_str()? {
        "row_length" => format!(
            "a new row is exactly 3 blocks from your rack, not {}",
            get("len")?
        ),
        "not_in_rack" => format!("you have no {} on your rack", block_in(get("block")?)?),
        "broken_row" => {
            let mut rules: Vec<&str> = get("problems")?
                .as_array()?
                .iter()
                .filter_map(|p| p.get("rule")?.as_str())
                .map(rule)
                .collect();
            rules.dedup();
            format!("that row breaks the rules: {}", rules.join("; "))
        }
        "block_not_in_row" | "not_an_extension" => format!(
            "{} does not fit that row: a run takes the next number of its colour at either end, \
             a group a colour it lacks",
            block_in(get("block")?)?
        ),
        "must_play" => format!(
            "you can still play, so you may not draw: for example, {}",
            move_in(get("example")?)?
        ),
        "cannot_pass" => format!(
            "you can still play, so you may not pass: for example, {}",
            move_in(get("example")?)?
        ),
        "no_passing" => "this room has no passing: when the bag is empty and nobody can play, \
                         the game ends drawn"
            .into(),
        "bag_empty" => "the bag is empty, so there is nothing to draw: type `pass`".into(),
        _ => return None,
    })
}

/// The legal moves, numbered, and the short notation.
pub fn prompt(u: &Update) -> String {
    let mut s = String::from(
        "Your move: type its number, or `row 5r 5b 5k`, `add 8r 2` (block to table row 2), \
         `draw` (`pass` when the bag is empty):\n",
    );
    for (i, m) in u.legal.iter().flatten().enumerate() {
        let text = serde_json::from_value::<Move>(m.clone())
            .map_or_else(|_| m.to_string(), |m| describe(&m));
        s.push_str(&format!("  {:>3}. {text}\n", i + 1));
    }
    s
}

/// Reads `7r` (also `7R`, `r7`).
pub fn parse_block(word: &str) -> Result<Block, String> {
    let w = word.to_lowercase();
    let color_of = |c: char| match c {
        'r' => Some(Color::Red),
        'b' => Some(Color::Blue),
        'y' => Some(Color::Yellow),
        'k' => Some(Color::Black),
        _ => None,
    };
    let (num, col) = match (w.chars().next(), w.chars().last()) {
        (Some(first), _) if color_of(first).is_some() => (&w[1..], color_of(first)),
        (_, Some(last)) if color_of(last).is_some() => (&w[..w.len() - 1], color_of(last)),
        _ => (w.as_str(), None),
    };
    match (num.parse::<i64>(), col) {
        (Ok(n), Some(c)) => Ok(Block::new(n, c)),
        _ => Err(format!("{word:?} is not a block: write its number and colour letter, e.g. 7r (r red, b blue, y yellow, k black)")),
    }
}

/// Reads `draw`, `row B B B` or `add B N`.
pub fn parse(u: &Update, line: &str) -> Result<Value, String> {
    let view: View = serde_json::from_value(u.view.clone()).map_err(|e| e.to_string())?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let mv = match words.as_slice() {
        ["draw"] | ["d"] => Move::Draw,
        ["pass"] | ["p"] => Move::Pass,
        ["row", a, b, c] => {
            let mut bs = vec![parse_block(a)?, parse_block(b)?, parse_block(c)?];
            if bs.iter().all(|b| b.number == bs[0].number) {
                Move::PlayRow(Row::crow(bs))
            } else {
                bs.sort_by_key(|b| b.number);
                Move::PlayRow(Row::Nrow(bs))
            }
        }
        ["add", b, rest @ ..] => {
            let b = parse_block(b)?;
            let index = match rest {
                [n] | ["to", n] => n
                    .parse::<usize>()
                    .ok()
                    .filter(|i| (1..=view.table.len()).contains(i))
                    .ok_or_else(|| {
                        format!(
                            "{n:?} is not a row on the table (1 to {})",
                            view.table.len()
                        )
                    })?,
                _ => return Err("write `add 8r 2` to add 8r to table row 2".into()),
            };
            let target = &view.table[index - 1];
            let options = target.extensions(b);
            // The legal list knows which end fits; otherwise send the
            // likeliest and let the server say why it does not.
            let legal: Vec<Move> = u
                .legal
                .iter()
                .flatten()
                .filter_map(|m| serde_json::from_value(m.clone()).ok())
                .collect();
            let chosen = options
                .iter()
                .find(|r| {
                    legal.contains(&Move::PlayBlock {
                        block: b,
                        row: (*r).clone(),
                    })
                })
                .or_else(|| {
                    options.iter().find(|r| match r {
                        Row::Nrow(bs) => bs.windows(2).all(|w| w[0].number < w[1].number),
                        Row::Crow(_) => true,
                    })
                })
                .or(options.first())
                .cloned()
                .ok_or("that row cannot take a block")?;
            Move::PlayBlock {
                block: b,
                row: chosen,
            }
        }
        _ => {
            return Err(
                "type a number from the list, `draw`, `pass`, `row 5r 5b 5k` or `add 8r 2`".into(),
            )
        }
    };
    serde_json::to_value(mv).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_in_short_notation() {
        assert_eq!(parse_block("7r"), Ok(Block::new(7, Color::Red)));
        assert_eq!(parse_block("12K"), Ok(Block::new(12, Color::Black)));
        assert_eq!(parse_block("y3"), Ok(Block::new(3, Color::Yellow)));
        assert!(parse_block("7g").is_err());
        assert!(parse_block("red").is_err());
    }

    #[test]
    fn pass_is_read_as_the_pass_move() {
        let u: Update = serde_json::from_value(serde_json::json!({
            "room": "000000000001", "game": "rummikub", "seq": 9, "status": "playing",
            "seats": [], "you": 0, "to_act": [0],
            "view": {"rack": [{"number": 1, "color": "red"}], "table": [], "rack_sizes": [1, 1],
                     "bag": 0, "next": 0, "last": null, "empty_bag": "pass"},
            "legal": ["pass"],
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parse(&u, "pass"), Ok(serde_json::json!("pass")));
        assert_eq!(parse(&u, "draw"), Ok(serde_json::json!("draw")));
        assert!(prompt(&u).contains("pass (the bag is empty)"));
    }

    #[test]
    fn refusals_are_told_in_players_words() {
        let example = serde_json::json!({"playblock": {
            "block": {"number": 2, "color": "red"},
            "row": {"nrow": [{"number": 2, "color": "red"}, {"number": 3, "color": "red"},
                             {"number": 4, "color": "red"}]}}});
        let said = refusal(&serde_json::json!({"reason": "must_play", "example": example}))
            .unwrap_or_default();
        assert_eq!(
            said,
            "you can still play, so you may not draw: for example, add 2r to make 2r 3r 4r"
        );
        let said = refusal(&serde_json::json!({"reason": "broken_row", "problems": [
            {"row": 0, "rule": "mixed_colors", "message": "an nrow mixes colours"}]}))
        .unwrap_or_default();
        assert!(
            said.contains("a run's blocks are all of one colour"),
            "{said}"
        );
        assert!(!said.contains("nrow"), "{said}");
        assert_eq!(done(&Move::Draw, None), "drew a block");
    }
}

/// Rummikub's renderer.
#[derive(Debug)]
pub struct Rummikub;

impl super::Renderer for Rummikub {
    fn board(&self, u: &Update) -> String {
        board(u)
    }

    fn prompt(&self, u: &Update) -> String {
        prompt(u)
    }

    fn parse(&self, u: &Update, line: &str) -> Result<Value, String> {
        parse(u, line)
    }

    fn last_move(&self, u: &Update) -> Option<String> {
        last_move(u)
    }

    fn refusal(&self, _u: &Update, detail: &Value) -> Option<String> {
        refusal(detail)
    }
}
