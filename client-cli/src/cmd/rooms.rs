//! `parlor rooms`: the rooms listed on a server.

use std::io::Write;

use parlor_cli::Client;
use parlor_protocol::{ClientMsg, Occupant, RoomStatus, ServerMsg};

use super::DEFAULT_SERVER;

/// `parlor rooms`' arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `parlor rooms`.
pub async fn run(a: Args) -> Result<(), String> {
    let mut client = Client::connect(&a.server, "parlor-rooms")
        .await
        .map_err(|e| format!("{}: {e}", a.server))?;
    // Every page, in order: the server sends at most 200 rooms a page.
    let mut rooms = Vec::new();
    let mut cursor = None;
    loop {
        let ask = ClientMsg::ListRooms {
            game: None,
            status: None,
            cursor: cursor.take(),
            limit: None,
        };
        let (page, next) = client
            .request(&ask, |m| match m {
                ServerMsg::Rooms { rooms, next } => Some((rooms, next)),
                _ => None,
            })
            .await
            .map_err(|e| e.to_string())?;
        rooms.extend(page);
        match next {
            Some(n) => cursor = Some(n),
            None => break,
        }
    }
    let mut out = std::io::stdout();
    if a.json {
        let _ = writeln!(out, "{}", serde_json::json!(rooms));
        return Ok(());
    }
    if rooms.is_empty() {
        let _ = writeln!(
            out,
            "No public rooms. Start one: parlor play nimrod --server {}",
            a.server
        );
    }
    let mut listed = false;
    for r in rooms {
        let seats: Vec<String> = r
            .seats
            .iter()
            .map(|s| match &s.occupant {
                Occupant::Empty => "(free)".to_owned(),
                // A guest is always marked: its name may look like an account's.
                Occupant::Player {
                    name,
                    account: false,
                    ..
                } => format!("{name} (guest)"),
                Occupant::Player { name, .. } => name.clone(),
                Occupant::Bot { strategy, account } => {
                    parlor_cli::render::bot_label(strategy, account.as_deref())
                }
            })
            .collect();
        let status = match r.status {
            RoomStatus::Waiting => "waiting",
            RoomStatus::Playing => "playing",
            RoomStatus::Finished => "finished",
        };
        let _ = writeln!(
            out,
            "{}  {:<10} {:<8}  {}",
            r.room,
            r.game.name(),
            status,
            seats.join(", ")
        );
        listed = true;
    }
    if listed {
        // Finished rooms are listed only until they close, 30 seconds
        // after the end; their logs stay available to `replay`.
        let _ = writeln!(
            out,
            "Join: parlor play GAME --room ROOM --server {s} · watch: parlor watch ROOM --server {s} \
             · a finished match: parlor replay ROOM --server {s}",
            s = a.server
        );
    }
    Ok(())
}
