//! `parlor GAME TOOL ...`: analysis without a server, JSON in and out.

use std::io::{Read, Write};

use parlor_games::{AnalysisError, ArgsInput, Budget, GameKind};
use serde_json::Value;

/// The analysis subcommands' arguments: a tool and its words, which the
/// game reads (flags such as `--start 5D` included).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ToolArgs {
    // The tool; its help lists every game's tools.
    #[arg(help = crate::help::tool())]
    pub tool: String,
    /// The input as words (e.g. `best-move 5 9`, `score 5H 5S 5C JD
    /// --start 5D`), flags included; without cards or numbers the input
    /// is JSON on standard input, and flags given set fields over it.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// The tool's JSON input: from its words, or read from `stdin` when the
/// game says the words are not the whole input.
pub fn input(game: GameKind, a: &ToolArgs, stdin: impl Read) -> Result<Value, String> {
    match game.tool_args(&a.tool, &a.args)? {
        ArgsInput::Complete(v) => Ok(v),
        ArgsInput::Stdin(fields) => {
            let read: Value = serde_json::from_reader(stdin)
                .map_err(|e| format!("{game} {}: the input is not valid JSON: {e}", a.tool))?;
            ArgsInput::over_stdin(fields, read).map_err(|e| format!("{game} {}: {e}", a.tool))
        }
    }
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
