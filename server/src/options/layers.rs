//! The four layers merged: flag > environment > file > default.
//!
//! Clap reads the flags and their environment variables and fills in the
//! defaults, telling apart which is which (`ArgMatches::value_source`).
//! figment then stacks clap's values, the file, and clap's given values
//! (flag or environment) again on top, so that the file wins over a
//! default only.

use std::collections::BTreeMap;
use std::path::Path;

use clap::parser::ValueSource;
use clap::ArgMatches;
use figment::providers::{Format, Serialized, Toml};
use figment::value::{Dict, Value};
use figment::Figment;

use super::file::ConfigFile;
use super::keys::{self, Key};
use super::source::Source;
use super::{check, OptionsError, RunOptions};

/// The settings the server runs with, and where each came from.
#[derive(Clone, Debug)]
pub struct Effective {
    /// The merged values.
    pub options: RunOptions,
    /// The layer of each key, by its long name.
    sources: BTreeMap<String, Source>,
    /// The keys, in `--help`'s order.
    keys: Vec<Key>,
}

impl Effective {
    /// The layer `name`'s value came from (`Default` for a name that is
    /// not a key).
    pub fn source(&self, name: &str) -> Source {
        self.sources.get(name).copied().unwrap_or(Source::Default)
    }

    /// The keys, in `--help`'s order.
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }
}

/// Merges clap's `parsed` options (from `matches`) with the file at
/// `file`, if any, and checks the result.
pub fn load(
    parsed: RunOptions,
    matches: &ArgMatches,
    file: Option<&Path>,
) -> Result<Effective, OptionsError> {
    let keys = keys::keys();
    let file = file.map(|p| ConfigFile::read(p, &keys)).transpose()?;
    merge(parsed, matches, file.as_ref(), keys)
}

/// [`load`] with the file already read.
pub fn merge(
    parsed: RunOptions,
    matches: &ArgMatches,
    file: Option<&ConfigFile>,
    keys: Vec<Key>,
) -> Result<Effective, OptionsError> {
    let sources: BTreeMap<String, Source> = keys
        .iter()
        .map(|key| {
            let source = match matches.value_source(&key.id) {
                Some(ValueSource::CommandLine) => Source::Flag,
                Some(ValueSource::EnvVariable) => Source::Environment,
                _ if file.is_some_and(|f| f.sets(&key.name)) => Source::File,
                _ => Source::Default,
            };
            (key.name.clone(), source)
        })
        .collect();
    // Clap's values are valid (they were parsed), so they serialize; a
    // path that is not UTF-8 cannot be a TOML string and is refused here.
    let unserializable = |e: figment::Error| OptionsError::Rule(format!("{e}"));
    let given: Dict = match Value::serialize(&parsed).map_err(unserializable)? {
        Value::Dict(_, all) => all
            .into_iter()
            .filter(|(name, _)| sources.get(name).is_some_and(|s| *s > Source::File))
            .collect(),
        _ => Dict::new(),
    };
    let mut figment = Figment::from(Serialized::defaults(&parsed));
    if let Some(file) = file {
        figment = figment.merge(Toml::string(&file.text));
    }
    figment = figment.merge(Serialized::defaults(given));
    let options: RunOptions = figment.extract().map_err(|e| bad_value(e, file))?;
    let effective = Effective {
        options,
        sources,
        keys,
    };
    check::check(&effective)?;
    Ok(effective)
}

/// The first of figment's errors, as the file's key and line. Only the
/// file's values can be wrong: clap checked the others.
fn bad_value(error: figment::Error, file: Option<&ConfigFile>) -> OptionsError {
    let key = error.path.join(".");
    let message = error.kind.to_string();
    match file {
        Some(file) => OptionsError::BadValue {
            path: file.path.clone(),
            line: error.path.first().and_then(|k| file.line_of(k)),
            key,
            message,
        },
        None => OptionsError::Rule(format!("`{key}`: {message}")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

    use std::path::PathBuf;

    use clap::{Args, Command, FromArgMatches};

    use super::*;

    /// The run flags as clap parses `argv`, with the environment left
    /// out (tests run side by side in one process; the environment layer
    /// is tested on the real binary, in the end-to-end tests).
    pub(crate) fn parse(argv: &[&str]) -> (RunOptions, ArgMatches) {
        let command = RunOptions::augment_args(Command::new("parlor-server"))
            .mut_args(|a| a.env(None::<&str>));
        let matches = command
            .try_get_matches_from(std::iter::once("parlor-server").chain(argv.iter().copied()))
            .unwrap();
        (RunOptions::from_arg_matches(&matches).unwrap(), matches)
    }

    /// `argv` layered over the file `text`.
    pub(crate) fn with_file(argv: &[&str], text: &str) -> Result<Effective, OptionsError> {
        let keys = keys::keys();
        let file = ConfigFile::parse(Path::new("parlor.toml"), text.to_owned(), &keys)?;
        let (parsed, matches) = parse(argv);
        merge(parsed, &matches, Some(&file), keys)
    }

    /// `argv` alone.
    pub(crate) fn without_file(argv: &[&str]) -> Result<Effective, OptionsError> {
        let (parsed, matches) = parse(argv);
        merge(parsed, &matches, None, keys::keys())
    }

    #[test]
    fn the_file_wins_over_the_defaults_and_the_flags_over_the_file() {
        let file = "max-rooms = 11\nmax-connections = 22\nno-ladder = true\n\
                    behind-proxy = [\"10.0.0.0/8\", \"127.0.0.1\"]\nsync = \"full\"\n";
        let got = with_file(&["--max-connections", "33"], file).unwrap();
        let defaults = without_file(&[]).unwrap();
        // The file over the default.
        assert_eq!(got.options.max_rooms, 11);
        assert_eq!(got.source("max-rooms"), Source::File);
        assert!(got.options.no_ladder);
        assert_eq!(got.options.sync, crate::store::Sync::Full);
        assert_eq!(got.options.behind_proxy.len(), 2);
        // The flag over the file.
        assert_eq!(got.options.max_connections, 33);
        assert_eq!(got.source("max-connections"), Source::Flag);
        // The default where nothing else is given.
        assert_eq!(got.options.bind, defaults.options.bind);
        assert_eq!(got.options.rated_pair_cap, crate::limits::RATED_PAIR_CAP);
        assert_eq!(got.source("bind"), Source::Default);
    }

    #[test]
    fn a_flag_list_replaces_the_files_list() {
        let got = with_file(
            &["--allow-origin", "https://c.example"],
            "allow-origin = [\"https://a.example\", \"https://b.example\"]\n",
        )
        .unwrap();
        assert_eq!(got.options.allow_origin, ["https://c.example"]);
    }

    #[test]
    fn a_flag_given_its_default_value_still_wins_over_the_file() {
        let default = crate::limits::MAX_ROOMS.to_string();
        let got = with_file(&["--max-rooms", &default], "max-rooms = 5\n").unwrap();
        assert_eq!(got.options.max_rooms, crate::limits::MAX_ROOMS);
    }

    #[test]
    fn a_bad_value_in_the_file_names_its_key_and_line() {
        for (text, key, line) in [
            ("max-rooms = 1\nbind = \"nowhere\"\n", "bind", 2),
            ("\n\nmax-rooms = \"many\"\n", "max-rooms", 3),
            ("sync = \"sometimes\"\n", "sync", 1),
            ("behind-proxy = [\"10.0.0.0/99\"]\n", "behind-proxy", 1),
            ("lease-ms = -5\n", "lease-ms", 1),
        ] {
            let err = with_file(&[], text).unwrap_err();
            let said = err.to_string();
            assert!(
                matches!(&err, OptionsError::BadValue { key: k, line: Some(l), .. }
                    if k.starts_with(key) && *l == line),
                "{text}: {err:?}"
            );
            assert!(
                said.starts_with(&format!("parlor.toml: line {line}: `{key}")),
                "{said}"
            );
        }
    }

    #[test]
    fn paths_and_numbers_read_from_the_file_are_used_as_written() {
        let got = with_file(
            &[],
            "db = \"/var/lib/parlor/parlor.db\"\nconnects-per-address = 2\nshards = 3\n",
        )
        .unwrap();
        assert_eq!(got.options.db, PathBuf::from("/var/lib/parlor/parlor.db"));
        assert!((got.options.connects_per_address - 2.0).abs() < f64::EPSILON);
        assert_eq!(got.options.shards, Some(3));
    }
}
