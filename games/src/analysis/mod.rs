//! Analysis tools: JSON in, JSON values out, no server needed.
//!
//! Each game offers named tools (`parlor nimrod best-move`, `parlor
//! rummikub predict`, ...). A tool reads one JSON input and emits one or
//! more JSON values through a callback, so that a tool with many results
//! (every outcome of a game) streams them instead of holding them all.
//! The CLI prints each value as a line; the protocol's `analyze` request
//! returns them in a message.
//!
//! This tree stands apart from the rules: the [`Game`](crate::Game) trait
//! names no tool, and no rules module imports from here. Each game
//! implements [`Analysis`] in its own `ai::analysis` module, next to the
//! search its tools share with its bots, and the registry beside this tree
//! (`analysis_registry`) reaches it by [`GameKind`](crate::GameKind) for
//! the server and the CLI alike. The arrows go one way: the games' `ai`
//! modules read this contract, the registry reads the games and this
//! contract, and nothing here reads a game or the registry.
//!
//! It is a module tree of `parlor-games` rather than a crate of its own
//! because a game's tools stand on that game's search code (Rummikub's
//! exact prediction, Mitsudomoe's perft and search, Nimrod's lose
//! positions), which its bots use too: a separate crate would split every
//! game's folder in two, with a crate boundary through code that changes
//! together, against "a game is one folder". The direction that matters
//! (analysis reads the rules, never the reverse) holds within the crate,
//! and the server and the CLI reach every tool through
//! [`GameKind`](crate::GameKind) as before.
//!
//! - [`contract`]: the [`Analysis`] trait a game implements.
//! - [`agreement`]: how often a seat chose what the game's engine prefers
//!   (the fair-play review's counts), and the replay that tallies it.
//! - [`io`]: a tool's JSON input and output, and [`AnalysisError`].
//! - [`budget`]: how much work a tool may do ([`Budget`]).
//! - [`tool_args`]: how a tool's command-line words become its input.

pub mod agreement;
pub mod budget;
pub mod contract;
pub mod io;
pub mod tool_args;

pub use agreement::{tally_match, verdict_of, Played, Tally, Verdict};
pub use budget::{table_bytes, table_entries_within, table_growth_bytes, Budget};
pub use contract::Analysis;
#[cfg(test)]
pub(crate) use io::collect;
pub use io::{emit_json, input, AnalysisError, Emit};
pub use tool_args::ArgsInput;
