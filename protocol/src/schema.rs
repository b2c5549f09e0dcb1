//! The protocol as JSON Schema (2020-12), generated from the message
//! types themselves, so that the published schema cannot drift from what
//! the decoder reads. `cargo run -p parlor-protocol --example schema`
//! writes [`files`] to [`SCHEMA_DIR`]; a test fails when the files there
//! differ from what this build generates.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

use crate::{ClientMsg, ServerMsg};

/// Where the schema files live, from the workspace's root.
pub const SCHEMA_DIR: &str = "docs/protocol/schema";

/// What each file says of itself: JSON has no comments, and a reader
/// who edits a generated file by hand should know it will be overwritten.
const GENERATED: &str =
    "Generated from parlor-protocol's types by `cargo run -p parlor-protocol --example schema`; do not edit.";

/// The schema of one message type, with its meta-schema (2020-12) named.
/// Descriptions are the types' doc comments.
fn schema_of<T: JsonSchema>() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.insert("$comment".into(), GENERATED.into());
    let mut schema = schema.to_value();
    plain_descriptions(&mut schema);
    schema
}

/// Drops rustdoc's link brackets from every description (`` [`seq`] ``
/// reads `` `seq` ``): the schema's readers are not reading rustdoc.
fn plain_descriptions(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => {
                        *text = text.replace("[`", "`").replace("`]", "`");
                    }
                    _ => plain_descriptions(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plain_descriptions),
        _ => {}
    }
}

/// Every message a client may send ([`ClientMsg`]).
pub fn client() -> Value {
    schema_of::<ClientMsg>()
}

/// Every message the server sends ([`ServerMsg`]).
pub fn server() -> Value {
    schema_of::<ServerMsg>()
}

/// The schema files as they are written: `(file name, text)`, the text
/// pretty-printed with a final newline.
pub fn files() -> Vec<(&'static str, String)> {
    [("client.json", client()), ("server.json", server())]
        .into_iter()
        .map(|(name, schema)| {
            let text = serde_json::to_string_pretty(&schema)
                .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
            (name, text + "\n")
        })
        .collect()
}
