//! Parlor's turn limit, a house rule (the published rules have none):
//! a match that reaches the room's `max_turns` turns ends drawn. Each
//! player's turn, one step of the match log, counts one.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The limit of a room that names none: games between the built-in bots
/// take tens of turns, so 300 cuts short only play that goes nowhere,
/// while bounding a bot-only room to a few minutes of thinking.
pub const DEFAULT_MAX_TURNS: u16 = 300;

/// The fewest turns a room may allow: a game needs about ten turns a
/// side to bring three balls across the board, so fewer would end most
/// matches before they are decided.
pub const FEWEST_MAX_TURNS: u16 = 20;

/// The most turns a room may allow: far beyond any game that makes
/// progress, and small enough that the repetition history a match keeps
/// stays a few hundred kilobytes at worst.
pub const MOST_MAX_TURNS: u16 = 2_000;

/// The room option `max_turns`: a whole number from [`FEWEST_MAX_TURNS`]
/// to [`MOST_MAX_TURNS`], [`DEFAULT_MAX_TURNS`] when left out. On the
/// wire, a plain number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct MaxTurns(u16);

/// A `max_turns` out of range, or not a whole number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("max_turns must be a whole number from {FEWEST_MAX_TURNS} to {MOST_MAX_TURNS}, not {0}")]
pub struct BadMaxTurns(pub String);

impl MaxTurns {
    /// `turns`, if within range.
    pub fn new(turns: u64) -> Result<MaxTurns, BadMaxTurns> {
        u16::try_from(turns)
            .ok()
            .filter(|t| (FEWEST_MAX_TURNS..=MOST_MAX_TURNS).contains(t))
            .map(MaxTurns)
            .ok_or_else(|| BadMaxTurns(turns.to_string()))
    }

    /// The limit.
    pub fn get(self) -> u16 {
        self.0
    }

    /// Whether this is [`DEFAULT_MAX_TURNS`].
    pub fn is_default(&self) -> bool {
        self.0 == DEFAULT_MAX_TURNS
    }
}

impl Default for MaxTurns {
    fn default() -> Self {
        MaxTurns(DEFAULT_MAX_TURNS)
    }
}

impl fmt::Display for MaxTurns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for MaxTurns {
    /// Read as any JSON value first, so that a string, a fraction or a
    /// negative number is refused with the range rather than a type name.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        v.as_u64()
            .ok_or_else(|| BadMaxTurns(v.to_string()))
            .and_then(MaxTurns::new)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_numbers_in_range_are_limits() {
        for ok in [20, 300, 2_000] {
            assert_eq!(MaxTurns::new(ok).map(MaxTurns::get), Ok(ok as u16));
            let read: Result<MaxTurns, _> = serde_json::from_str(&ok.to_string());
            assert_eq!(read.ok().map(MaxTurns::get), Some(ok as u16));
        }
        for bad in [
            "19", "2001", "0", "-5", "65556", "20.5", "\"300\"", "null", "1e30",
        ] {
            let read: Result<MaxTurns, _> = serde_json::from_str(bad);
            let err = read.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains("max_turns must be"), "{bad}: {err}");
        }
        assert_eq!(MaxTurns::default().get(), DEFAULT_MAX_TURNS);
    }
}
