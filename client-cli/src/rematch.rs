//! After a match found through a seek or a challenge: offering a rematch
//! and waiting for the others to agree.

use std::io::Write;
use std::time::Duration;

use parlor_protocol::{ClientMsg, ErrorCode, RoomId, ServerMsg};
use tokio::sync::mpsc;

use crate::client::Client;
use crate::input::Input;
use crate::lobby::Seated;
use crate::play::PlayError;

/// How long to wait for the others to agree: offers last while the
/// finished room does, which the server keeps for a minute.
pub const REMATCH_WAIT: Duration = Duration::from_secs(60);

/// Whether to ask the player or to offer at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Ask first (a person at a terminal).
    Ask,
    /// Offer without asking (`--rematch`, for scripts).
    Always,
}

/// Offers a rematch of the finished `room` (asking first for
/// [`Offer::Ask`]) and waits for it to start: the new seat, or `None`
/// when the player declines, leaves, or the others do not agree in time.
pub async fn offer(
    client: &mut Client,
    room: &RoomId,
    how: Offer,
    input: &mut mpsc::Receiver<Input>,
    out: &mut impl Write,
) -> Result<Option<Seated>, PlayError> {
    let mut offered = false;
    if how == Offer::Ask {
        writeln!(
            out,
            "Rematch? Type `y` to offer one (seats move on by one), or Enter to leave."
        )?;
    } else {
        send_offer(client, room, out).await?;
        offered = true;
    }
    out.flush()?;
    let deadline = tokio::time::Instant::now() + REMATCH_WAIT;
    loop {
        tokio::select! {
            msg = client.recv() => match msg? {
                ServerMsg::RematchStarted { room: r, next, seat } if r == *room => {
                    writeln!(out, "The rematch starts in room {next}.")?;
                    return Ok(Some(Seated { room: next, seat }));
                }
                ServerMsg::RematchOffered { room: r, seats } if r == *room && !offered => {
                    let seats: Vec<String> = seats.iter().map(|s| s.0.to_string()).collect();
                    writeln!(out, "A rematch is offered (by seat {}).", seats.join(", "))?;
                }
                ServerMsg::Error { code: ErrorCode::RematchUnavailable, message, .. } => {
                    writeln!(out, "No rematch: {message} ({})", ErrorCode::RematchUnavailable)?;
                    return Ok(None);
                }
                _ => {}
            },
            event = input.recv() => match event {
                Some(Input::Line(line)) if !offered && is_yes(&line) => {
                    send_offer(client, room, out).await?;
                    offered = true;
                }
                // Anything else (Enter, Ctrl-C, the end of input) leaves.
                _ => return Ok(None),
            },
            () = tokio::time::sleep_until(deadline) => {
                if offered {
                    writeln!(out, "Nobody took up the rematch.")?;
                }
                return Ok(None);
            }
        }
        out.flush()?;
    }
}

async fn send_offer(
    client: &mut Client,
    room: &RoomId,
    out: &mut impl Write,
) -> Result<(), PlayError> {
    client
        .send(&ClientMsg::Rematch {
            room: room.clone(),
            client_seed: Some(crate::client::client_seed()),
        })
        .await?;
    writeln!(
        out,
        "Rematch offered; waiting for the others (Enter or Ctrl-C leaves)..."
    )?;
    Ok(())
}

/// Whether a typed answer is yes.
pub fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_yes_is_yes() {
        assert!(is_yes(" Y "));
        assert!(is_yes("yes"));
        assert!(!is_yes(""));
        assert!(!is_yes("no"));
        assert!(!is_yes("yesterday"));
    }
}
