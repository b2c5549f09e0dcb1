//! The contract a game's analysis tools fulfil, apart from its rules: a
//! game implements [`Game`] in its rules module and [`Analysis`] in its
//! `ai::analysis` module, and only the second knows about tools.

use serde_json::Value;

use super::agreement::{Played, Tally};
use super::io::{AnalysisError, Emit};
use super::tool_args::ArgsInput;
use super::Budget;
use crate::game::{Game, Seat};
use crate::rng::GameRng;

/// A hosted game's analysis tools: JSON in, JSON values out.
///
/// Implemented on the game's own type (so that a review reads its
/// options and moves as the rules define them), in the game's
/// `ai::analysis` module; reached by game through [`GameKind`]'s
/// analysis methods ([`GameKind::analyze`] and its neighbours, written by
/// the analysis registry).
///
/// [`GameKind`]: crate::GameKind
/// [`GameKind::analyze`]: crate::GameKind::analyze
pub trait Analysis: Game {
    /// The tools, by name, in the order help lists them.
    const TOOLS: &'static [&'static str];

    /// The analysis tool (one of [`Analysis::TOOLS`]) that reviews a
    /// finished match, if the game offers one: e.g. predictions before and
    /// after every move. Its input comes from
    /// [`Analysis::log_analysis_input`].
    const LOG_ANALYSIS_TOOL: Option<&'static str> = None;

    /// Runs tool `tool` on `input` within `budget`, emitting each result.
    fn analyze(
        tool: &str,
        input: &Value,
        budget: Budget,
        emit: &mut Emit<'_>,
    ) -> Result<(), AnalysisError>;

    /// The input of tool `tool` (one of [`Analysis::TOOLS`]) from its
    /// command-line words (`parlor cribbage score 5H 5S 5C JD --start
    /// 5D`). `Err` says, for people, what is wrong.
    fn args_input(tool: &str, words: &[String]) -> Result<ArgsInput, String>;

    /// The input of [`Analysis::LOG_ANALYSIS_TOOL`] for a finished match,
    /// from its options, seats, generator as it was before the deal, and
    /// steps in order (`None` for a forfeit). `Err` says, for people, why
    /// this match cannot be reviewed. Called only when the tool is `Some`.
    fn log_analysis_input(
        _cfg: &Self::Config,
        _seats: u8,
        _rng: GameRng,
        _steps: &[(Seat, Option<Self::Move>)],
    ) -> Result<Value, String> {
        Err(format!(
            "{} offers no review of a finished match",
            Self::NAME
        ))
    }

    /// Engine agreement per seat (see [`super::agreement`]) in a finished
    /// match, from its options, seats, generator as it was before the
    /// deal, and steps in order. `Err` says, for people, why this match
    /// cannot be measured. Deterministic: the same log gives the same
    /// counts on every node.
    fn agreement(
        _cfg: &Self::Config,
        _seats: u8,
        _rng: GameRng,
        _steps: &[Played<Self::Move>],
    ) -> Result<Vec<Tally>, String> {
        Err(format!("{} has no engine agreement measure", Self::NAME))
    }
}
