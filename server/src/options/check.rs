//! The rules between flags, checked on the merged settings: a flag that
//! needs another may get them from different layers (`cluster` in the
//! file, `PARLOR_LEASE_MS` in the environment), so clap, which sees only
//! the command line and the environment, cannot check them.

use super::keys;
use super::source::Named;
use super::{Effective, OptionsError};
use crate::shard::MAX_SHARDS;

/// A rule between two keys, by their long names.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// The first, when given, needs the second given too.
    Needs(&'static str, &'static str),
    /// The two cannot both be given.
    Excludes(&'static str, &'static str),
}

/// Every rule between the run flags.
const RULES: [Rule; 7] = [
    Rule::Excludes("cluster", "db"),
    Rule::Excludes("cluster", "sync"),
    Rule::Needs("lease-ms", "cluster"),
    Rule::Needs("bus", "cluster"),
    Rule::Needs("advertise", "cluster"),
    Rule::Needs("tls-cert", "tls-key"),
    Rule::Needs("tls-key", "tls-cert"),
];

/// Checks the merged settings against the rules and ranges.
pub fn check(effective: &Effective) -> Result<(), OptionsError> {
    let named = |name: &str| {
        keys::find(effective.keys(), name).map(|key| Named {
            key,
            source: effective.source(name),
        })
    };
    for rule in RULES {
        let (a, b) = match rule {
            Rule::Needs(a, b) | Rule::Excludes(a, b) => (named(a), named(b)),
        };
        let (Some(a), Some(b)) = (a, b) else {
            return Err(OptionsError::Rule(format!(
                "internal: the rule {rule:?} names a key that is not a flag"
            )));
        };
        match rule {
            Rule::Needs(..) if a.source.given() && !b.source.given() => {
                return Err(OptionsError::Rule(format!(
                    "{a} needs `{}` (--{0} or {}) too",
                    b.key.name, b.key.env
                )));
            }
            Rule::Excludes(..) if a.source.given() && b.source.given() => {
                return Err(OptionsError::Rule(format!("{a} cannot be used with {b}")));
            }
            _ => {}
        }
    }
    if let Some(shards) = effective.options.shards {
        if shards == 0 || usize::from(shards) > MAX_SHARDS {
            let key = named("shards");
            return Err(OptionsError::Rule(format!(
                "{}: {shards} is not from 1 to {MAX_SHARDS}",
                key.map_or_else(|| "shards".to_owned(), |k| k.to_string())
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

    use super::super::layers::tests::{with_file, without_file};
    use super::*;

    #[test]
    fn a_cluster_flag_needs_the_cluster_whichever_layer_gives_it() {
        let err = without_file(&["--lease-ms", "900"]).unwrap_err();
        assert!(
            err.to_string().contains("--lease-ms needs `cluster`"),
            "{err}"
        );
        let err = with_file(&[], "bus = \"redis://127.0.0.1:6379\"\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("`bus` (in the configuration file) needs `cluster`"),
            "{err}"
        );
        // The cluster from the file, the lease from the command line.
        let ok = with_file(&["--lease-ms", "900"], "cluster = \"postgres://a@b/c\"\n").unwrap();
        assert_eq!(ok.options.lease_ms, 900);
    }

    #[test]
    fn the_cluster_excludes_a_sqlite_file_from_any_layer() {
        let err = with_file(&["--db", "x.db"], "cluster = \"postgres://a@b/c\"\n").unwrap_err();
        let said = err.to_string();
        assert!(said.contains("cannot be used with --db"), "{said}");
        assert!(without_file(&["--cluster", "postgres://a@b/c", "--sync", "full"]).is_err());
        assert!(without_file(&["--cluster", "postgres://a@b/c"]).is_ok());
    }

    #[test]
    fn a_certificate_needs_its_key_and_the_key_its_certificate() {
        assert!(without_file(&["--tls-cert", "c.pem"]).is_err());
        assert!(with_file(&[], "tls-key = \"k.pem\"\n").is_err());
        assert!(with_file(&["--tls-cert", "c.pem"], "tls-key = \"k.pem\"\n").is_ok());
    }

    #[test]
    fn shards_are_bounded_whichever_layer_gives_them() {
        for text in ["shards = 0\n", &format!("shards = {}\n", MAX_SHARDS + 1)] {
            let err = with_file(&[], text).unwrap_err();
            assert!(err.to_string().contains("is not from 1 to"), "{err}");
        }
        assert!(without_file(&["--shards", "0"]).is_err());
        assert!(with_file(&[], &format!("shards = {MAX_SHARDS}\n")).is_ok());
    }
}
