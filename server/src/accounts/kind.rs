//! An account's kind, fixed at creation (as on lichess): bots and people
//! share rating pools, but leaderboards and ladders tell them apart.

use serde::{Deserialize, Serialize};

/// Whether an account is played by a person or a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountKind {
    /// A person, playing in the browser or the terminal.
    Human,
    /// A program, playing through the protocol with an API token.
    Bot,
}

impl AccountKind {
    /// The kind as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            AccountKind::Human => "human",
            AccountKind::Bot => "bot",
        }
    }

    /// The kind stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "human" => Some(AccountKind::Human),
            "bot" => Some(AccountKind::Bot),
            _ => None,
        }
    }
}
