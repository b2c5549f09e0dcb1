//! `parlor verify-tournament ID`: re-check a finished event (see
//! `parlor_cli::verify::tournament`).

use std::process::ExitCode;

use parlor_cli::verify::{print, tournament};

use super::DEFAULT_SERVER;

/// `parlor verify-tournament`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The event's id.
    id: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
}

/// Runs `parlor verify-tournament`: prints one JSON object; exit status
/// 1 when a check fails.
pub async fn run(a: Args) -> Result<ExitCode, String> {
    print(&tournament::verify_server(&a.server, &a.id).await?)
}
