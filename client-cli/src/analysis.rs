//! `parlor GAME TOOL ...`: analysis without a server, JSON in and out.

use std::io::Write;

use parlor_games::{AnalysisError, Budget, GameKind};
use serde_json::{json, Value};

/// Flags the analysis subcommands share.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ToolArgs {
    /// The tool (e.g. best-move, lose-positions, check-table, outcomes,
    /// predict, score, discard).
    pub tool: String,
    /// The input as arguments (e.g. `best-move 5 9`, `score 5H 5S 5C JD
    /// --start 5D`); without any, the input is JSON on standard input.
    pub args: Vec<String>,
    /// Cribbage `score`: the start card.
    #[arg(long)]
    pub start: Option<String>,
    /// Cribbage `score`: count the hand as a crib.
    #[arg(long)]
    pub crib: bool,
    /// Cribbage `discard`: advise the dealer (counts the crib for you).
    #[arg(long, conflicts_with = "pone")]
    pub dealer: bool,
    /// Cribbage `discard`: advise the dealer's opponent (counts the crib against you).
    #[arg(long)]
    pub pone: bool,
}

fn number(tool: &str, s: &str) -> Result<u64, String> {
    s.parse()
        .map_err(|_| format!("{tool}: {s:?} is not a whole number"))
}

/// Builds the tool's JSON input from command-line arguments, or `None`
/// when there are none (the input is then read from standard input).
pub fn input_from_args(game: GameKind, a: &ToolArgs) -> Result<Option<Value>, String> {
    let role = if a.dealer {
        Some("dealer")
    } else if a.pone {
        Some("pone")
    } else {
        None
    };
    if a.args.is_empty() {
        return Ok(None);
    }
    let tool = a.tool.as_str();
    let v = match (game.name(), tool) {
        ("nimrod", "lose-positions") => match a.args.as_slice() {
            [n] => json!({ "count": number(tool, n)? }),
            _ => return Err("usage: parlor nimrod lose-positions N".into()),
        },
        ("nimrod", "best-move") => match a.args.as_slice() {
            [x, y] => json!({ "piles": [number(tool, x)?, number(tool, y)?] }),
            _ => return Err("usage: parlor nimrod best-move A B".into()),
        },
        ("cribbage", "score") => {
            let Some(start) = &a.start else {
                return Err("usage: parlor cribbage score C1 C2 C3 C4 --start C [--crib]".into());
            };
            json!({ "hand": a.args, "start": start, "crib": a.crib })
        }
        ("cribbage", "discard") => {
            let mut v = json!({ "cards": a.args });
            if let Some(role) = role {
                v["role"] = json!(role);
            }
            v
        }
        _ => {
            return Err(format!(
                "{game} {tool} takes its input as JSON on standard input, not as arguments"
            ))
        }
    };
    Ok(Some(v))
}

/// Applies flags that also modify JSON read from standard input.
pub fn apply_flags(game: GameKind, a: &ToolArgs, mut input: Value) -> Value {
    if game.name() == "cribbage" && a.tool == "discard" {
        if let Some(obj) = input.as_object_mut() {
            if a.dealer {
                obj.insert("role".into(), json!("dealer"));
            } else if a.pone {
                obj.insert("role".into(), json!("pone"));
            }
        }
    }
    input
}

/// Runs the tool, printing each result as one line of JSON.
pub fn run(game: GameKind, tool: &str, input: &Value, out: &mut impl Write) -> Result<(), String> {
    let mut io_error = None;
    let res = game.analyze(
        tool,
        input,
        Budget::UNLIMITED,
        &mut |doc| match writeln!(out, "{doc}") {
            Ok(()) => true,
            Err(e) => {
                io_error = Some(e);
                false
            }
        },
    );
    if let Some(e) = io_error {
        // A closed pipe (e.g. `| head`) is a normal way to stop reading.
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Ok(());
        }
        return Err(format!("cannot write the results: {e}"));
    }
    match res {
        Ok(()) | Err(AnalysisError::Stopped(_)) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}
