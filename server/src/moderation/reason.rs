//! The closed set of reasons a moderation action gives, beside its free
//! text: what the public summary on a player page says.

use serde::{Deserialize, Serialize};

/// The longest free text of an action or a report, in characters: a few
/// sentences for the record, short enough to read in a queue.
pub const MAX_MOD_TEXT_CHARS: usize = 1_000;

/// Why a moderator acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModReason {
    /// Played with a program's help, or let one play for a human account.
    FairPlay,
    /// Farmed or sandbagged ratings.
    Boosting,
    /// Insulted, harassed or threatened others.
    Abuse,
    /// Flooded others with challenges, reports or messages.
    Spam,
    /// An offensive or misleading account name.
    Name,
    /// Asked for by the account's owner.
    Request,
    /// An earlier action was a mistake (a reopen, an unmark).
    Mistake,
    /// Anything else; the text says what.
    Other,
}

impl ModReason {
    /// Every reason, in the order the docs list them.
    pub const ALL: [ModReason; 8] = [
        ModReason::FairPlay,
        ModReason::Boosting,
        ModReason::Abuse,
        ModReason::Spam,
        ModReason::Name,
        ModReason::Request,
        ModReason::Mistake,
        ModReason::Other,
    ];

    /// The reason as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ModReason::FairPlay => "fair_play",
            ModReason::Boosting => "boosting",
            ModReason::Abuse => "abuse",
            ModReason::Spam => "spam",
            ModReason::Name => "name",
            ModReason::Request => "request",
            ModReason::Mistake => "mistake",
            ModReason::Other => "other",
        }
    }

    /// The reason stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The words a player page uses ("closed for fair-play violation").
    pub fn public(self) -> &'static str {
        match self {
            ModReason::FairPlay => "fair-play violation",
            ModReason::Boosting => "rating manipulation",
            ModReason::Abuse => "abusive behaviour",
            ModReason::Spam => "spam",
            ModReason::Name => "an inappropriate name",
            ModReason::Request => "the owner's request",
            ModReason::Mistake => "a correction",
            ModReason::Other => "a breach of the rules",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_reads_back_what_it_sends() {
        for r in ModReason::ALL {
            assert_eq!(ModReason::parse(r.as_str()), Some(r));
            let sent = serde_json::to_string(&r).unwrap_or_default();
            assert_eq!(sent, format!("\"{}\"", r.as_str()));
        }
        assert_eq!(ModReason::parse("because"), None);
    }
}
