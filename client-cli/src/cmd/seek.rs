//! `parlor seek`: look for opponents, then play the match found.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use parlor_cli::input::Input;
use parlor_cli::lobby::{self, SeekNews};
use parlor_cli::{help, Client};
use parlor_games::GameKind;
use parlor_protocol::{ClientMsg, ErrorCode, SeekEnd, ServerMsg};

use super::clock::ClockArgs;
use super::found::{play_found, Found};
use super::{account_server, json_arg};

/// How often the waiting line's elapsed time changes on a terminal.
const TICK: Duration = Duration::from_secs(1);

/// How often a line says the seek still waits when the output is not a
/// terminal (a line a second would flood a log).
const PIPE_TICK: Duration = Duration::from_secs(30);

/// `parlor seek`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    // The game; its help lists the hosted games.
    #[arg(help = help::play_game())]
    game: GameKind,
    /// Server URL (default: the one you logged in to, else
    /// ws://127.0.0.1:7878).
    #[arg(long)]
    server: Option<String>,
    /// A rated match (needs an account: `parlor login`).
    #[arg(long)]
    rated: bool,
    /// Seats (default: the game's fewest).
    #[arg(long)]
    seats: Option<u8>,
    #[command(flatten)]
    clock: ClockArgs,
    /// Game options, as JSON (default: the game's).
    #[arg(long)]
    options: Option<String>,
    /// Casual seeks: play the server's bots when nobody has come after
    /// this many seconds.
    #[arg(long, value_name = "SECONDS")]
    bots_after: Option<u64>,
    /// Offer a rematch after each match without asking (at a terminal you
    /// are asked; otherwise none is offered).
    #[arg(long)]
    rematch: bool,
    /// Your name as others see it, when playing as a guest.
    #[arg(long, default_value = "player")]
    name: String,
    /// Show the server's error codes beside its refusals.
    #[arg(long)]
    verbose: bool,
}

/// Runs `parlor seek`.
pub async fn run(a: Args) -> Result<(), String> {
    let url = account_server(a.server.clone());
    let mut client = Client::connect(&url, &a.name)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let msg = ClientMsg::Seek {
        game: a.game,
        seats: a.seats,
        options: json_arg(a.options.as_deref())?,
        clock: a.clock.clock(),
        rated: a.rated,
        bots: a.bots_after.is_some(),
        bots_after_ms: a.bots_after.map(|s| s.saturating_mul(1000)),
        client_seed: Some(parlor_cli::client::client_seed()),
    };
    let seek = lobby::start_seek(&mut client, &msg)
        .await
        .map_err(|e| e.to_string())?;
    let mut input = parlor_cli::input::terminal();
    let mut out = std::io::stdout();
    let who = match client.account() {
        Some(acc) => acc.name.clone(),
        None => format!("{} (guest)", a.name),
    };
    let kind = if a.rated { "rated" } else { "casual" };
    writeln!(
        out,
        "Seeking a {kind} game of {} as {who}. Ctrl-C cancels.",
        a.game
    )
    .map_err(|e| e.to_string())?;
    let Some(seated) = wait(&mut client, &msg, seek, &mut input, &mut out).await? else {
        return Ok(());
    };
    let found = Found {
        game: a.game,
        server: url,
        name: a.name,
        verbose: a.verbose,
        rematch: a.rematch,
    };
    play_found(&mut client, &found, seated, &mut input, &mut out)
        .await
        .map(|_| ())
}

/// Waits for the seek to be matched, showing the time waited; `None`
/// when the player cancelled it.
async fn wait(
    client: &mut Client,
    msg: &ClientMsg,
    mut seek: u64,
    input: &mut tokio::sync::mpsc::Receiver<Input>,
    out: &mut impl Write,
) -> Result<Option<lobby::Seated>, String> {
    let io = |e: std::io::Error| e.to_string();
    let terminal = std::io::stdout().is_terminal();
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval(if terminal { TICK } else { PIPE_TICK });
    // The first tick is at once: skip it, nothing has been waited yet.
    ticks.tick().await;
    let mut cancelling = false;
    loop {
        tokio::select! {
            got = client.recv() => {
                let got = got.map_err(|e| e.to_string())?;
                match lobby::seek_news(&got, seek) {
                    Some(SeekNews::Matched(seated, players)) => {
                        if terminal {
                            writeln!(out).map_err(io)?;
                        }
                        writeln!(out, "Matched: {}.", players.join(" vs ")).map_err(io)?;
                        return Ok(Some(seated));
                    }
                    // The server lost it (a cluster node went away): the
                    // protocol says to seek again, so this does.
                    Some(SeekNews::Ended(SeekEnd::Lost)) if !cancelling => {
                        seek = lobby::start_seek(client, msg).await.map_err(|e| e.to_string())?;
                    }
                    Some(SeekNews::Ended(reason)) => {
                        if cancelling {
                            writeln!(out, "\nSeek cancelled.").map_err(io)?;
                            return Ok(None);
                        }
                        return Err(format!("the seek ended without a match ({reason:?}); seek again"));
                    }
                    None => {}
                }
                if let ServerMsg::Error { code, message, .. } = got {
                    // A cancel that crossed the match: `matched` is on its way.
                    let crossed = cancelling && code == ErrorCode::SeekNotFound;
                    if !lobby::ignorable(code) && !crossed {
                        return Err(format!("{message} ({code})"));
                    }
                }
            }
            // A closed channel disables this branch (no busy loop).
            Some(event) = input.recv() => match event {
                Input::Interrupt if !cancelling => {
                    cancelling = true;
                    client
                        .send(&ClientMsg::CancelSeek { seek: Some(seek) })
                        .await
                        .map_err(|e| e.to_string())?;
                }
                // Typed lines mean nothing while waiting; the end of input
                // does not cancel (a script may seek with stdin closed).
                _ => {}
            },
            _ = ticks.tick() => {
                let waited = started.elapsed().as_secs();
                if terminal {
                    write!(out, "\rWaiting for opponents: {waited}s ").map_err(io)?;
                } else {
                    writeln!(out, "Still waiting for opponents ({waited}s).").map_err(io)?;
                }
            }
        }
        out.flush().map_err(io)?;
    }
}
