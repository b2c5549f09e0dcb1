//! `parlor replay`: a finished match move by move, from its public log.

use std::io::Write;

use parlor_games::rummikub::Move as RummikubMove;
use parlor_games::{AnyGame, GameKind, Seat, Viewer};
use parlor_protocol::{LoggedAction, MatchLog};
use serde_json::{json, Value};

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

/// The input of Rummikub's `replay` analysis for a finished two-seat
/// match: the dealt racks, the bag in drawing order, and every action in
/// the seed's form (a draw names the block it took, known once the match
/// is over and its log public). `None` past a forfeit or for other games.
pub fn rummikub_replay_input(log: &MatchLog) -> Result<Value, String> {
    if log.header.game != GameKind::Rummikub || log.header.seats != 2 {
        return Err("--predict works on two-player Rummikub matches".into());
    }
    let (mut game, mut rng) =
        parlor_protocol::replay(&log.header, &[]).map_err(|e| e.to_string())?;
    let AnyGame::Rummikub(start) = &game else {
        return Err("the log is not a Rummikub match".into());
    };
    let (p1, p2, bag) = (
        start.rack(Seat(0)).to_vec(),
        start.rack(Seat(1)).to_vec(),
        start.bag(),
    );
    let mut actions = Vec::new();
    for entry in &log.moves {
        let drawn = match &game {
            AnyGame::Rummikub(g) => g.bag().first().copied(),
            _ => None,
        };
        let mv = match &entry.action {
            LoggedAction::Move(v) | LoggedAction::TimeoutMove(v) => {
                serde_json::from_value::<RummikubMove>(v.clone()).map_err(|e| e.to_string())?
            }
            // A resignation is not a move of the seed's game: predictions stop there.
            LoggedAction::Forfeit => break,
        };
        let action = mv.to_action(drawn).ok_or("a draw from an empty bag")?;
        actions.push(action);
        parlor_protocol::step(&mut game, &mut rng, entry).map_err(|e| e.to_string())?;
    }
    Ok(json!({ "p1": p1, "p2": p2, "bag": bag, "actions": actions }))
}
