//! What happens when a player must draw from an empty bag: the room
//! option `empty_bag`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The room option `empty_bag`. A closed set: the specification's rule,
/// or the real game's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmptyBag {
    /// The specification's rule (the seed's `play_game`, which `predict`
    /// counts by): when the player to move can neither lay nor add a
    /// block and the bag is empty, the game ends at once in a draw.
    #[default]
    End,
    /// The real game's: once the bag is empty a player who cannot play
    /// passes; when every player has passed in a row the game ends and the
    /// lowest rack total wins (see [`super::Rummikub`] for ties).
    Pass,
}

impl EmptyBag {
    /// Whether this is the default, [`EmptyBag::End`]: options and views
    /// leave the field out then, so that matches stored before the option
    /// existed keep their exact form.
    pub fn is_end(&self) -> bool {
        *self == EmptyBag::End
    }
}

impl fmt::Display for EmptyBag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EmptyBag::End => "end",
            EmptyBag::Pass => "pass",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_reads_and_writes_its_two_names_only() {
        for (rule, name) in [(EmptyBag::End, "end"), (EmptyBag::Pass, "pass")] {
            assert_eq!(
                serde_json::to_value(rule).ok(),
                Some(serde_json::json!(name))
            );
            assert_eq!(
                serde_json::from_value::<EmptyBag>(serde_json::json!(name)).ok(),
                Some(rule)
            );
            assert_eq!(rule.to_string(), name);
        }
        assert!(serde_json::from_value::<EmptyBag>(serde_json::json!("draw")).is_err());
        assert!(EmptyBag::default().is_end());
    }
}
