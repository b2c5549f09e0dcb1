//! `parlor replay`: a finished match move by move, from its public log,
//! drawn as `play` draws it (or as JSON lines).

use std::io::Write;

use parlor_games::Viewer;
use parlor_protocol::{LoggedAction, MatchLog, RoomStatus, Update};
use serde_json::json;

use crate::render;

/// Why a replay stopped.
enum Fail {
    /// Writing failed.
    Io(std::io::Error),
    /// The log does not replay.
    Replay(String),
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Fail {
        Fail::Io(e)
    }
}

/// The result for the command: a closed pipe (`| head`) is a normal way
/// to stop reading.
fn finish(res: Result<(), Fail>) -> Result<(), String> {
    match res {
        Ok(()) => Ok(()),
        Err(Fail::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(Fail::Io(e)) => Err(format!("cannot write: {e}")),
        Err(Fail::Replay(e)) => Err(e),
    }
}

fn replay_err(e: impl std::fmt::Display) -> Fail {
    Fail::Replay(e.to_string())
}

/// Prints the log as JSON lines: the header, then each step with the
/// public view after it, then the outcome.
pub fn print(log: &MatchLog, out: &mut impl Write) -> Result<(), String> {
    finish(print_json(log, out))
}

fn print_json(log: &MatchLog, out: &mut impl Write) -> Result<(), Fail> {
    writeln!(out, "{}", json!({ "header": log.header }))?;
    let (mut game, mut rng) = parlor_protocol::replay(&log.header, &[]).map_err(replay_err)?;
    for entry in &log.moves {
        parlor_protocol::step(&mut game, &mut rng, entry).map_err(replay_err)?;
        let view = game.view(Viewer::Spectator);
        writeln!(
            out,
            "{}",
            json!({ "seq": entry.seq, "seat": entry.seat, "action": entry.action, "view": view })
        )?;
    }
    writeln!(out, "{}", json!({ "outcome": log.outcome }))?;
    Ok(())
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
        rating_changes: None,
        may_abort: false,
    }
}

/// Draws the match move by move, each step told in words above the board.
pub fn show(log: &MatchLog, out: &mut impl Write) -> Result<(), String> {
    finish(show_boards(log, out))
}

fn show_boards(log: &MatchLog, out: &mut impl Write) -> Result<(), Fail> {
    let (mut game, mut rng) = parlor_protocol::replay(&log.header, &[]).map_err(replay_err)?;
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
    )?;
    for entry in &log.moves {
        parlor_protocol::step(&mut game, &mut rng, entry).map_err(replay_err)?;
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
        writeln!(out, "-- move {}: {what}\n{}", entry.seq + 1, r.board(&u))?;
    }
    let end = match (&log.outcome, &log.closed) {
        (Some(o), _) => render::outcome(&u, o),
        (None, Some(c)) => format!("The room closed without a result ({c:?})."),
        (None, None) => "The match has no result.".into(),
    };
    writeln!(out, "{end}")?;
    Ok(())
}
