//! `hello` welcomes any JSON integer as its version, however many digits
//! it has: one past a 64-bit float's range (the parser's own limit) is
//! negotiated like any other, never refused as malformed.

use parlor_protocol::{decode_client, negotiate, ClientMsg, ErrorCode, PROTOCOL_VERSION};

fn hello(version: &str) -> String {
    format!(r#"{{"type":"hello","version":{version},"name":"x1234567890123456789012"}}"#)
}

fn negotiated(text: &str) -> Result<Option<u32>, ErrorCode> {
    match decode_client(text) {
        Ok(ClientMsg::Hello { version, .. }) => Ok(negotiate(version)),
        Ok(_) => Ok(None),
        Err(e) => Err(e.code),
    }
}

#[test]
fn a_401_digit_version_is_negotiated() {
    let long = format!("1{}", "0".repeat(400));
    assert_eq!(negotiated(&hello(&long)), Ok(Some(PROTOCOL_VERSION)));
    let negative = format!("-{long}");
    assert_eq!(negotiated(&hello(&negative)), Ok(None));
    // Spaces around it, and a name holding digits, change nothing.
    let spaced = format!(r#"{{ "version" : {long} , "type": "hello", "name": "{long}" }}"#);
    assert_eq!(negotiated(&spaced), Ok(Some(PROTOCOL_VERSION)));
}

#[test]
fn long_numbers_elsewhere_and_fractions_stay_malformed() {
    let long = format!("1{}", "0".repeat(400));
    for text in [
        hello(&format!("{long}.5")),
        hello(&format!("{long}e5")),
        format!(r#"{{"type":"ping","id":{long}}}"#),
        format!(r#"{{"type":"hello","version":"{long}"}}"#),
    ] {
        assert_eq!(
            negotiated(&text),
            Err(ErrorCode::RequestMalformed),
            "{text}"
        );
    }
}
