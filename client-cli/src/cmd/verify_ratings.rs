//! `parlor verify-ratings`: re-derive a server's ratings from its public
//! ledger and match logs (see `parlor_cli::verify::ratings`).

use std::process::ExitCode;

use parlor_cli::verify::{print, ratings};
use parlor_games::GameKind;

use super::DEFAULT_SERVER;

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
    /// A head kept earlier, `N:HASH` (from `GET /api/ratings/head`): line
    /// N must still have that hash, or history was rewritten.
    #[arg(long, value_name = "N:HASH", value_parser = ratings::parse_kept)]
    head: Option<parlor_protocol::LedgerHead>,
    /// Read the matches' logs from this directory (`ROOM.json` each, as
    /// `get_log` or `GET /api/logs` gave them) rather than the server.
    #[arg(long, value_name = "DIR")]
    logs: Option<std::path::PathBuf>,
}

/// Runs `parlor verify-ratings`: prints one JSON object; exit status 1
/// when a check fails.
pub async fn run(a: Args) -> Result<ExitCode, String> {
    let pool = a.pool.map(GameKind::name);
    print(&ratings::verify_server_kept(&a.server, pool, a.head.as_ref(), a.logs.as_deref()).await?)
}
