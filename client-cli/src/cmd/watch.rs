//! `parlor watch`: follow a room's match as a spectator.

use parlor_cli::Client;

use super::{room_id, DEFAULT_SERVER};

/// `parlor watch`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The room to watch.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
}

/// Runs `parlor watch`.
pub async fn run(a: Args) -> Result<(), String> {
    let room = room_id(&a.room)?;
    let mut client = Client::connect(&a.server, "parlor-watch")
        .await
        .map_err(|e| format!("{}: {e}", a.server))?;
    let mut out = std::io::stdout();
    let mut input = parlor_cli::input::lines();
    parlor_cli::watch::watch(&mut client, &room, &mut input, &mut out).await
}
