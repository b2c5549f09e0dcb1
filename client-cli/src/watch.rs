//! `parlor watch`: a room followed as a spectator, drawn as `play` draws
//! it, with the spectators' chat (`/say TEXT`, `/gg`) and, after the end,
//! the players'.

use std::io::Write;

use parlor_protocol::{ClientMsg, RoomId, ServerMsg};
use tokio::sync::mpsc;

use crate::chat::{self, ChatCommand};
use crate::client::{Client, ClientError};
use crate::input::Input;
use crate::render;

/// Watches `room` until its match ends (or the room closes), writing
/// each position and each chat message to `out`; lines from `input`
/// that are chat commands are said in the room.
pub async fn watch(
    client: &mut Client,
    room: &RoomId,
    input: &mut mpsc::Receiver<Input>,
    out: &mut impl Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write to the terminal: {e}");
    let err = |e: ClientError| e.to_string();
    client
        .send(&ClientMsg::Spectate { room: room.clone() })
        .await
        .map_err(err)?;
    let mut r: Option<Box<dyn render::Renderer>> = None;
    // Once input ends (a pipe, or none), the room is only watched.
    let mut reading = true;
    loop {
        let msg = tokio::select! {
            msg = client.recv() => msg.map_err(err)?,
            event = input.recv(), if reading => {
                match event {
                    Some(Input::Line(line)) => match ChatCommand::read(&line) {
                        Some(said) => client.send(&said.message(room)).await.map_err(err)?,
                        None if line.trim().is_empty() => {}
                        None => writeln!(out, "Watching: type `/say TEXT` to talk with the other spectators, or Ctrl-C to stop.").map_err(io)?,
                    },
                    Some(Input::Interrupt) => {}
                    Some(Input::Closed) | None => reading = false,
                }
                out.flush().map_err(io)?;
                continue;
            }
        };
        match msg {
            ServerMsg::Update(u) if &u.room == room => {
                let r = r.get_or_insert_with(|| render::renderer(u.game));
                r.observe(&u);
                match r.brief(&u) {
                    Some(line) => writeln!(out, "{line}").map_err(io)?,
                    None => writeln!(out, "\n{}", render::board(r.as_ref(), &u)).map_err(io)?,
                }
                if let Some(o) = &u.outcome {
                    writeln!(out, "{}", render::outcome(&u, o)).map_err(io)?;
                    return Ok(());
                }
                if let Some(c) = u.closed {
                    writeln!(out, "The room closed without a result ({c:?}).").map_err(io)?;
                    return Ok(());
                }
            }
            ServerMsg::Presence {
                seat, connected, ..
            } => {
                let state = if connected {
                    "is back"
                } else {
                    "lost the connection"
                };
                writeln!(out, "Seat {} {state}.", seat.0).map_err(io)?;
            }
            ServerMsg::Said { room: r, line } if &r == room => {
                writeln!(out, "{}", chat::shown(&line)).map_err(io)?;
            }
            ServerMsg::ChatHistory { room: r, lines, .. } if &r == room => {
                for line in &lines {
                    writeln!(out, "{}", chat::shown(line)).map_err(io)?;
                }
            }
            ServerMsg::Error { code, message, .. } if chat::is_chat_refusal(code) => {
                writeln!(out, "Chat refused: {message}").map_err(io)?;
            }
            ServerMsg::Error { message, .. } => return Err(message),
            _ => {}
        }
        out.flush().map_err(io)?;
    }
}
