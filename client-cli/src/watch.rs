//! `parlor watch`: a room followed as a spectator, drawn as `play` draws it.

use std::io::Write;

use parlor_protocol::{ClientMsg, RoomId, ServerMsg};

use crate::client::{Client, ClientError};
use crate::render;

/// Watches `room` until its match ends (or the room closes), writing
/// each position to `out`.
pub async fn watch(client: &mut Client, room: &RoomId, out: &mut impl Write) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write to the terminal: {e}");
    let err = |e: ClientError| e.to_string();
    client
        .send(&ClientMsg::Spectate { room: room.clone() })
        .await
        .map_err(err)?;
    let mut r: Option<Box<dyn render::Renderer>> = None;
    loop {
        match client.recv().await.map_err(err)? {
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
            ServerMsg::Error { message, .. } => return Err(message),
            _ => {}
        }
        out.flush().map_err(io)?;
    }
}
