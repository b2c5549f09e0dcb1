//! The protocol decoder on arbitrary input: it must never panic, and
//! every refusal must carry one of the two decoding codes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parlor_protocol::{decode_client, encode, ErrorCode};
use serde_json::Value;

/// Equal, except that floats may differ in their last bit: serde_json
/// (without its `float_roundtrip` feature) does not always parse the
/// shortest printing of a float back to the same float. This target found
/// that; it only touches free-form JSON (`move`, `options`, `input`),
/// which the server re-encodes from typed values before storing.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x == y || ((x - y) / x.abs().max(y.abs())).abs() < 1e-15
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match decode_client(&text) {
        Ok(msg) => {
            // What decodes re-encodes to something that decodes the same.
            let again = decode_client(&encode(&msg)).expect("a re-encoded message decodes");
            let a = serde_json::to_value(&msg).expect("encodes");
            let b = serde_json::to_value(&again).expect("encodes");
            assert!(same(&a, &b), "{a} != {b}");
        }
        Err(f) => assert!(matches!(
            f.code,
            ErrorCode::RequestMalformed | ErrorCode::RequestUnknownType
        )),
    }
});
