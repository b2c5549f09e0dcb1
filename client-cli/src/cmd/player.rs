//! `parlor player NAME`: an account's ratings, record and last rated
//! games.

use parlor_cli::localtime::Zone;
use parlor_cli::{api, ratings};

use super::account_server;

/// Largest answer read: a page holds a record per game and 20 rated
/// games, a few KB.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// `parlor player`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The account's name.
    name: String,
    /// Print the server's answer as JSON, for scripts.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// Runs `parlor player`.
pub async fn run(a: Args) -> Result<(), String> {
    let url = account_server(a.server);
    let path = format!("/api/players/{}", api::escape(&a.name));
    let answer = api::get(&url, &path, MAX_ANSWER_BYTES).await?;
    if answer.status != 200 {
        return Err(answer.refusal());
    }
    if a.json {
        // The server's page as it is, every field kept.
        let v: serde_json::Value = serde_json::from_slice(&answer.body)
            .map_err(|e| format!("the player's page is not readable: {e}"))?;
        let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        println!("{text}");
        return Ok(());
    }
    let page: ratings::PlayerPage = serde_json::from_slice(&answer.body)
        .map_err(|e| format!("the player's page is not readable: {e}"))?;
    print!("{}", ratings::player(&page, &Zone::system()));
    Ok(())
}
