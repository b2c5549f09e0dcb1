//! Rebuilding a match from its log.

use parlor_games::rummikub::Move as RummikubMove;
use parlor_games::{AnyGame, GameKind, GameRng, Seat};
use serde_json::{json, Value};

use crate::server::{LogEntry, LoggedAction, MatchHeader, MatchLog};

/// Why a log does not replay.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// The header does not set up a game.
    #[error("the match cannot be set up: {0}")]
    Setup(String),
    /// A logged step is not a move of this game, or the rules refuse it.
    #[error("step {seq} does not replay: {message}")]
    Step {
        /// The step's sequence number.
        seq: u64,
        /// Why.
        message: String,
    },
}

/// The match as it stands after `moves`, with its RNG where it was: a
/// match is fully determined by its header (game, options, seats, seed)
/// and its steps, since all chance comes from the seeded RNG.
pub fn replay(header: &MatchHeader, moves: &[LogEntry]) -> Result<(AnyGame, GameRng), ReplayError> {
    let mut rng = GameRng::from_seed(header.seed);
    let mut game = header
        .game
        .setup(&header.options, header.seats, &mut rng)
        .map_err(|e| ReplayError::Setup(e.to_string()))?;
    for entry in moves {
        step(&mut game, &mut rng, entry)?;
    }
    Ok((game, rng))
}

/// The input of Rummikub's `replay` analysis for a finished two-seat
/// match: the racks as dealt, the bag in drawing order, and every action in
/// the seed's form (a draw names the block it took: public once the match
/// is over). Predictions stop at a forfeit, which the seed's game lacks.
pub fn rummikub_replay_input(log: &MatchLog) -> Result<Value, ReplayError> {
    let not_for = |why: &str| ReplayError::Setup(why.to_owned());
    if log.header.game != GameKind::Rummikub || log.header.seats != 2 {
        return Err(not_for("predictions are for two-player Rummikub matches"));
    }
    let (mut game, mut rng) = replay(&log.header, &[])?;
    let AnyGame::Rummikub(start) = &game else {
        return Err(not_for("the log is not a Rummikub match"));
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
        let fail = |message: String| ReplayError::Step {
            seq: entry.seq,
            message,
        };
        let mv = match &entry.action {
            LoggedAction::Move(v) | LoggedAction::TimeoutMove(v) => {
                serde_json::from_value::<RummikubMove>(v.clone())
                    .map_err(|e| fail(e.to_string()))?
            }
            LoggedAction::Forfeit => break,
        };
        actions.push(
            mv.to_action(drawn)
                .ok_or_else(|| fail("a draw from an empty bag".into()))?,
        );
        step(&mut game, &mut rng, entry)?;
    }
    Ok(json!({ "p1": p1, "p2": p2, "bag": bag, "actions": actions }))
}

/// Applies one logged step.
pub fn step(game: &mut AnyGame, rng: &mut GameRng, entry: &LogEntry) -> Result<(), ReplayError> {
    let fail = |message: String| ReplayError::Step {
        seq: entry.seq,
        message,
    };
    match &entry.action {
        LoggedAction::Move(v) | LoggedAction::TimeoutMove(v) => {
            let mv = game.kind().parse_move(v).map_err(|e| fail(e.to_string()))?;
            game.play(entry.seat, &mv, rng)
                .map_err(|e| fail(e.to_string()))
        }
        LoggedAction::Forfeit => {
            game.forfeit(entry.seat);
            Ok(())
        }
    }
}
