//! What a report must be to be filed: a known player other than the
//! reporter, a reason from the closed set, a well-formed room id if one
//! is named, a text within [`MAX_MOD_TEXT_CHARS`]. (A message of an
//! event's chat it names is read, and quoted, by the API.) Checked before the
//! database is asked to count anything.

use parlor_protocol::RoomId;
use serde::Deserialize;

use super::reason::ReportReason;
use crate::accounts::name_key;
use crate::moderation::{ModError, MAX_MOD_TEXT_CHARS};

/// A report as the client sent it (the reason as text, so that an
/// unknown one is refused as a report's, not as malformed JSON).
#[derive(Clone, Debug, Deserialize)]
pub struct ReportAsk {
    /// The reported player's name.
    pub player: String,
    /// One of [`ReportReason`]'s words.
    pub reason: String,
    /// The room it happened in, if any.
    #[serde(default)]
    pub room: Option<String>,
    /// What happened, in the reporter's words.
    #[serde(default)]
    pub text: String,
    /// The tournament whose chat holds the message reported, if any.
    #[serde(default)]
    pub event: Option<String>,
    /// The reported message's id in that chat (with `event`).
    #[serde(default)]
    pub message: Option<u64>,
}

/// A report that passed the checks not needing the database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Why.
    pub reason: ReportReason,
    /// The room, if named.
    pub room: Option<RoomId>,
    /// The text.
    pub text: String,
}

impl ReportAsk {
    /// Checks what needs no database, for the reporter whose name is
    /// `reporter`.
    pub fn check(&self, reporter: &str) -> Result<Checked, ModError> {
        let bad = |why: String| Err(ModError::BadReport(why));
        if self.player.trim().is_empty() {
            return bad("player is the name of the account you report".into());
        }
        if name_key(&self.player) == name_key(reporter) {
            return bad("you cannot report yourself".into());
        }
        let Some(reason) = ReportReason::parse(&self.reason) else {
            return bad("reason is \"cheat\", \"abuse\", \"boost\" or \"other\"".into());
        };
        let room = match &self.room {
            None => None,
            Some(r) => match RoomId::new(r) {
                Some(id) => Some(id),
                None => return bad("room is not a room id".into()),
            },
        };
        if self.text.chars().count() > MAX_MOD_TEXT_CHARS {
            return bad(format!("text has at most {MAX_MOD_TEXT_CHARS} characters"));
        }
        Ok(Checked {
            reason,
            room,
            text: self.text.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(player: &str, reason: &str, room: Option<&str>, text: &str) -> ReportAsk {
        ReportAsk {
            player: player.into(),
            reason: reason.into(),
            room: room.map(Into::into),
            text: text.into(),
            event: None,
            message: None,
        }
    }

    #[test]
    fn a_well_formed_report_passes() {
        let c = ask("Bob", "cheat", Some("3c32571558e3"), "too strong")
            .check("Alice")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.reason, ReportReason::Cheat);
        assert_eq!(c.room.map(|r| r.to_string()), Some("3c32571558e3".into()));
    }

    #[test]
    fn oneself_bad_reasons_rooms_and_long_texts_are_refused() {
        let long = "x".repeat(MAX_MOD_TEXT_CHARS + 1);
        for (a, why) in [
            (ask("alice", "cheat", None, ""), "yourself"),
            (ask("Bob", "rude", None, ""), "reason"),
            (ask("Bob", "cheat", Some("a b"), ""), "room"),
            (ask("Bob", "cheat", None, &long), "text"),
            (ask(" ", "cheat", None, ""), "player"),
        ] {
            match a.check("Alice") {
                Err(ModError::BadReport(m)) => assert!(m.contains(why), "{m}"),
                other => panic!("{a:?}: {other:?}"),
            }
        }
        let exact = "é".repeat(MAX_MOD_TEXT_CHARS);
        assert!(ask("Bob", "other", None, &exact).check("Alice").is_ok());
    }
}
