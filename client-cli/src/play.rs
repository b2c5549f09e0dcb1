//! A person playing from the terminal.

use std::io::Write;

use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{ClientMsg, Clock, RoomId, ServerMsg, Update};
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use uuid::Uuid;

use crate::client::{Client, ClientError};
use crate::render;

/// What `parlor play` was asked to do.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The game.
    pub game: GameKind,
    /// Display name.
    pub name: String,
    /// Join this room instead of creating one.
    pub room: Option<RoomId>,
    /// The seat wanted (default: the first free one; 0 in a new room).
    pub seat: Option<Seat>,
    /// Bot strategy for the other seats of a new room; `None` waits for people.
    pub vs: Option<String>,
    /// Seats of a new room.
    pub seats: Option<u8>,
    /// Game options of a new room.
    pub options: Value,
    /// Clock of a new room.
    pub clock: Option<Clock>,
    /// Take back seats held under this token instead.
    pub resume: Option<Uuid>,
}

/// Why the game could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// Talking to the server failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// Writing to the terminal failed.
    #[error("cannot write to the terminal: {0}")]
    Io(#[from] std::io::Error),
    /// The player's input ended mid-game.
    #[error("input ended before the game did; resume later with --resume {0}")]
    InputClosed(Uuid),
}

/// Sets up the seat as asked, then plays it until the match ends, reading
/// moves from `input` and writing the board to `out`.
pub async fn play<R: AsyncBufRead + Unpin>(
    client: &mut Client,
    opts: &PlayOptions,
    input: R,
    out: &mut impl Write,
) -> Result<Outcome, PlayError> {
    let (room, seat) = take_seat(client, opts, out).await?;
    writeln!(
        out,
        "You are seat {} in room {room}. If you lose the connection: parlor play {} --resume {}",
        seat.0,
        opts.game,
        client.token()
    )?;
    let mut lines = input.lines();
    let mut current: Option<Update> = None;
    let mut waiting = false;
    loop {
        tokio::select! {
            msg = client.recv() => match msg? {
                ServerMsg::Update(u) if u.room == room => {
                    writeln!(out, "\n{}", render::board(&u))?;
                    if let Some(outcome) = u.outcome {
                        writeln!(out, "{}", render::outcome(&u, &outcome))?;
                        return Ok(outcome);
                    }
                    waiting = u.to_act.contains(seat);
                    if waiting {
                        writeln!(out, "{}", render::prompt(&u))?;
                    } else if !u.to_act.is_empty() {
                        writeln!(out, "Waiting for the other players...")?;
                    } else {
                        writeln!(out, "Waiting for every seat to be taken...")?;
                    }
                    current = Some(u);
                }
                ServerMsg::Presence { seat: s, connected, .. } => {
                    let state = if connected { "is back" } else { "lost the connection" };
                    writeln!(out, "Seat {} {state}.", s.0)?;
                }
                ServerMsg::Error { message, code, .. } => {
                    writeln!(out, "Refused: {message} [{code}]")?;
                    // The move was refused: the position still waits for us.
                    waiting = current.as_ref().is_some_and(|u| u.to_act.contains(seat));
                    if waiting {
                        writeln!(out, "Try again:")?;
                    }
                }
                _ => {}
            },
            line = lines.next_line(), if waiting => {
                let Some(line) = line? else {
                    return Err(PlayError::InputClosed(client.token()));
                };
                let Some(u) = current.as_ref() else { continue };
                if line.trim().is_empty() {
                    continue;
                }
                match render::parse_move(u, &line) {
                    Ok(mv) => {
                        client.send(&ClientMsg::Play { room: room.clone(), seat, seq: u.seq, mv }).await?;
                        // One move per position: read no more until the answer.
                        waiting = false;
                    }
                    Err(why) => writeln!(out, "{why}")?,
                }
            }
        }
    }
}

async fn take_seat(
    client: &mut Client,
    opts: &PlayOptions,
    out: &mut impl Write,
) -> Result<(RoomId, Seat), PlayError> {
    if let Some(token) = opts.resume {
        let seats = client.resume(token).await?;
        let Some(first) = seats
            .into_iter()
            .find(|s| opts.room.as_ref().is_none_or(|r| *r == s.room))
        else {
            return Err(ClientError::Protocol("no seat to resume".into()).into());
        };
        return Ok((first.room, first.seat));
    }
    let room = match &opts.room {
        Some(room) => room.clone(),
        None => {
            let room = client
                .request(
                    &ClientMsg::CreateRoom {
                        game: opts.game,
                        seats: opts.seats,
                        options: opts.options.clone(),
                        clock: opts.clock,
                        private: false,
                    },
                    |m| match m {
                        ServerMsg::RoomCreated { room, .. } => Some(room),
                        _ => None,
                    },
                )
                .await?;
            writeln!(out, "Created room {room}.")?;
            room
        }
    };
    let seat = client
        .request(
            &ClientMsg::Join {
                room: room.clone(),
                seat: opts.seat.or(opts.room.is_none().then_some(Seat(0))),
                client_seed: Some(crate::client::client_seed()),
            },
            |m| match m {
                ServerMsg::Joined { room: r, seat, .. } if r == room => Some(seat),
                _ => None,
            },
        )
        .await?;
    if opts.room.is_none() {
        match &opts.vs {
            Some(strategy) => {
                let (_, max) = opts.game.seat_range();
                let seats = opts.seats.unwrap_or(opts.game.seat_range().0).min(max);
                for other in (0..seats).map(Seat).filter(|s| *s != seat) {
                    client
                        .request(
                            &ClientMsg::AddBot {
                                room: room.clone(),
                                seat: Some(other),
                                strategy: Some(strategy.clone()),
                            },
                            |m| matches!(m, ServerMsg::BotAdded { .. }).then_some(()),
                        )
                        .await?;
                }
                writeln!(out, "Playing against the {strategy} bot.")?;
            }
            None => writeln!(
                out,
                "Waiting for opponents: they join with `parlor play {} --room {room}`.",
                opts.game
            )?,
        }
    }
    Ok((room, seat))
}
