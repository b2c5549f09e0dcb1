//! Rebuilding a match from its log.

use parlor_games::analysis::{Played, Tally};
use parlor_games::deal::{deal_key, DealSecret};
use parlor_games::{AnyGame, GameRng};
use serde_json::Value;

use crate::server::{Deal, LogEntry, LoggedAction, MatchHeader, MatchLog};

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

/// Why a fair deal does not check out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealCheck {
    /// The seed or salt is not what the header says they are.
    #[error("the revealed seed is unreadable: {0}")]
    Unreadable(String),
    /// SHA-256 of the revealed seed and salt is not the commitment.
    #[error("the revealed seed and salt hash to {actual}, not to the commitment {committed}")]
    Mismatch {
        /// What the room published when it was made.
        committed: String,
        /// What the revealed seed and salt hash to.
        actual: String,
    },
}

impl Deal {
    /// The server's revealed secret.
    pub fn secret(&self) -> Result<DealSecret, DealCheck> {
        DealSecret::from_hex(&self.server_seed, &self.salt)
            .map_err(|e| DealCheck::Unreadable(e.to_string()))
    }

    /// Checks that the revealed seed and salt are the ones committed to.
    pub fn check(&self) -> Result<(), DealCheck> {
        let actual = self.secret()?.commitment();
        if actual == self.commitment.to_ascii_lowercase() {
            Ok(())
        } else {
            Err(DealCheck::Mismatch {
                committed: self.commitment.clone(),
                actual,
            })
        }
    }

    /// The chance stream of the match: keyed by the server seed, the salt
    /// and every seat's client seed (see `parlor_games::deal`).
    pub fn rng(&self) -> Result<GameRng, DealCheck> {
        let seeds: Vec<Option<&str>> = self.client_seeds.iter().map(Option::as_deref).collect();
        Ok(GameRng::from_key(deal_key(&self.secret()?, &seeds)))
    }
}

/// The chance stream a header describes: its fair deal, or the seed of a
/// match stored before fair dealing.
pub fn deal_rng(header: &MatchHeader) -> Result<GameRng, ReplayError> {
    match (&header.deal, header.seed) {
        (Some(deal), _) => deal.rng().map_err(|e| ReplayError::Setup(e.to_string())),
        (None, Some(seed)) => Ok(GameRng::from_seed(seed)),
        (None, None) => Err(ReplayError::Setup(
            "the header has neither a deal nor a seed".into(),
        )),
    }
}

/// The match as it stands after `moves`, with its RNG where it was: a
/// match is fully determined by its header (game, options, seats, deal)
/// and its steps, since all chance comes from the seeded RNG.
pub fn replay(header: &MatchHeader, moves: &[LogEntry]) -> Result<(AnyGame, GameRng), ReplayError> {
    let mut rng = deal_rng(header)?;
    let mut game = header
        .game
        .setup(&header.options, header.seats, &mut rng)
        .map_err(|e| ReplayError::Setup(e.to_string()))?;
    for entry in moves {
        step(&mut game, &mut rng, entry)?;
    }
    Ok((game, rng))
}

/// The analysis a game offers of a finished match (Rummikub: the exact
/// win chance after each move), as the tool to run and its input; `None`
/// when the game offers none. The game builds the input from the match as
/// dealt and its steps (a forfeit is a step without a move).
pub fn log_analysis(log: &MatchLog) -> Option<Result<(&'static str, Value), ReplayError>> {
    let h = &log.header;
    let rng = match deal_rng(h) {
        Ok(rng) => rng,
        Err(e) => return Some(Err(e)),
    };
    let mut steps = Vec::with_capacity(log.moves.len());
    for entry in &log.moves {
        let mv = match &entry.action {
            LoggedAction::Move(v) | LoggedAction::TimeoutMove(v) => match h.game.parse_move(v) {
                Ok(mv) => Some(mv),
                Err(e) => {
                    return Some(Err(ReplayError::Step {
                        seq: entry.seq,
                        message: e.to_string(),
                    }))
                }
            },
            LoggedAction::Forfeit => None,
        };
        steps.push((entry.seat, mv));
    }
    h.game
        .log_analysis(&h.options, h.seats, rng, &steps)
        .map(|r| r.map_err(ReplayError::Setup))
}

/// Engine agreement per seat in a finished match (the fair-play
/// review's counts, see `parlor_games::analysis::agreement`), replayed
/// from its log: a default move played on a timeout is played but never
/// judged, and a forfeit ends the match.
pub fn agreement(log: &MatchLog) -> Result<Vec<Tally>, ReplayError> {
    let h = &log.header;
    let rng = deal_rng(h)?;
    let mut steps = Vec::with_capacity(log.moves.len());
    for entry in &log.moves {
        let (mv, chosen) = match &entry.action {
            LoggedAction::Move(v) => (Some(v), true),
            LoggedAction::TimeoutMove(v) => (Some(v), false),
            LoggedAction::Forfeit => (None, true),
        };
        let mv = match mv {
            Some(v) => Some(h.game.parse_move(v).map_err(|e| ReplayError::Step {
                seq: entry.seq,
                message: e.to_string(),
            })?),
            None => None,
        };
        steps.push(Played {
            seat: entry.seat,
            mv,
            chosen,
        });
    }
    h.game
        .agreement(&h.options, h.seats, rng, &steps)
        .map_err(ReplayError::Setup)
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
