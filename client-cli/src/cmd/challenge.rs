//! `parlor challenge` and `parlor accept`: a match between two named
//! accounts, one asking and one answering.

use std::io::Write;
use std::process::ExitCode;

use parlor_cli::input::Input;
use parlor_cli::lobby::{self, ChallengeNews};
use parlor_cli::rematch::is_yes;
use parlor_cli::{help, Client};
use parlor_games::{GameKind, Seat};
use parlor_protocol::{ChallengeInfo, ClientMsg, DeclineReason, ServerMsg};
use tokio::sync::mpsc;

use super::clock::ClockArgs;
use super::found::{play_found, Found};
use super::{account_server, json_arg};

/// `parlor challenge`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The account to challenge (they must be connected: `parlor accept`).
    name: String,
    // The game; its help lists the hosted games.
    #[arg(help = help::play_game())]
    game: GameKind,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
    /// A rated match.
    #[arg(long)]
    rated: bool,
    #[command(flatten)]
    clock: ClockArgs,
    /// Game options, as JSON (default: the game's).
    #[arg(long)]
    options: Option<String>,
    /// Your seat (0 moves first; default: drawn).
    #[arg(long)]
    seat: Option<u8>,
    /// Offer a rematch after the match without asking.
    #[arg(long)]
    rematch: bool,
    /// Show the server's error codes beside its refusals.
    #[arg(long)]
    verbose: bool,
}

/// `parlor accept`'s arguments.
#[derive(Debug, clap::Args)]
pub struct AcceptArgs {
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
    /// Accept the first challenge without asking (for scripts).
    #[arg(long)]
    yes: bool,
    /// Only challenges from this account (others are left unanswered).
    #[arg(long)]
    from: Option<String>,
    /// Offer a rematch after the match without asking.
    #[arg(long)]
    rematch: bool,
    /// Show the server's error codes beside its refusals.
    #[arg(long)]
    verbose: bool,
}

/// Connects as the logged-in account; challenges need one.
async fn connect_account(server: Option<String>) -> Result<(Client, String), String> {
    let url = account_server(server);
    let client = Client::connect(&url, "player")
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if client.account().is_none() {
        return Err(
            "challenges are between accounts: log in first (parlor login NAME) or give --token"
                .into(),
        );
    }
    Ok((client, url))
}

fn io(e: std::io::Error) -> String {
    e.to_string()
}

/// Runs `parlor challenge`: plays the match once it is accepted; a
/// challenge declined, withdrawn or expired is said and gives exit status
/// 1 (the answer was no), other errors the usual status 2.
pub async fn run(a: Args) -> Result<ExitCode, String> {
    let (mut client, url) = connect_account(a.server).await?;
    let msg = ClientMsg::Challenge {
        to: a.name.clone(),
        game: a.game,
        options: json_arg(a.options.as_deref())?,
        clock: a.clock.clock(),
        rated: a.rated,
        seat: a.seat.map(Seat),
        client_seed: Some(parlor_cli::client::client_seed()),
    };
    let info = lobby::start_challenge(&mut client, &msg)
        .await
        .map_err(|e| e.to_string())?;
    let mut out = std::io::stdout();
    let mut input = parlor_cli::input::terminal();
    writeln!(
        out,
        "Challenged {} to {}; waiting for an answer (Ctrl-C withdraws it).",
        info.to,
        describe(&info)
    )
    .map_err(io)?;
    out.flush().map_err(io)?;
    let mut withdrawing = false;
    let room = loop {
        tokio::select! {
            msg = client.recv() => {
                let msg = msg.map_err(|e| e.to_string())?;
                match lobby::challenge_news(&msg, info.challenge) {
                    Some(ChallengeNews::Accepted(room)) => break room,
                    Some(ChallengeNews::Over(end, reason)) => {
                        eprintln!("parlor: {}", match reason {
                            Some(r) => format!(
                                "{} declined the challenge: {} ({})",
                                info.to,
                                reason_text(r),
                                word(&r)
                            ),
                            None => format!("the challenge ended unaccepted ({})", word(&end)),
                        });
                        return Ok(ExitCode::FAILURE);
                    }
                    None => {}
                }
                if let ServerMsg::Error { code, message, .. } = msg {
                    if !lobby::ignorable(code) {
                        return Err(format!("{message} ({code})"));
                    }
                }
            }
            // A closed channel disables this branch (no busy loop).
            Some(event) = input.recv() => {
                if event == Input::Interrupt && !withdrawing {
                    withdrawing = true;
                    client
                        .send(&ClientMsg::CancelChallenge { challenge: info.challenge })
                        .await
                        .map_err(|e| e.to_string())?;
                }
            }
        }
    };
    writeln!(out, "{} accepted.", info.to).map_err(io)?;
    let seated = lobby::seat_in(&mut client, room)
        .await
        .map_err(|e| e.to_string())?;
    let found = Found {
        game: a.game,
        server: url,
        name: "player".into(),
        verbose: a.verbose,
        rematch: a.rematch,
    };
    play_found(&mut client, &found, seated, &mut input, &mut out)
        .await
        .map(|_| ExitCode::SUCCESS)
}

/// Runs `parlor accept`: waits for a challenge, asks, and plays it.
pub async fn accept(a: AcceptArgs) -> Result<(), String> {
    let (mut client, url) = connect_account(a.server).await?;
    let mut out = std::io::stdout();
    let mut input = parlor_cli::input::terminal();
    let me = client.account().map(|x| x.name.clone()).unwrap_or_default();
    writeln!(out, "Waiting for challenges to {me} (Ctrl-C stops).").map_err(io)?;
    out.flush().map_err(io)?;
    loop {
        let info = next_challenge(&mut client, a.from.as_deref(), &mut input).await?;
        writeln!(out, "{} challenges you to {}.", info.from, describe(&info)).map_err(io)?;
        let answer = if a.yes {
            Answer::Accept
        } else {
            writeln!(
                out,
                "Accept? y / n (or decline with a reason: {})",
                lobby::DECLINE_REASONS
            )
            .map_err(io)?;
            out.flush().map_err(io)?;
            ask(&mut input).await
        };
        match answer {
            Answer::Accept => {
                let Some(seated) = lobby::accept(&mut client, info.challenge)
                    .await
                    .map_err(|e| e.to_string())?
                else {
                    writeln!(out, "That challenge is no longer open.").map_err(io)?;
                    continue;
                };
                let found = Found {
                    game: info.game,
                    server: url,
                    name: "player".into(),
                    verbose: a.verbose,
                    rematch: a.rematch,
                };
                return play_found(&mut client, &found, seated, &mut input, &mut out)
                    .await
                    .map(|_| ());
            }
            Answer::Decline(reason) => {
                client
                    .send(&ClientMsg::Decline {
                        challenge: info.challenge,
                        reason,
                    })
                    .await
                    .map_err(|e| e.to_string())?;
                writeln!(out, "Declined. Waiting for challenges (Ctrl-C stops).").map_err(io)?;
            }
            Answer::Stop => return Err("stopped waiting for challenges".into()),
        }
        out.flush().map_err(io)?;
    }
}

/// The next challenge made to this account (from `from` if given).
async fn next_challenge(
    client: &mut Client,
    from: Option<&str>,
    input: &mut mpsc::Receiver<Input>,
) -> Result<ChallengeInfo, String> {
    loop {
        tokio::select! {
            msg = client.recv() => match msg.map_err(|e| e.to_string())? {
                ServerMsg::ChallengeMade(info)
                    if lobby::is_incoming(client, &info)
                        && from.is_none_or(|f| f.eq_ignore_ascii_case(&info.from)) =>
                {
                    return Ok(info)
                }
                ServerMsg::Error { code, message, .. } if !lobby::ignorable(code) => {
                    return Err(format!("{message} ({code})"))
                }
                _ => {}
            },
            Some(event) = input.recv() => {
                if event == Input::Interrupt {
                    return Err("stopped waiting for challenges".into());
                }
            }
        }
    }
}

/// The player's answer to a challenge.
enum Answer {
    Accept,
    Decline(DeclineReason),
    Stop,
}

/// Reads the answer: `y`, `n`, or a reason to decline; asks again after
/// anything else.
async fn ask(input: &mut mpsc::Receiver<Input>) -> Answer {
    loop {
        match input.recv().await {
            Some(Input::Line(line)) if is_yes(&line) => return Answer::Accept,
            Some(Input::Line(line)) if matches!(line.trim(), "n" | "N" | "no") => {
                return Answer::Decline(DeclineReason::Generic)
            }
            Some(Input::Line(line)) => match lobby::decline_reason(&line) {
                Some(reason) => return Answer::Decline(reason),
                None => println!("Type y, n, or one of: {}", lobby::DECLINE_REASONS),
            },
            Some(Input::Interrupt | Input::Closed) | None => return Answer::Stop,
        }
    }
}

/// A challenge in words: game, seats, clock, rated.
fn describe(info: &ChallengeInfo) -> String {
    let kind = if info.rated { "rated" } else { "casual" };
    let clock = info
        .clock
        .map(|c| format!(", clock {}", serde_json::to_string(&c).unwrap_or_default()))
        .unwrap_or_default();
    let options = if info.options.is_null() {
        String::new()
    } else {
        format!(", options {}", info.options)
    };
    format!("a {kind} game of {}{options}{clock}", info.game)
}

/// An enum's protocol word (`too_fast`).
fn word<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A decline reason for people.
fn reason_text(r: DeclineReason) -> &'static str {
    match r {
        DeclineReason::Generic => "no reason given",
        DeclineReason::Later => "not now, maybe later",
        DeclineReason::TooFast => "the clock is too fast",
        DeclineReason::TooSlow => "the clock is too slow",
        DeclineReason::Game => "not this game or these options",
        DeclineReason::Casual => "casual games only",
        DeclineReason::Rated => "rated games only",
        DeclineReason::NoBots => "not against bots",
        DeclineReason::OnlyBots => "only against bots",
    }
}
