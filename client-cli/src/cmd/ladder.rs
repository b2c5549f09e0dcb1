//! `parlor ladder GAME`: a game's bot ladder (its entrants best first,
//! the games being played, the latest results).

use parlor_cli::ladder::{api, text};
use parlor_games::GameKind;

use super::account_server;

/// `parlor ladder`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game.
    game: GameKind,
    /// Print the server's page as JSON, for scripts.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// Runs `parlor ladder`.
pub async fn run(a: Args) -> Result<(), String> {
    let url = account_server(a.server);
    if a.json {
        let v = api::page_json(&url, a.game).await?;
        let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print!("{}", text::page(&api::page(&url, a.game).await?));
    }
    Ok(())
}
