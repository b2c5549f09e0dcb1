//! `parlor replay`: a finished match, move by move.

use parlor_cli::analysis;

use super::{fetch_log, DEFAULT_SERVER};

/// `parlor replay`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The room of a finished match.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// JSON lines (the header, each step with the public view after it,
    /// the outcome) instead of boards.
    #[arg(long, conflicts_with = "predict")]
    json: bool,
    /// Rummikub (two players): player 1's predicted win fraction after
    /// each move, counted exactly over every way the game could go on.
    #[arg(long)]
    predict: bool,
}

/// Runs `parlor replay`.
pub async fn run(a: Args) -> Result<(), String> {
    let log = fetch_log(&a.server, &a.room, "parlor-replay").await?;
    let mut out = std::io::stdout().lock();
    if a.json {
        return parlor_cli::replay::print(&log, &mut out);
    }
    if !a.predict {
        return parlor_cli::replay::show(&log, &mut out);
    }
    let game = log.header.game;
    let (tool, input) = parlor_protocol::log_analysis(&log)
        .ok_or_else(|| format!("{game} offers no analysis of a finished match"))?
        .map_err(|e| e.to_string())?;
    analysis::run(game, tool, &input, &mut out)
}
