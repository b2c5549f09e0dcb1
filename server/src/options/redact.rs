//! Secrets hidden from printed settings: the password of a database or
//! Redis URL, given in its user part, in a query parameter, or in a
//! PostgreSQL `key=value` connection string.

/// What a hidden secret is printed as.
pub const HIDDEN: &str = "***";

/// Query parameter or connection-string keys whose values are secret
/// (matched as parts of the lower-cased name: `password`, `sslpassword`,
/// `auth_token`...).
const SECRET_NAMES: [&str; 4] = ["password", "secret", "token", "passphrase"];

fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| name.contains(s))
}

/// `value` (a URL or a PostgreSQL connection string) with every password
/// in it replaced by [`HIDDEN`]; whether anything was.
pub fn redact(value: &str) -> (String, bool) {
    match value.split_once("://") {
        Some((scheme, rest)) => {
            let (rest, hid_user) = redact_user(rest);
            let (rest, hid_query) = redact_query(&rest);
            (format!("{scheme}://{rest}"), hid_user || hid_query)
        }
        None => redact_key_values(value),
    }
}

/// `user:password@host...` → `user:***@host...`. The user part ends at
/// the last `@` before the query (a password may hold `/`, `@` or `:`
/// when not percent-encoded, and is hidden whole all the same).
fn redact_user(rest: &str) -> (String, bool) {
    let head_end = rest.find(['?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..head_end].rfind('@') else {
        return (rest.to_owned(), false);
    };
    let userinfo = &rest[..at];
    match userinfo.split_once(':') {
        Some((user, _password)) => (format!("{user}:{HIDDEN}{}", &rest[at..]), true),
        None => (rest.to_owned(), false),
    }
}

/// `?user=a&password=b` → `?user=a&password=***`.
fn redact_query(rest: &str) -> (String, bool) {
    let Some(q) = rest.find('?') else {
        return (rest.to_owned(), false);
    };
    let (query, fragment) = match rest[q + 1..].split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (&rest[q + 1..], None),
    };
    let mut hid = false;
    let params: Vec<String> = query
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((name, _)) if secret_name(name) => {
                hid = true;
                format!("{name}={HIDDEN}")
            }
            _ => param.to_owned(),
        })
        .collect();
    let mut out = format!("{}?{}", &rest[..q], params.join("&"));
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    (out, hid)
}

/// `host=db password='a b' user=x` → `host=db password=*** user=x`: a
/// value runs to the next space, or, quoted, to its closing quote
/// (a backslash escapes the next character).
fn redact_key_values(value: &str) -> (String, bool) {
    let mut out = String::with_capacity(value.len());
    let mut hid = false;
    let mut rest = value;
    while !rest.is_empty() {
        let spaces = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..spaces]);
        rest = &rest[spaces..];
        let Some(eq) = rest.find('=') else {
            out.push_str(rest);
            break;
        };
        let name = rest[..eq].trim_end();
        let after = rest[eq + 1..].trim_start();
        let value_len = quoted_or_bare_len(after);
        let consumed = rest.len() - after.len() + value_len;
        if secret_name(name) && !name.contains(char::is_whitespace) {
            out.push_str(&rest[..rest.len() - after.len()]);
            out.push_str(HIDDEN);
            hid = true;
        } else {
            out.push_str(&rest[..consumed]);
        }
        rest = &rest[consumed..];
    }
    (out, hid)
}

/// The length of the value at the start of `s`: a quoted one up to its
/// closing quote, a bare one up to the next space.
fn quoted_or_bare_len(s: &str) -> usize {
    let mut chars = s.char_indices();
    match chars.next() {
        Some((_, '\'')) => {
            let mut escaped = false;
            for (i, c) in chars {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '\'' => return i + 1,
                    _ => {}
                }
            }
            s.len()
        }
        _ => s.find(char::is_whitespace).unwrap_or(s.len()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// `value` redacted, checked to no longer hold `secret`.
    fn hidden(value: &str, secret: &str) -> String {
        let (out, hid) = redact(value);
        assert!(hid, "{value}: nothing hidden");
        assert!(!out.contains(secret), "{value} → {out}");
        out
    }

    #[test]
    fn a_urls_password_is_hidden_and_the_rest_kept() {
        assert_eq!(
            hidden(
                "postgres://parlor:hunter2@db.example:5432/parlor",
                "hunter2"
            ),
            "postgres://parlor:***@db.example:5432/parlor"
        );
        assert_eq!(
            hidden("redis://:s3cret@127.0.0.1:6379", "s3cret"),
            "redis://:***@127.0.0.1:6379"
        );
        assert_eq!(
            hidden("rediss://user:p%40ss@cache:6380/0", "p%40ss"),
            "rediss://user:***@cache:6380/0"
        );
    }

    #[test]
    fn a_password_with_unencoded_delimiters_is_hidden_whole() {
        let out = hidden("postgres://u:pa/ss@w:rd@db/parlor", "pa/ss");
        assert_eq!(out, "postgres://u:***@db/parlor");
    }

    #[test]
    fn a_password_in_the_query_is_hidden() {
        assert_eq!(
            hidden(
                "postgres://parlor@db/parlor?sslmode=require&password=hunter2#x",
                "hunter2"
            ),
            "postgres://parlor@db/parlor?sslmode=require&password=***#x"
        );
        hidden("postgres://db/p?user=a&sslpassword=k3y", "k3y");
    }

    #[test]
    fn a_connection_strings_password_is_hidden_quoted_or_not() {
        assert_eq!(
            hidden(
                "host=db user=parlor password=hunter2 dbname=parlor",
                "hunter2"
            ),
            "host=db user=parlor password=*** dbname=parlor"
        );
        assert_eq!(
            hidden("host=db password = 'two words\\' here' user=x", "two words"),
            "host=db password = *** user=x"
        );
    }

    #[test]
    fn a_url_without_a_password_is_unchanged() {
        for url in [
            "postgres://parlor@db/parlor",
            "redis://127.0.0.1:6379",
            "ws://parlor.example:7878",
            "postgres://db/parlor?options=-c%20search_path%3Dx",
            "host=db user=parlor",
        ] {
            assert_eq!(redact(url), (url.to_owned(), false));
        }
    }
}
