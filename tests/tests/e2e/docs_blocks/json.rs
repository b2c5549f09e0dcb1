//! `json` blocks: each parses, and one that is a message (a string
//! `"type"`) decodes as a client's or the server's, so a document never
//! shows a message the protocol would refuse.

use parlor_protocol::{decode_client, decode_server};
use serde_json::Value;

use super::of;

/// Whether `v` is a protocol message, decoded (and so checked) if so.
fn decodes_as_message(what: &str, text: &str) -> Result<(), String> {
    match (decode_client(text), decode_server(text)) {
        (Ok(_), _) | (_, Ok(_)) => Ok(()),
        (Err(c), Err(s)) => Err(format!(
            "{what} has a \"type\" but is no message: as a client's, {c}; as the server's, {s}"
        )),
    }
}

#[test]
fn json_blocks_parse_and_messages_decode() {
    let mut problems = Vec::new();
    let mut messages = 0;
    let all = of("json");
    for b in &all {
        match serde_json::from_str::<Value>(&b.text) {
            Err(e) => problems.push(format!("{} is not JSON: {e}", b.what())),
            Ok(v) if v.get("type").is_some_and(Value::is_string) => {
                messages += 1;
                if let Err(e) = decodes_as_message(&b.what(), &b.text) {
                    problems.push(e);
                }
            }
            Ok(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        all.len() > 90 && messages > 30,
        "{} blocks, {messages} messages",
        all.len()
    );
}
