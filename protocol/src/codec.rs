//! Turning frames into messages and back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::{ClientMsg, CLIENT_TYPES};
use crate::error_code::ErrorCode;
use crate::server::ServerMsg;
use crate::types::Clock;

/// Why a frame could not be read as a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct DecodeFailure {
    /// `request/malformed` or `request/unknown_type`.
    pub code: ErrorCode,
    /// What was wrong, for people.
    pub message: String,
}

fn malformed(message: impl Into<String>) -> DecodeFailure {
    DecodeFailure {
        code: ErrorCode::RequestMalformed,
        message: message.into(),
    }
}

/// Reads a client frame. JSON nesting deeper than serde_json's recursion
/// limit (128) is refused as malformed rather than overflowing the stack.
pub fn decode_client(text: &str) -> Result<ClientMsg, DecodeFailure> {
    // Every well-formed message is parsed once; only a failure pays for a
    // second look to say precisely what is wrong.
    serde_json::from_str(text).or_else(|_| {
        // A hello's version may be an integer of any length, which the
        // parser refuses past a float's range; read it as the protocol says.
        crate::version::hello_with_a_long_version(text).ok_or_else(|| classify(text))
    })
}

/// Why `text` is not a client message: not JSON, no type, an unknown type,
/// or a known type with bad fields.
fn classify(text: &str) -> DecodeFailure {
    match explain(text) {
        Ok(()) => malformed("not a valid message"),
        Err(f) => f,
    }
}

fn explain(text: &str) -> Result<(), DecodeFailure> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| malformed(format!("not valid JSON: {e}")))?;
    let Some(obj) = value.as_object() else {
        return Err(malformed(
            "a message is a JSON object with a \"type\" field",
        ));
    };
    let kind = match obj.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(_) => return Err(malformed("\"type\" must be a string")),
        None => return Err(malformed("a message needs a \"type\" field")),
    };
    if !CLIENT_TYPES.contains(&kind.as_str()) {
        let shown: String = kind.chars().take(40).collect();
        return Err(DecodeFailure {
            code: ErrorCode::RequestUnknownType,
            message: format!(
                "unknown message type {shown:?}; known types: {}",
                CLIENT_TYPES.join(", ")
            ),
        });
    }
    if kind == "create_room" {
        room_options(obj)?;
    }
    serde_json::from_value::<ClientMsg>(value)
        .map(drop)
        .map_err(|e| malformed(format!("bad {kind} message: {e}")))
}

/// A `create_room` whose clock (an object) or seat count (an integer) is
/// of the right JSON type but out of range is a bad room option, not a
/// malformed message: the client asked for a room the server cannot host.
fn room_options(obj: &serde_json::Map<String, Value>) -> Result<(), DecodeFailure> {
    let bad = |message: String| DecodeFailure {
        code: ErrorCode::RoomBadOptions,
        message,
    };
    if let Some(clock) = obj.get("clock").filter(|c| !c.is_null()) {
        if clock.is_object() {
            Clock::deserialize(clock).map_err(|e| bad(format!("bad clock: {e}")))?;
        }
    }
    if let Some(seats) = obj.get("seats").filter(|s| s.is_i64() || s.is_u64()) {
        if u8::deserialize(seats).is_err() {
            return Err(bad(format!("{seats} is not a number of seats")));
        }
    }
    Ok(())
}

/// Reads a server frame (for clients).
pub fn decode_server(text: &str) -> Result<ServerMsg, DecodeFailure> {
    serde_json::from_str(text).map_err(|e| malformed(format!("bad server message: {e}")))
}

/// Writes any message as one JSON text frame.
pub fn encode<T: Serialize>(msg: &T) -> String {
    // Our message types contain only strings, numbers, maps with string
    // keys and JSON values, which always serialise, and serde_json writes
    // only UTF-8.
    let mut out = Vec::with_capacity(ENCODE_CAPACITY);
    let written = serde_json::to_writer(&mut out, msg)
        .map_err(|e| e.to_string())
        .and_then(|()| String::from_utf8(out).map_err(|e| e.to_string()));
    written.unwrap_or_else(|e| {
        format!(r#"{{"type":"error","code":"server/internal","message":"encoding failed: {e}"}}"#)
    })
}

/// Bytes reserved for an encoded message: most fit, so encoding one costs
/// one allocation instead of serde_json's doubling from 128 bytes (an
/// update with a legal-move list is about a kilobyte; the reallocations
/// were 2% of the server's CPU).
const ENCODE_CAPACITY: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_types_and_malformed_frames_get_distinct_codes() {
        let code = |t: &str| decode_client(t).err().map(|e| e.code);
        assert_eq!(
            code(r#"{"type":"fly"}"#),
            Some(ErrorCode::RequestUnknownType)
        );
        assert_eq!(code("{not json"), Some(ErrorCode::RequestMalformed));
        assert_eq!(code("[1,2]"), Some(ErrorCode::RequestMalformed));
        assert_eq!(code(r#"{"type":7}"#), Some(ErrorCode::RequestMalformed));
        assert_eq!(
            code(r#"{"type":"join"}"#),
            Some(ErrorCode::RequestMalformed)
        );
        // A version out of range is negotiated (see `version`), but one
        // no JSON parser reads as a number is not JSON.
        assert_eq!(
            code(r#"{"type":"hello","version":1e999}"#),
            Some(ErrorCode::RequestMalformed)
        );
        assert_eq!(
            code(r#"{"type":"create_room","game":"nimrod","clock":{"per_move":{"ms":-5}}}"#),
            Some(ErrorCode::RoomBadOptions)
        );
        assert_eq!(
            code(r#"{"type":"create_room","game":"nimrod","clock":{"per_move":{"ms":1e30}}}"#),
            Some(ErrorCode::RoomBadOptions)
        );
        assert_eq!(
            code(r#"{"type":"create_room","game":"nimrod","seats":300}"#),
            Some(ErrorCode::RoomBadOptions)
        );
        assert_eq!(
            code(r#"{"type":"create_room","game":"nimrod","clock":"fast"}"#),
            Some(ErrorCode::RequestMalformed)
        );
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(code(&deep), Some(ErrorCode::RequestMalformed));
        assert!(decode_client(r#"{"type":"hello","version":1}"#).is_ok());
    }
}
