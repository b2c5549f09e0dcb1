//! `parlor verify`: check a finished match's deal and every step.

use std::io::Write;
use std::process::ExitCode;

use super::{fetch_log, DEFAULT_SERVER};

/// Exit status of `verify` when a check fails; 2 is left for usage and
/// connection errors, as for every command, so a script can tell a
/// dishonest match from an unreachable server.
const EXIT_CHECK_FAILED: u8 = 1;

/// `parlor verify`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The room of a finished match.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
}

/// Runs `parlor verify`: the one command with an exit status of its own.
pub async fn run(a: Args) -> Result<ExitCode, String> {
    let log = fetch_log(&a.server, &a.room, "parlor-verify").await?;
    let report = parlor_cli::verify::verify(&log);
    let text = serde_json::to_string_pretty(&report)
        .map_err(|e| format!("cannot write the report: {e}"))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| format!("cannot write the report: {e}"))?;
    if !report.fair_deal {
        eprintln!(
            "parlor verify: note: this match was dealt before fair dealing, from a bare seed; \
             there is no commitment to check, only the replay"
        );
    }
    for f in &report.failures {
        eprintln!("parlor verify: the {} check failed: {f}", f.check().name());
    }
    Ok(if report.verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}
