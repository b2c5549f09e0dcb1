//! Reading the version a client names in `hello`: any JSON integer, so
//! that one the server cannot represent is still negotiated as the
//! protocol says (below the oldest: refused; above the newest: answered
//! with the newest) rather than refused as malformed.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};

use crate::{ClientMsg, MIN_PROTOCOL_VERSION};

/// Digits of the longest integer a JSON parser is sure to read: `u64`'s
/// range has 20. A longer run of digits may be beyond what a 64-bit float
/// holds (past 309 digits), which serde_json refuses as out of range.
const PLAIN_INTEGER_DIGITS: usize = 20;

/// What a longer integer is read as: a float of the same sign that the
/// version reader saturates the same way (to 0 or to `u32::MAX`).
const LONG_POSITIVE: &str = "1e300";
const LONG_NEGATIVE: &str = "-1e300";

// A negative version is read as 0, which must then be below the oldest.
const _: () = assert!(MIN_PROTOCOL_VERSION >= 1);

/// Reads an integer of any size or sign as a `u32` that negotiates the
/// same way: below 0 as 0 (refused like any version below the oldest),
/// beyond `u32::MAX` as `u32::MAX` (above the newest, like the number
/// itself). Integral floating-point forms (`1.0`, `1e30`, and integers
/// too large for 64 bits, which JSON parsers read as floats) count as
/// integers; a fraction names no version and is malformed.
pub(crate) fn saturating<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    d.deserialize_any(Saturating)
}

/// `text` read as a `hello` whose version is an integer too long for
/// the JSON parser (say 401 digits): the protocol welcomes any integer,
/// so such a run of digits is read as a float of its sign, which
/// negotiates the same way. `None` when `text` holds no such integer or
/// is not then a `hello` (other messages keep their own limits).
pub(crate) fn hello_with_a_long_version(text: &str) -> Option<ClientMsg> {
    let shortened = shorten_long_integers(text)?;
    match serde_json::from_str(&shortened) {
        Ok(hello @ ClientMsg::Hello { .. }) => Some(hello),
        _ => None,
    }
}

/// `text` with each integer (outside strings) of more than
/// [`PLAIN_INTEGER_DIGITS`] digits replaced by [`LONG_POSITIVE`] or
/// [`LONG_NEGATIVE`]; `None` when there is none.
fn shorten_long_integers(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut in_string = false;
    let mut escaped = false;
    let mut number = String::new();
    let flush = |number: &mut String, out: &mut String, changed: &mut bool| {
        let digits = number.strip_prefix('-').unwrap_or(number);
        if digits.len() > PLAIN_INTEGER_DIGITS && digits.bytes().all(|b| b.is_ascii_digit()) {
            let long = if number.starts_with('-') {
                LONG_NEGATIVE
            } else {
                LONG_POSITIVE
            };
            out.push_str(long);
            *changed = true;
        } else {
            out.push_str(number);
        }
        number.clear();
    };
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        let continues = !number.is_empty() && matches!(c, '+' | '.' | 'e' | 'E');
        if c.is_ascii_digit() || c == '-' || continues {
            number.push(c);
            continue;
        }
        flush(&mut number, &mut out, &mut changed);
        if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    flush(&mut number, &mut out, &mut changed);
    changed.then_some(out)
}

/// The schema of what [`saturating`] reads: any integer (an integral
/// float such as `1.0` or `1e30` is one in JSON Schema too).
pub(crate) fn any_integer(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The protocol version the client speaks: any integer is read.",
        "type": "integer",
    })
}

struct Saturating;

impl Visitor<'_> for Saturating {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer protocol version")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
        Ok(u32::try_from(v).unwrap_or(u32::MAX))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u32, E> {
        Ok(u32::try_from(v.max(0)).unwrap_or(u32::MAX))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u32, E> {
        if !v.is_finite() || v.fract() != 0.0 {
            return Err(E::invalid_value(de::Unexpected::Float(v), &self));
        }
        // `as` saturates: below 0 gives 0, beyond the range u32::MAX.
        Ok(v as u32)
    }
}

#[cfg(test)]
mod tests {
    use crate::{decode_client, negotiate, ClientMsg, ErrorCode, PROTOCOL_VERSION};

    fn version(text: &str) -> Option<u32> {
        match decode_client(&format!(r#"{{"type":"hello","version":{text}}}"#)) {
            Ok(ClientMsg::Hello { version, .. }) => Some(version),
            _ => None,
        }
    }

    #[test]
    fn numbers_out_of_range_negotiate_as_the_protocol_says() {
        for below in ["0", "-1", "-9223372036854775809", "-1e30", "-0.0"] {
            let v = version(below);
            assert!(v.is_some(), "{below} not read");
            assert_eq!(v.and_then(negotiate), None, "{below}");
        }
        for above in [
            "2",
            "4294967296",
            "18446744073709551615",
            "18446744073709551616",
            "1000000000000000000000000000000",
            "1e30",
        ] {
            let v = version(above);
            assert_eq!(v.and_then(negotiate), Some(PROTOCOL_VERSION), "{above}");
        }
        assert_eq!(version("1.0").and_then(negotiate), Some(1));
    }

    #[test]
    fn fractions_and_non_numbers_are_malformed() {
        for bad in ["1.5", "\"1\"", "null", "[1]"] {
            let got = decode_client(&format!(r#"{{"type":"hello","version":{bad}}}"#));
            assert_eq!(
                got.err().map(|e| e.code),
                Some(ErrorCode::RequestMalformed),
                "{bad}"
            );
        }
    }
}
