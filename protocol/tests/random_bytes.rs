//! Whatever arrives, the decoder answers without panicking, and every
//! refusal carries one of the two stable decoding codes. (The coverage-
//! guided fuzz targets in `fuzz/` push much further; this runs in
//! milliseconds with every `cargo test`.)

use parlor_protocol::{decode_client, encode, ErrorCode, CLIENT_TYPES};
use proptest::prelude::*;

fn check(text: &str) -> Result<(), TestCaseError> {
    match decode_client(text) {
        Ok(msg) => {
            let again = decode_client(&encode(&msg));
            prop_assert_eq!(again.ok(), Some(msg));
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
