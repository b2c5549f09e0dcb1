//! The keys of the configuration file, read from the flags' own
//! definitions: one name for the flag, the key and the variable.

use clap::{Args, Command};

use super::RunOptions;

/// One run flag, under each of its names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// Clap's id (the field's name, `lease_ms`): what `ArgMatches` knows.
    pub id: String,
    /// The long name (`lease-ms`): the flag without its dashes and the
    /// file's key.
    pub name: String,
    /// The environment variable (`PARLOR_LEASE_MS`).
    pub env: String,
    /// The flag's help, for the printed file's comments.
    pub help: String,
    /// Whether the value is a URL, which may hold a password: printed
    /// with it hidden.
    pub url: bool,
}

/// Every run flag, in the order `--help` lists them.
pub fn keys() -> Vec<Key> {
    RunOptions::augment_args(Command::new("parlor-server"))
        .get_arguments()
        .filter_map(|arg| {
            let name = arg.get_long()?.to_owned();
            Some(Key {
                id: arg.get_id().to_string(),
                env: arg
                    .get_env()
                    .map(|e| e.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                help: arg.get_help().map(|h| h.to_string()).unwrap_or_default(),
                url: arg
                    .get_value_names()
                    .is_some_and(|names| names.iter().any(|n| n.as_str() == "URL")),
                name,
            })
        })
        .collect()
}

/// The key spelt `name` in a file, if any.
pub fn find<'k>(keys: &'k [Key], name: &str) -> Option<&'k Key> {
    keys.iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn every_flag_has_its_variable_and_its_key_named_after_it() {
        let keys = keys();
        assert!(keys.len() > 20, "{keys:?}");
        for key in &keys {
            assert_eq!(key.name, key.id.replace('_', "-"), "{key:?}");
            assert_eq!(
                key.env,
                format!("PARLOR_{}", key.name.to_uppercase().replace('-', "_")),
                "{key:?}"
            );
            assert!(!key.help.is_empty(), "{key:?} has no help");
        }
    }

    #[test]
    fn the_serialized_options_use_the_flags_names() {
        // Every key serde writes is a flag's long name (the Option fields
        // are set so that none is left out).
        let (mut options, _) = super::super::layers::tests::parse(&[
            "--cluster",
            "postgres://a@b/c",
            "--bus",
            "redis://b",
            "--advertise",
            "ws://a:1",
            "--metrics-bind",
            "127.0.0.1:1",
            "--port-file",
            "p",
            "--shards",
            "2",
            "--tls-cert",
            "c",
            "--tls-key",
            "k",
        ]);
        options.behind_proxy = vec!["10.0.0.0/8".parse().unwrap()];
        let table = toml::Table::try_from(&options).unwrap();
        let mut written: Vec<&str> = table.keys().map(String::as_str).collect();
        let mut names: Vec<String> = keys().into_iter().map(|k| k.name).collect();
        written.sort_unstable();
        names.sort_unstable();
        assert_eq!(written, names);
    }

    #[test]
    fn the_url_flags_are_the_ones_that_may_hold_a_password() {
        let urls: Vec<String> = keys()
            .into_iter()
            .filter(|k| k.url)
            .map(|k| k.name)
            .collect();
        assert_eq!(urls, ["cluster", "bus", "advertise"]);
    }
}
