//! The protocol's JSON Schema (`docs/protocol/schema/`): the checked-in
//! files are what the types generate, they are valid 2020-12 schemas,
//! every fixture and every message example of the reference validates
//! against them, and they refuse what the decoder refuses.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use jsonschema::Validator;
use parlor_protocol::{decode_client, decode_server, schema, CLIENT_TYPES};
use serde_json::{json, Value};

use crate::fixtures::{fixtures, SERVER_TYPES};
use crate::reference::{self, Direction};

/// How to write the files again, for the failure messages.
const REGENERATE: &str = "cargo run -p parlor-protocol --example schema";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(schema::SCHEMA_DIR)
}

/// The checked-in schema file `name`, as JSON.
fn checked_in(name: &str) -> Value {
    let path = schema_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}; run `{REGENERATE}`", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// A validator of the checked-in `name` (client.json or server.json).
fn validator(name: &str) -> Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&checked_in(name))
        .unwrap_or_else(|e| panic!("{name} is not a usable schema: {e}"))
}

/// Why `instance` does not validate, one line per error; empty when it does.
fn errors(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("at {:?}: {e}", e.instance_path().as_str()))
        .collect()
}

fn assert_valid(validator: &Validator, what: &str, text: &str) {
    let instance: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{what} is not JSON: {e}"));
    let found = errors(validator, &instance);
    assert!(
        found.is_empty(),
        "{what} does not validate against the schema:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checked_in_schema_is_the_generated_one() {
    let files = schema::files();
    for (name, generated) in &files {
        let path = schema_dir().join(name);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == *generated,
            "{} differs from what the protocol's types generate: run `{REGENERATE}` and commit the result",
            path.display()
        );
    }
    // No file the generator no longer writes is left behind.
    let mut on_disk: Vec<String> = std::fs::read_dir(schema_dir())
        .unwrap_or_else(|e| panic!("{}: {e}", schema_dir().display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    on_disk.sort();
    let mut written: Vec<String> = files.iter().map(|(n, _)| (*n).to_owned()).collect();
    written.sort();
    assert_eq!(
        on_disk, written,
        "stale schema files: remove them, or run `{REGENERATE}`"
    );
}

#[test]
fn the_schemas_are_valid_draft_2020_12() {
    for name in ["client.json", "server.json"] {
        let schema = checked_in(name);
        assert_eq!(
            schema.get("$schema").and_then(Value::as_str),
            Some("https://json-schema.org/draft/2020-12/schema"),
            "{name}"
        );
        if let Err(e) = jsonschema::meta::validate(&schema) {
            panic!("{name} is not a valid JSON Schema: {e}");
        }
    }
}

#[test]
fn every_message_type_has_its_schema() {
    // One `oneOf` branch per message type, named by its `type` constant:
    // a variant the generator missed would let anything through.
    for (name, types) in [("client.json", CLIENT_TYPES), ("server.json", SERVER_TYPES)] {
        let schema = checked_in(name);
        let mut consts: Vec<&str> = schema["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} has no oneOf"))
            .iter()
            .map(|branch| {
                branch["properties"]["type"]["const"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{name}: a branch without a type: {branch}"))
            })
            .collect();
        consts.sort_unstable();
        let mut expected = types.to_vec();
        expected.sort_unstable();
        assert_eq!(consts, expected, "{name}");
    }
}

#[test]
fn every_fixture_validates() {
    for (side, schema) in [("client", "client.json"), ("server", "server.json")] {
        let validator = validator(schema);
        let files = fixtures(side);
        for (name, text) in &files {
            assert_valid(&validator, &format!("{side}/{name}"), text);
        }
    }
}

#[test]
fn every_message_example_of_the_reference_validates() {
    let client = validator("client.json");
    let server = validator("server.json");
    let mut checked = 0;
    for chapter in reference::chapters() {
        for block in reference::json_blocks(&chapter) {
            let v: Value = serde_json::from_str(&block.text)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", block.what));
            match v.get("type").and_then(Value::as_str) {
                Some(t) if CLIENT_TYPES.contains(&t) => {
                    assert_valid(&client, &block.what, &block.text);
                }
                Some(t) if SERVER_TYPES.contains(&t) => {
                    assert_valid(&server, &block.what, &block.text);
                }
                _ => continue,
            }
            checked += 1;
        }
        for (direction, frame) in reference::transcript_frames(&chapter) {
            let validator = match direction {
                Direction::FromClient => &client,
                Direction::FromServer => &server,
            };
            assert_valid(validator, &frame.what, &frame.text);
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} message examples found");
}

/// Messages the decoder refuses, each for one reason the schema can say.
fn refused_client_messages() -> Vec<Value> {
    vec![
        json!({"type": "teleport"}),
        json!({"name": "no type"}),
        json!({"type": "hello"}),
        json!({"type": "hello", "version": 1.5}),
        json!({"type": "join", "room": "not a room id"}),
        json!({"type": "join", "room": ""}),
        json!({"type": "join", "room": "x".repeat(65)}),
        json!({"type": "create_room", "game": "chess"}),
        json!({"type": "create_room", "game": "nimrod", "clock": {"per_move": {"ms": 1000, "extra": 1}}}),
        json!({"type": "create_room", "game": "nimrod", "clock": {"hourglass": 5}}),
        json!({"type": "play", "room": "92b882947878", "seat": -1, "seq": 0, "move": {}}),
        json!({"type": "play", "room": "92b882947878", "seat": 0, "seq": 0}),
        json!({"type": "decline", "challenge": 1, "reason": "bored"}),
        json!({"type": "say", "room": "92b882947878", "phrase": "hello there"}),
        json!({"type": "create_tournament", "game": "nimrod", "format": "knockout", "starts_at_ms": 1}),
        json!({"type": "create_tournament", "game": "nimrod", "format": "swiss", "starts_at_ms": 1, "colour": "red"}),
    ]
}

fn refused_server_messages() -> Vec<Value> {
    let update = json!({
        "type": "update", "room": "92b882947878", "game": "nimrod", "seq": 0,
        "status": "playing", "seats": [], "to_act": [0], "view": {}
    });
    let mut bad_seat_set = update.clone();
    bad_seat_set["to_act"] = json!([9]);
    let mut bad_status = update.clone();
    bad_status["status"] = json!("paused");
    let mut bad_occupant = update;
    bad_occupant["seats"] = json!([{"seat": 0, "kind": "ghost"}]);
    vec![
        json!({"type": "error", "code": "room/on_fire", "message": "no such code"}),
        json!({"type": "error", "message": "no code"}),
        json!({"type": "welcome", "version": 1, "session": "not-a-uuid",
               "token": "0f8e3a56-8c1b-4a0e-9d2f-3b6c1e7a9d40", "games": ["nimrod"]}),
        json!({"type": "pong", "id": "one"}),
        bad_seat_set,
        bad_status,
        bad_occupant,
    ]
}

#[test]
fn the_schema_refuses_what_the_decoder_refuses() {
    let client = validator("client.json");
    for msg in refused_client_messages() {
        assert!(
            decode_client(&msg.to_string()).is_err(),
            "the decoder reads {msg}"
        );
        assert!(
            !errors(&client, &msg).is_empty(),
            "client.json accepts {msg}"
        );
    }
    let server = validator("server.json");
    for msg in refused_server_messages() {
        assert!(
            decode_server(&msg.to_string()).is_err(),
            "the decoder reads {msg}"
        );
        assert!(
            !errors(&server, &msg).is_empty(),
            "server.json accepts {msg}"
        );
    }
}

#[test]
fn the_schema_keeps_what_the_protocol_leaves_open() {
    // Unknown fields are ignored (clients may add them), and a game's
    // options, moves and views are any JSON.
    let client = validator("client.json");
    for msg in [
        json!({"type": "ping", "id": 3, "sent_by": "a newer client"}),
        json!({"type": "play", "room": "92b882947878", "seat": 1, "seq": 7, "move": [1, "two", {"three": null}]}),
        json!({"type": "create_room", "game": "rummikub", "options": {"anything": true}}),
    ] {
        assert!(decode_client(&msg.to_string()).is_ok(), "{msg}");
        let found = errors(&client, &msg);
        assert!(found.is_empty(), "{msg}: {found:?}");
    }
}
