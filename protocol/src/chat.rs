//! Room chat: what a `say` may carry and what a `said` tells.
//!
//! A room has two channels: its players' and its spectators'. During the
//! game the spectators' never reaches a player (so a spectator cannot
//! help one); after the end everyone in the room reads both.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The longest message, in characters: a sentence or two at a table,
/// short enough that a line never floods a reader's screen.
pub const MAX_CHAT_CHARS: usize = 300;

/// Who reads a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The room's seated players (and, after the end, its spectators).
    Players,
    /// The room's spectators (and, after the end, its players).
    Spectators,
}

impl Channel {
    /// The channel as it travels and is stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Players => "players",
            Channel::Spectators => "spectators",
        }
    }

    /// The channel stored as `s`, if it is one.
    pub fn parse(s: &str) -> Option<Channel> {
        match s {
            "players" => Some(Channel::Players),
            "spectators" => Some(Channel::Spectators),
            _ => None,
        }
    }
}

/// A canned phrase, for players who would rather not type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Phrase {
    /// "Good game".
    #[serde(rename = "good_game")]
    GoodGame,
    /// "Good luck".
    #[serde(rename = "good_luck")]
    GoodLuck,
    /// "Thanks".
    #[serde(rename = "thanks")]
    Thanks,
    /// "Well played".
    #[serde(rename = "well_played")]
    WellPlayed,
    /// "Rematch?".
    #[serde(rename = "rematch?")]
    Rematch,
}

impl Phrase {
    /// Every phrase.
    pub const ALL: &'static [Phrase] = &[
        Phrase::GoodGame,
        Phrase::GoodLuck,
        Phrase::Thanks,
        Phrase::WellPlayed,
        Phrase::Rematch,
    ];

    /// The phrase's English text.
    pub fn text(self) -> &'static str {
        match self {
            Phrase::GoodGame => "Good game",
            Phrase::GoodLuck => "Good luck",
            Phrase::Thanks => "Thanks",
            Phrase::WellPlayed => "Well played",
            Phrase::Rematch => "Rematch?",
        }
    }
}

/// One message of a room's chat, as `said`, `chat_history` and the log
/// show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChatLine {
    /// Its number in the room: rising, from 1.
    pub id: u64,
    /// When it was said, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The speaker's name.
    pub name: String,
    /// Its channel.
    pub to: Channel,
    /// What was said (a phrase's English text for a phrase).
    pub text: String,
    /// The canned phrase it is, if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phrase: Option<Phrase>,
}

/// Why a chat text is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadText {
    /// Empty once trimmed.
    #[error("the message is empty")]
    Empty,
    /// Longer than [`MAX_CHAT_CHARS`].
    #[error("the message is longer than {MAX_CHAT_CHARS} characters")]
    TooLong,
    /// Holds a control character (a newline included).
    #[error("the message holds a control character (a newline, a tab or the like)")]
    Control,
}

/// `text` trimmed, if it may be said: 1 to [`MAX_CHAT_CHARS`] characters
/// once trimmed, none of them a control character (refused rather than
/// stripped, so that what is shown is what was sent).
pub fn check_chat_text(text: &str) -> Result<&str, BadText> {
    if text.chars().any(char::is_control) {
        return Err(BadText::Control);
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(BadText::Empty);
    }
    if text.chars().count() > MAX_CHAT_CHARS {
        return Err(BadText::TooLong);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_checked_not_stripped() {
        assert_eq!(check_chat_text("  hi  "), Ok("hi"));
        assert_eq!(check_chat_text("   "), Err(BadText::Empty));
        assert_eq!(check_chat_text("a\nb"), Err(BadText::Control));
        assert_eq!(check_chat_text("a\u{7}"), Err(BadText::Control));
        let long = "é".repeat(MAX_CHAT_CHARS);
        assert_eq!(check_chat_text(&long), Ok(long.as_str()));
        assert_eq!(check_chat_text(&format!("{long}x")), Err(BadText::TooLong));
    }

    #[test]
    fn phrases_travel_as_documented() {
        let names: Vec<String> = Phrase::ALL
            .iter()
            .map(|p| serde_json::to_string(p).unwrap_or_default())
            .collect();
        assert_eq!(
            names,
            [
                "\"good_game\"",
                "\"good_luck\"",
                "\"thanks\"",
                "\"well_played\"",
                "\"rematch?\""
            ]
        );
        assert_eq!(Phrase::GoodGame.text(), "Good game");
    }
}
