//! How a moderator closes a report: the closed set kept with it and in
//! the moderation log's entry.

use serde::{Deserialize, Serialize};

/// How a report was resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolution {
    /// Nothing to act on.
    Dismissed,
    /// The moderator acted (the action is its own entry in the log).
    Actioned,
}

impl Resolution {
    /// Every resolution.
    pub const ALL: [Resolution; 2] = [Resolution::Dismissed, Resolution::Actioned];

    /// The resolution as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Dismissed => "dismissed",
            Resolution::Actioned => "actioned",
        }
    }

    /// The resolution stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_resolution_reads_back_what_it_stores() {
        for r in Resolution::ALL {
            assert_eq!(Resolution::parse(r.as_str()), Some(r));
        }
        assert_eq!(Resolution::parse("ignored"), None);
    }
}
