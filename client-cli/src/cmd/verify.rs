//! `parlor verify`: check a finished match's deal and every step (see
//! `parlor_cli::verify::match_log`).

use std::process::ExitCode;

use parlor_cli::verify::{match_log, print};

use super::{fetch_log, DEFAULT_SERVER};

/// `parlor verify`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The room of a finished match.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
}

/// Runs `parlor verify`: prints one JSON object; exit status 1 when a
/// check fails.
pub async fn run(a: Args) -> Result<ExitCode, String> {
    let log = fetch_log(&a.server, &a.room, "parlor-verify").await?;
    print(&match_log::verify(&log))
}
