//! `parlor leaderboard GAME`: a game's best established ratings.

use parlor_cli::{api, ratings};
use parlor_games::GameKind;
use parlor_protocol::Leaderboard;

use super::account_server;

/// Most rows the server sends (the API's limit).
const MAX_ROWS: u32 = 200;

/// Largest answer read: 200 rows of under 200 bytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// `parlor leaderboard`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game.
    game: GameKind,
    /// Bot accounts only.
    #[arg(long, conflicts_with = "humans")]
    bots: bool,
    /// Human accounts only.
    #[arg(long)]
    humans: bool,
    /// How many rows (1-200; the server's default is 50).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_ROWS)))]
    limit: Option<u32>,
    /// Print the server's answer as JSON, for scripts.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// Runs `parlor leaderboard`.
pub async fn run(a: Args) -> Result<(), String> {
    let url = account_server(a.server);
    let mut query = Vec::new();
    if a.bots {
        query.push("kind=bot".to_owned());
    } else if a.humans {
        query.push("kind=human".to_owned());
    }
    if let Some(n) = a.limit {
        query.push(format!("limit={n}"));
    }
    let mut path = format!("/api/leaderboard/{}", a.game.name());
    if !query.is_empty() {
        path = format!("{path}?{}", query.join("&"));
    }
    let answer = api::get(&url, &path, MAX_ANSWER_BYTES).await?;
    if answer.status != 200 {
        return Err(answer.refusal());
    }
    let board: Leaderboard = serde_json::from_slice(&answer.body)
        .map_err(|e| format!("the leaderboard is not readable: {e}"))?;
    if a.json {
        let text = serde_json::to_string_pretty(&board).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print!("{}", ratings::leaderboard(&board));
    }
    Ok(())
}
