//! Actions as the seed writes them, and moves as a hosted player sends them.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::block::Block;
use super::row::Row;

/// One entry of a player's action list in the seed's `play_game`.
///
/// On the wire: `{"playrow": row}`, `{"playblock": {"block": b, "row": row}}`,
/// `{"draw": block}`, and the final `"win"`, `"lose"` or `"draw"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Lay a new row of three blocks from the player's own supply.
    PlayRow(Row),
    /// Add `block` to a row on the table, giving the whole new `row`.
    PlayBlock {
        /// The block laid.
        block: Block,
        /// The row it makes.
        row: Row,
    },
    /// Take the bag's first block (only when nothing can be played).
    Draw(Block),
    /// Final action: this player emptied their supply.
    Win,
    /// Final action: the other player emptied theirs.
    Lose,
    /// Final action: nobody won (`"draw"` on the wire, without a block).
    DrawGame,
}

impl Action {
    /// Whether this is one of the final words `win`, `lose`, `draw`.
    pub fn is_final(&self) -> bool {
        matches!(self, Action::Win | Action::Lose | Action::DrawGame)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::PlayRow(r) => write!(f, "playrow {r}"),
            Action::PlayBlock { block, row } => write!(f, "playblock {block} making {row}"),
            Action::Draw(b) => write!(f, "draw {b}"),
            Action::Win => f.write_str("win"),
            Action::Lose => f.write_str("lose"),
            Action::DrawGame => f.write_str("draw"),
        }
    }
}

/// The body of a `playblock`, shared by [`Action`] and [`Move`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Extension {
    block: Block,
    row: Row,
}

#[derive(Serialize)]
struct ExtensionRef<'a> {
    block: Block,
    row: &'a Row,
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Hand-written because "draw" names both a drawn block and the
        // final word, which serde's derive cannot tell apart.
        match self {
            Action::Win => s.serialize_str("win"),
            Action::Lose => s.serialize_str("lose"),
            Action::DrawGame => s.serialize_str("draw"),
            Action::PlayRow(row) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("playrow", row)?;
                m.end()
            }
            Action::PlayBlock { block, row } => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("playblock", &ExtensionRef { block: *block, row })?;
                m.end()
            }
            Action::Draw(b) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("draw", b)?;
                m.end()
            }
        }
    }
}

const ACTION_FORMS: &str = r#"{"playrow": row}, {"playblock": {"block": b, "row": row}}, {"draw": block}, "win", "lose" or "draw""#;

struct ActionVisitor;

impl<'de> Visitor<'de> for ActionVisitor {
    type Value = Action;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an action: {ACTION_FORMS}")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Action, E> {
        match v {
            "win" => Ok(Action::Win),
            "lose" => Ok(Action::Lose),
            "draw" => Ok(Action::DrawGame),
            other => Err(E::custom(format!(
                "unknown action {other:?}; expected {ACTION_FORMS}"
            ))),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Action, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Err(de::Error::custom(format!(
                "empty object; expected {ACTION_FORMS}"
            )));
        };
        let action = match key.as_str() {
            "playrow" => Action::PlayRow(map.next_value()?),
            "playblock" => {
                let Extension { block, row } = map.next_value()?;
                Action::PlayBlock { block, row }
            }
            "draw" => Action::Draw(map.next_value()?),
            other => {
                return Err(de::Error::custom(format!(
                    "unknown action {other:?}; expected {ACTION_FORMS}"
                )))
            }
        };
        if let Some(extra) = map.next_key::<String>()? {
            return Err(de::Error::custom(format!(
                "an action has one key, but {key:?} comes with {extra:?}"
            )));
        }
        Ok(action)
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ActionVisitor)
    }
}

/// A move in a hosted game. On the wire `{"playrow": row}`,
/// `{"playblock": {"block": b, "row": row}}`, `"draw"` or `"pass"`: unlike
/// the seed's action, a draw names no block, since the player cannot know
/// it. `"pass"` exists only in rooms with the option `empty_bag: "pass"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Move {
    /// Lay a new row of three blocks from the rack.
    #[serde(rename = "playrow")]
    PlayRow(Row),
    /// Add `block` to a row on the table; `row` is the whole new row.
    #[serde(rename = "playblock")]
    PlayBlock {
        /// The block laid.
        block: Block,
        /// The row it makes.
        row: Row,
    },
    /// Take the next block of the bag.
    #[serde(rename = "draw")]
    Draw,
    /// Do nothing: the bag is empty and nothing can be laid (only with
    /// the room option `empty_bag: "pass"`; the seed has no such action).
    #[serde(rename = "pass")]
    Pass,
}

impl Move {
    /// The seed's action for this move; `drawn` is the block a draw takes.
    /// `None` for a draw without its block, and for a pass, which the
    /// seed's game does not have.
    pub fn to_action(&self, drawn: Option<Block>) -> Option<Action> {
        Some(match self {
            Move::PlayRow(r) => Action::PlayRow(r.clone()),
            Move::PlayBlock { block, row } => Action::PlayBlock {
                block: *block,
                row: row.clone(),
            },
            Move::Draw => Action::Draw(drawn?),
            Move::Pass => return None,
        })
    }

    /// The hosted move of a seed action; `None` for the final words.
    pub fn from_action(a: &Action) -> Option<Move> {
        Some(match a {
            Action::PlayRow(r) => Move::PlayRow(r.clone()),
            Action::PlayBlock { block, row } => Move::PlayBlock {
                block: *block,
                row: row.clone(),
            },
            Action::Draw(_) => Move::Draw,
            Action::Win | Action::Lose | Action::DrawGame => return None,
        })
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::PlayRow(r) => write!(f, "playrow {r}"),
            Move::PlayBlock { block, row } => write!(f, "playblock {block} making {row}"),
            Move::Draw => f.write_str("draw"),
            Move::Pass => f.write_str("pass"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::Color::*;
    use super::*;
    use serde_json::json;

    fn round_trip(a: &Action) -> serde_json::Value {
        let v = serde_json::to_value(a).unwrap_or_else(|e| panic!("{e}"));
        let back: Action = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&back, a);
        v
    }

    #[test]
    fn actions_encode_as_the_seed_writes_them() {
        let r = Block::new(1, Red);
        let row = Row::Nrow(vec![r, Block::new(2, Red), Block::new(3, Red)]);
        assert_eq!(round_trip(&Action::Win), json!("win"));
        assert_eq!(round_trip(&Action::Lose), json!("lose"));
        assert_eq!(round_trip(&Action::DrawGame), json!("draw"));
        assert_eq!(
            round_trip(&Action::Draw(r)),
            json!({"draw": {"number": 1, "color": "red"}})
        );
        assert_eq!(
            round_trip(&Action::PlayRow(row.clone()))["playrow"]["nrow"][2]["number"],
            json!(3)
        );
        let pb = round_trip(&Action::PlayBlock { block: r, row });
        assert_eq!(pb["playblock"]["block"]["color"], json!("red"));
    }

    #[test]
    fn malformed_actions_are_explained() {
        for bad in [
            json!("pass"),
            json!({}),
            json!({"jump": 1}),
            json!({"draw": {"number": 1, "color": "red"}, "win": 1}),
            json!({"draw": {"number": 1, "color": "pink"}}),
            json!(7),
        ] {
            let err = serde_json::from_value::<Action>(bad.clone()).err();
            assert!(err.is_some(), "{bad} decoded");
        }
        let err = serde_json::from_value::<Action>(json!("pass"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("playrow"), "{err}");
    }

    #[test]
    fn hosted_moves_draw_without_a_block() {
        assert_eq!(serde_json::to_value(Move::Draw).ok(), Some(json!("draw")));
        assert_eq!(serde_json::to_value(Move::Pass).ok(), Some(json!("pass")));
        assert_eq!(
            serde_json::from_value::<Move>(json!("pass")).ok(),
            Some(Move::Pass)
        );
        assert_eq!(Move::Pass.to_action(None), None);
        let mv: Move = serde_json::from_value(json!({"playblock": {
            "block": {"number": 4, "color": "red"},
            "row": {"nrow": []}
        }}))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(mv, Move::PlayBlock { .. }));
        assert!(
            serde_json::from_value::<Move>(json!({"draw": {"number": 1, "color": "red"}})).is_err()
        );
    }
}
