//! `parlor play`: a person plays a game in the terminal.

use std::io::Write;

use parlor_cli::play::{play, PlayOptions};
use parlor_cli::{help, Client};
use parlor_games::{GameKind, Seat};
use uuid::Uuid;

use super::clock::ClockArgs;
use super::{json_arg, resolve_server, room_id, use_kept_token, ServerArg};

/// `parlor play`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    // The game; its help lists the hosted games.
    #[arg(help = help::play_game())]
    game: GameKind,
    #[command(flatten)]
    server: ServerArg,
    // Bot strategy for the other seats of a new room; the help lists every
    // game's bots, from the games.
    #[arg(long, help = help::play_vs())]
    vs: Option<String>,
    /// Join this room instead of creating one.
    #[arg(long)]
    room: Option<String>,
    /// The seat to take (0 moves first).
    #[arg(long)]
    seat: Option<u8>,
    /// Number of seats of a new room.
    #[arg(long)]
    seats: Option<u8>,
    /// Game options of a new room, as JSON (e.g. '{"piles": [5, 9]}';
    /// Mitsudomoe's '{"max_turns": 100}' sets Parlor's turn limit, after
    /// which the match is drawn).
    #[arg(long)]
    options: Option<String>,
    /// A new room's clock.
    #[command(flatten)]
    clock: ClockArgs,
    /// Take back a seat after a dropped connection.
    #[arg(long)]
    resume: Option<Uuid>,
    /// Your name as others see it.
    #[arg(long, default_value = "player")]
    name: String,
    /// Show the server's error codes beside its refusals.
    #[arg(long)]
    verbose: bool,
}

/// Runs `parlor play`.
pub async fn run(a: Args) -> Result<(), String> {
    let clock = a.clock.clock();
    let vs = match a.vs.as_deref() {
        Some("none") => None,
        Some(s) => Some(s.to_owned()),
        None => a.game.strategies().first().map(|s| (*s).to_owned()),
    };
    let (url, local) = resolve_server(a.server).await?;
    // Logged in to this server: play as the account (its seats in
    // correspondence games can then be taken up again with --room).
    use_kept_token(&url);
    let opts = PlayOptions {
        game: a.game,
        name: a.name,
        room: a.room.as_deref().map(room_id).transpose()?,
        seat: a.seat.map(Seat),
        vs,
        seats: a.seats,
        options: json_arg(a.options.as_deref())?,
        clock,
        resume: a.resume,
        server: url.clone(),
        private: local.is_some(),
        verbose: a.verbose,
    };
    let mut client = Client::connect(&url, &opts.name)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let mut input = parlor_cli::input::terminal();
    let mut stdout = std::io::stdout();
    let res = play(&mut client, &opts, &mut input, &mut stdout).await;
    let _ = stdout.flush();
    drop(client);
    if let Some(server) = local {
        let _ = server.stop().await;
    }
    res.map(|_| ()).map_err(|e| e.to_string())
}
