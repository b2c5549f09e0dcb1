//! The verifiers: `parlor verify`, `verify-ratings` and
//! `verify-tournament` re-check what a server published, trusting none of
//! its arithmetic. They share one shape, so a script reads all three alike:
//!
//! - each module has a pure check of what it fetched and, for the
//!   commands that read a server, a `verify_server` whose `Err` means the
//!   server could not be asked (exit status 2, as for every command),
//!   never that a check failed;
//! - what a check finds is a [`Verification`]: one JSON object on stdout
//!   whose `verified` says whether every check passed, and on stderr a line
//!   per failed check for people; [`print()`] writes both and gives the exit
//!   status ([`EXIT_CHECK_FAILED`] when a check failed);
//! - match logs come through [`logs::Logs`], in batches, with progress
//!   on stderr on long runs; being told to slow down is waited out, never
//!   a failed check.
//!
//! - [`match_log`]: `parlor verify ROOM`, one match's deal and steps.
//! - [`ratings`]: `parlor verify-ratings`, the ledger and every rated match.
//! - [`tournament`]: `parlor verify-tournament ID`, a finished event.

pub mod logs;
pub mod match_log;
pub mod ratings;
pub mod seeding;
pub mod seeds;
pub mod tournament;

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;

/// Exit status when a check fails; 2 is left for usage and connection
/// errors, as for every command, so a script can tell a dishonest server
/// from an unreachable one.
pub const EXIT_CHECK_FAILED: u8 = 1;

/// How a verifier's JSON object is laid out on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Indented, for a report people read (a match's deal and views).
    Pretty,
    /// On one line, for a short verdict.
    Compact,
}

impl Layout {
    /// `value` as JSON in this layout.
    pub fn write<T: Serialize + ?Sized>(self, value: &T) -> serde_json::Result<String> {
        match self {
            Layout::Pretty => serde_json::to_string_pretty(value),
            Layout::Compact => serde_json::to_string(value),
        }
    }
}

/// What a verifier found, as its command prints it.
pub trait Verification {
    /// The command, at the start of each line on stderr.
    const COMMAND: &'static str;
    /// How the JSON object is laid out.
    const LAYOUT: Layout;
    /// Whether every check passed.
    fn verified(&self) -> bool;
    /// The JSON object printed on stdout.
    fn json(&self) -> serde_json::Result<String>;
    /// The lines for people on stderr (without the command's name): notes
    /// first, then one per failed check.
    fn remarks(&self) -> Vec<String>;
}

/// Prints `v` (the JSON object on stdout, the remarks on stderr) and gives
/// the command's exit status: success, or [`EXIT_CHECK_FAILED`].
pub fn print<V: Verification>(v: &V) -> Result<ExitCode, String> {
    let text = v
        .json()
        .map_err(|e| format!("cannot write the report: {e}"))?;
    writeln!(std::io::stdout().lock(), "{text}")
        .map_err(|e| format!("cannot write the report: {e}"))?;
    for remark in v.remarks() {
        eprintln!("{}: {remark}", V::COMMAND);
    }
    Ok(if v.verified() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}
