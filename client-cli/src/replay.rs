//! `parlor replay`: a finished match move by move, from its public log.

use std::io::Write;

use parlor_games::Viewer;
use parlor_protocol::MatchLog;
use serde_json::json;

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
