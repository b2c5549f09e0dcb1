//! `parlor replay`: a finished match move by move, from its public log,
//! drawn as `play` draws it (or as JSON lines).

use std::io::Write;

use parlor_games::Viewer;
use parlor_protocol::{LoggedAction, MatchLog, RoomStatus, Update};
use serde_json::json;

use crate::render;

/// Prints the log as JSON lines: the header, then each step with the
/// public view after it, then the outcome.
pub fn print(log: &MatchLog, out: &mut impl Write) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write: {e}");
    writeln!(out, "{}", json!({ "header": log.header })).map_err(io)?;
    let (mut game, mut rng) =
        parlor_protocol::replay(&log.header, &[]).map_err(|e| e.to_string())?;
    for entry in &log.moves {
        parlor_protocol::step(&mut game, &mut rng, entry).map_err(|e| e.to_string())?;
        let view = game.view(Viewer::Spectator);
        writeln!(
            out,
            "{}",
            json!({ "seq": entry.seq, "seat": entry.seat, "action": entry.action, "view": view })
        )
        .map_err(io)?;
    }
    writeln!(out, "{}", json!({ "outcome": log.outcome })).map_err(io)
}

/// The spectator's update of the match's position after `seq` steps.
fn update(log: &MatchLog, game: &parlor_games::AnyGame, seq: u64) -> Update {
    let outcome = game.outcome();
    Update {
        room: log.room.clone(),
        game: log.header.game,
        seq,
        status: if outcome.is_some() {
            RoomStatus::Finished
        } else {
            RoomStatus::Playing
        },
        // The log does not keep who sat where: seats are named by number.
        seats: Vec::new(),
        you: None,
        to_act: game.to_act(),
        view: json!(game.view(Viewer::Spectator)),
        legal: None,
        clocks: None,
        outcome,
        closed: None,
    }
}

/// Draws the match move by move, each step told in words above the board.
pub fn show(log: &MatchLog, out: &mut impl Write) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write: {e}");
    let (mut game, mut rng) =
        parlor_protocol::replay(&log.header, &[]).map_err(|e| e.to_string())?;
    let mut r = render::renderer(log.header.game);
    let mut u = update(log, &game, 0);
    r.observe(&u);
    writeln!(
        out,
        "== {} · room {} · {} seats · {} moves\n-- the start\n{}",
        log.header.game,
        log.room,
        log.header.seats,
        log.moves.len(),
        r.board(&u)
    )
    .map_err(io)?;
    for entry in &log.moves {
        parlor_protocol::step(&mut game, &mut rng, entry).map_err(|e| e.to_string())?;
        u = update(log, &game, entry.seq + 1);
        r.observe(&u);
        let said = r.last_move(&u);
        let what = match (&entry.action, said) {
            (LoggedAction::Forfeit, _) => {
                format!("seat {} resigned or ran out of time", entry.seat.0)
            }
            (LoggedAction::TimeoutMove(_), Some(m)) => format!("{m} (played by the clock)"),
            (LoggedAction::Move(m) | LoggedAction::TimeoutMove(m), None) => {
                format!("seat {} played {m}", entry.seat.0)
            }
            (LoggedAction::Move(_), Some(m)) => m,
        };
        writeln!(out, "-- move {}: {what}\n{}", entry.seq + 1, r.board(&u)).map_err(io)?;
    }
    let end = match (&log.outcome, &log.closed) {
        (Some(o), _) => render::outcome(&u, o),
        (None, Some(c)) => format!("The room closed without a result ({c:?})."),
        (None, None) => "The match has no result.".into(),
    };
    writeln!(out, "{end}").map_err(io)
}
