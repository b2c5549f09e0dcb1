//! Whatever arrives, the decoder answers without panicking, and every
//! refusal carries one of the two stable decoding codes. (The coverage-
//! guided fuzz targets in `fuzz/` push much further; this runs in
//! milliseconds with every `cargo test`.)

use parlor_protocol::{decode_client, encode, ErrorCode, CLIENT_TYPES};
use proptest::prelude::*;

/// Equal, except that floats may differ in their last bit (serde_json
/// without `float_roundtrip` does not always parse a printed float back
/// to the very same float; the fuzz target found it).
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
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

fn check(text: &str) -> Result<(), TestCaseError> {
    match decode_client(text) {
        Ok(msg) => {
            let again = decode_client(&encode(&msg));
            prop_assert!(again.is_ok(), "{:?}", again);
            let a = serde_json::to_value(&msg).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let b =
                serde_json::to_value(again.ok()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(same(&a, &b), "{} != {}", a, b);
        }
        Err(f) => prop_assert!(
            matches!(
                f.code,
                ErrorCode::RequestMalformed | ErrorCode::RequestUnknownType
            ),
            "{:?}",
            f.code
        ),
    }
    Ok(())
}

#[test]
fn a_huge_integer_read_as_a_float_round_trips_within_a_bit() {
    // The input the fuzz target reduced its finding to.
    let text = r#"{"type":"play","room":"a","seat":1,"seq":2,"move":[555555555575555555555]}"#;
    assert!(check(text).is_ok());
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        ".{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("type".to_owned()),
                    Just("room".to_owned()),
                    Just("seat".to_owned()),
                    Just("seq".to_owned()),
                    Just("move".to_owned()),
                    Just("version".to_owned()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn random_json_never_panics(v in json_value()) {
        check(&v.to_string())?;
    }

    #[test]
    fn random_fields_under_a_known_type_never_panic(
        t in prop::sample::select(CLIENT_TYPES),
        v in json_value(),
    ) {
        let mut obj = match v {
            serde_json::Value::Object(m) => m,
            other => {
                let mut m = serde_json::Map::new();
                m.insert("x".into(), other);
                m
            }
        };
        obj.insert("type".into(), serde_json::Value::from(t));
        check(&serde_json::Value::Object(obj).to_string())?;
    }
}
