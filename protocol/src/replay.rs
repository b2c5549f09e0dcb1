//! Rebuilding a match from its log.

use parlor_games::{AnyGame, GameRng};

use crate::server::{LogEntry, LoggedAction, MatchHeader};

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
