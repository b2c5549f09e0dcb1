//! JSON Schema of the types the protocol carries whose serde forms are
//! written by hand (game names, seat sets): their schemas say what those
//! hand-written forms accept, so that the protocol's published schema is
//! as strict as the decoder.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};

use crate::seat::{SeatSet, MAX_SEATS};
use crate::GameKind;

impl JsonSchema for GameKind {
    fn schema_name() -> Cow<'static, str> {
        "GameKind".into()
    }

    fn schema_id() -> Cow<'static, str> {
        concat!(module_path!(), "::GameKind").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = GameKind::ALL.iter().map(|g| g.name()).collect();
        json_schema!({
            "description": "A game this build hosts, by its lowercase name.",
            "type": "string",
            "enum": names,
        })
    }
}

impl JsonSchema for SeatSet {
    fn schema_name() -> Cow<'static, str> {
        "SeatSet".into()
    }

    fn schema_id() -> Cow<'static, str> {
        concat!(module_path!(), "::SeatSet").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A set of seats: a list of seat numbers, sorted, each at most once.",
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1},
            "uniqueItems": true,
            "maxItems": MAX_SEATS,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_names_are_the_wire_names() {
        let schema = schemars::schema_for!(GameKind);
        let listed = schema.get("enum").cloned();
        let wire: Vec<serde_json::Value> = GameKind::ALL
            .iter()
            .map(|g| serde_json::to_value(g).unwrap_or_default())
            .collect();
        assert_eq!(listed, Some(serde_json::Value::Array(wire)));
    }
}
