//! The analysis registry: each hosted game's [`Analysis`], reached by
//! [`GameKind`].
//!
//! From the crate's one list of hosted games (`with_hosted_games!`),
//! `analysis_registry!` writes [`GameKind`]'s analysis methods:
//! [`GameKind::tools`], [`GameKind::analyze`], [`GameKind::tool_args`] and
//! [`GameKind::log_analysis`] and [`GameKind::agreement`]. The server's `analyze` request, the
//! `parlor <game> <tool>` command and a replay's review all go through
//! them, so none of them names a game, and the rules' dispatch
//! ([`crate::any`]) names no tool.
//!
//! It is a module of its own, beside [`crate::analysis`] rather than in
//! it, so that the arrows between modules go one way: the games' `ai`
//! modules read the analysis contract, and only this registry reads both
//! the games and the contract.

use serde_json::Value;

use crate::analysis::{Analysis, Played, Tally};
use crate::any::{decode, AnyMove};
use crate::game::{Game, Seat};
use crate::rng::GameRng;
use crate::GameKind;

/// [`GameKind::log_analysis`] for game `G`: the tool, and its input from
/// the options (`null` for defaults) and `G`'s moves picked out of `steps`
/// with `own`, refusing another game's. `None`: `G` offers no review.
fn log_analysis<G: Analysis>(
    kind: GameKind,
    config: &Value,
    seats: u8,
    rng: GameRng,
    steps: &[(Seat, Option<AnyMove>)],
    own: impl Fn(&AnyMove) -> Option<&G::Move>,
) -> Option<Result<(&'static str, Value), String>> {
    let tool = G::LOG_ANALYSIS_TOOL?;
    Some(log_analysis_input::<G>(kind, config, seats, rng, steps, own).map(|input| (tool, input)))
}

fn log_analysis_input<G: Analysis>(
    kind: GameKind,
    config: &Value,
    seats: u8,
    rng: GameRng,
    steps: &[(Seat, Option<AnyMove>)],
    own: impl Fn(&AnyMove) -> Option<&G::Move>,
) -> Result<Value, String> {
    let cfg: G::Config = if config.is_null() {
        Default::default()
    } else {
        decode(<G as Game>::NAME, "options", config).map_err(|e| e.to_string())?
    };
    let mut moves = Vec::with_capacity(steps.len());
    for (i, (seat, mv)) in steps.iter().enumerate() {
        let mv = match mv {
            None => None,
            Some(m) => Some(own(m).cloned().ok_or_else(|| {
                format!("step {i} is a {} move, but the match is {kind}", m.kind())
            })?),
        };
        moves.push((*seat, mv));
    }
    G::log_analysis_input(&cfg, seats, rng, &moves)
}

/// [`GameKind::agreement`] for game `G`: its options (`null` for
/// defaults) and its moves picked out of `steps` with `own`, refusing
/// another game's.
fn agreement<G: Analysis>(
    kind: GameKind,
    config: &Value,
    seats: u8,
    rng: GameRng,
    steps: &[Played<AnyMove>],
    own: impl Fn(&AnyMove) -> Option<&G::Move>,
) -> Result<Vec<Tally>, String> {
    let cfg: G::Config = if config.is_null() {
        Default::default()
    } else {
        decode(<G as Game>::NAME, "options", config).map_err(|e| e.to_string())?
    };
    let mut own_steps = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        let mv = match &step.mv {
            None => None,
            Some(m) => Some(own(m).cloned().ok_or_else(|| {
                format!("step {i} is a {} move, but the match is {kind}", m.kind())
            })?),
        };
        own_steps.push(Played {
            seat: step.seat,
            mv,
            chosen: step.chosen,
        });
    }
    G::agreement(&cfg, seats, rng, &own_steps)
}

/// Writes [`GameKind`]'s analysis methods from the list of hosted games
/// (`Variant => GameType`, each type implementing [`Analysis`]): one
/// exhaustive match per method.
macro_rules! analysis_registry {
    ($($variant:ident => $ty:ty),+ $(,)?) => {
        impl $crate::GameKind {
            /// The analysis tools this game offers.
            pub fn tools(self) -> &'static [&'static str] {
                use $crate::analysis::Analysis;
                match self { $($crate::GameKind::$variant => <$ty as Analysis>::TOOLS),+ }
            }

            /// Runs analysis tool `tool` on `input` within `budget`,
            /// emitting each result.
            pub fn analyze(
                self,
                tool: &str,
                input: &serde_json::Value,
                budget: $crate::analysis::Budget,
                emit: &mut $crate::analysis::Emit<'_>,
            ) -> Result<(), $crate::analysis::AnalysisError> {
                use $crate::analysis::Analysis;
                match self {
                    $($crate::GameKind::$variant => <$ty as Analysis>::analyze(tool, input, budget, emit)),+
                }
            }

            /// The input of analysis tool `tool` from its command-line
            /// words (`parlor cribbage score 5H 5S 5C JD --start 5D`): the
            /// game reads its own words and flags, so a front end passes
            /// them through untouched. `Err` says, for people, what is
            /// wrong, an unknown tool included.
            pub fn tool_args(
                self,
                tool: &str,
                words: &[String],
            ) -> Result<$crate::analysis::ArgsInput, String> {
                use $crate::analysis::Analysis;
                if !self.tools().contains(&tool) {
                    return Err($crate::analysis::AnalysisError::UnknownTool {
                        game: self.name(),
                        tool: tool.to_owned(),
                        known: self.tools().join(", "),
                    }
                    .to_string());
                }
                match self {
                    $($crate::GameKind::$variant => <$ty as Analysis>::args_input(tool, words)),+
                }
            }

            /// The analysis of a finished match (for `get_log` with
            /// `predict`): the tool to run and its input, built from the
            /// match's options (`null` for defaults), seats, generator as
            /// it was before the deal, and steps in order (`None` for a
            /// forfeit). `None`: this game offers no such analysis;
            /// `Some(Err)`: not for this match, with the reason for people.
            pub fn log_analysis(
                self,
                config: &serde_json::Value,
                seats: u8,
                rng: $crate::GameRng,
                steps: &[($crate::Seat, Option<$crate::AnyMove>)],
            ) -> Option<Result<(&'static str, serde_json::Value), String>> {
                match self {
                    $($crate::GameKind::$variant => {
                        $crate::analysis_registry::log_analysis::<$ty>(
                            self, config, seats, rng, steps,
                            |m| match m {
                                $crate::AnyMove::$variant(m) => Some(m),
                                #[allow(unreachable_patterns)]
                                _ => None,
                            },
                        )
                    }),+
                }
            }

            /// Engine agreement per seat in a finished match (the
            /// fair-play review's counts, see
            /// [`crate::analysis::agreement`]), from its options (`null`
            /// for defaults), seats, generator as it was before the deal
            /// and steps in order. `Err`, for people: not measurable.
            pub fn agreement(
                self,
                config: &serde_json::Value,
                seats: u8,
                rng: $crate::GameRng,
                steps: &[$crate::analysis::Played<$crate::AnyMove>],
            ) -> Result<Vec<$crate::analysis::Tally>, String> {
                match self {
                    $($crate::GameKind::$variant => {
                        $crate::analysis_registry::agreement::<$ty>(
                            self, config, seats, rng, steps,
                            |m| match m {
                                $crate::AnyMove::$variant(m) => Some(m),
                                #[allow(unreachable_patterns)]
                                _ => None,
                            },
                        )
                    }),+
                }
            }
        }
    };
}

with_hosted_games!(analysis_registry);

#[cfg(test)]
mod tests {
    use crate::analysis::ArgsInput;
    use crate::GameKind;
    use serde_json::json;

    #[test]
    fn every_tool_reads_its_words_and_unknown_tools_are_named() {
        for &g in GameKind::ALL {
            for tool in g.tools() {
                // No words: the input is JSON on standard input.
                assert_eq!(
                    g.tool_args(tool, &[]),
                    Ok(ArgsInput::Stdin(Default::default())),
                    "{g} {tool}"
                );
            }
            let err = g.tool_args("no-such-tool", &[]).err().unwrap_or_default();
            assert!(
                err.contains("no-such-tool") && err.contains(g.tools()[0]),
                "{err}"
            );
        }
        let words = ["5".to_owned(), "9".to_owned()];
        assert_eq!(
            GameKind::Nimrod.tool_args("best-move", &words),
            Ok(ArgsInput::Complete(json!({"piles": [5, 9]})))
        );
    }
}
