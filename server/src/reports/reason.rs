//! Why a player reports another: the closed set a report names, so that
//! the moderators' queue can be sorted and counted by it.

use serde::{Deserialize, Serialize};

/// What a report says the player did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportReason {
    /// Played with a program's help.
    Cheat,
    /// Insulted, harassed or threatened.
    Abuse,
    /// Farmed or sandbagged ratings.
    Boost,
    /// Anything else; the text says what.
    Other,
}

impl ReportReason {
    /// Every reason, in the order the docs list them.
    pub const ALL: [ReportReason; 4] = [
        ReportReason::Cheat,
        ReportReason::Abuse,
        ReportReason::Boost,
        ReportReason::Other,
    ];

    /// The reason as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::Cheat => "cheat",
            ReportReason::Abuse => "abuse",
            ReportReason::Boost => "boost",
            ReportReason::Other => "other",
        }
    }

    /// The reason stored or sent as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_reads_back_what_it_sends() {
        for r in ReportReason::ALL {
            assert_eq!(ReportReason::parse(r.as_str()), Some(r));
            let sent = serde_json::to_string(&r).unwrap_or_default();
            assert_eq!(sent, format!("\"{}\"", r.as_str()));
        }
        assert_eq!(ReportReason::parse("rude"), None);
    }
}
