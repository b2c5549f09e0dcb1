//! `parlor verify-ratings`: re-derive a server's ratings from its public
//! ledger and match logs (see `parlor_cli::verify_ratings`).

use std::io::Write;
use std::process::ExitCode;

use parlor_games::GameKind;

use super::DEFAULT_SERVER;

/// Exit status when a check fails; 2 stays for usage and connection
/// errors, as with `parlor verify`.
const EXIT_CHECK_FAILED: u8 = 1;

/// `parlor verify-ratings`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// Replay only this game's matches (the chain and the fold always
    /// cover the whole ledger).
    #[arg(long)]
    pool: Option<GameKind>,
}

/// Runs `parlor verify-ratings`: prints one JSON object; exit status 1
/// when a check fails.
pub async fn run(a: Args) -> Result<ExitCode, String> {
    let pool = a.pool.map(GameKind::name);
    let outcome = parlor_cli::verify_ratings::verify_server(&a.server, pool).await?;
    let (text, code) = match &outcome {
        Ok(v) => (serde_json::to_string(v), ExitCode::SUCCESS),
        Err(f) => (
            serde_json::to_string(&f.report()),
            ExitCode::from(EXIT_CHECK_FAILED),
        ),
    };
    let text = text.map_err(|e| format!("cannot write the report: {e}"))?;
    writeln!(std::io::stdout().lock(), "{text}")
        .map_err(|e| format!("cannot write the report: {e}"))?;
    if let Err(f) = &outcome {
        eprintln!(
            "parlor verify-ratings: line {}: the {} check failed: {}",
            f.line, f.check, f.reason
        );
    }
    Ok(code)
}
