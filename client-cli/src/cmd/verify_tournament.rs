//! `parlor verify-tournament ID`: re-check a finished event (see
//! `parlor_cli::tournament::verify`).

use std::io::Write;
use std::process::ExitCode;

use super::DEFAULT_SERVER;

/// Exit status when a check fails; 2 stays for usage and connection
/// errors, as with `parlor verify`.
const EXIT_CHECK_FAILED: u8 = 1;

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
    let verdict = parlor_cli::tournament::verify::verify_server(&a.server, &a.id).await?;
    let (text, code) = match &verdict {
        Ok(v) => (serde_json::to_string(v), ExitCode::SUCCESS),
        Err(f) => (serde_json::to_string(f), ExitCode::from(EXIT_CHECK_FAILED)),
    };
    let text = text.map_err(|e| format!("cannot write the report: {e}"))?;
    writeln!(std::io::stdout().lock(), "{text}")
        .map_err(|e| format!("cannot write the report: {e}"))?;
    if let Err(f) = &verdict {
        let at = match (f.round, f.game) {
            (Some(r), Some(g)) => format!("round {r}, game {g}: "),
            (Some(r), None) => format!("round {r}: "),
            _ => String::new(),
        };
        eprintln!(
            "parlor verify-tournament: {at}the {} check failed: {}",
            f.check, f.error
        );
    }
    Ok(code)
}
