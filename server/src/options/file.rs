//! The configuration file: read, checked to be TOML holding only the
//! flags' keys, before its values are layered in.

use std::path::{Path, PathBuf};

use super::keys::{self, Key};
use super::OptionsError;

/// Largest configuration file read: a complete one is a few kilobytes, so
/// anything near this is a wrong path (a database, a log), refused before
/// it is read into memory.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A configuration file that is TOML with known keys only.
#[derive(Debug)]
pub struct ConfigFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its text, handed to figment's TOML provider.
    pub text: String,
    /// Its top-level keys.
    pub table: toml::Table,
}

impl ConfigFile {
    /// Reads and checks `path`.
    pub fn read(path: &Path, keys: &[Key]) -> Result<ConfigFile, OptionsError> {
        let read = |error| OptionsError::Read {
            path: path.to_owned(),
            error,
        };
        let size = std::fs::metadata(path).map_err(read)?.len();
        if size > MAX_FILE_BYTES {
            return Err(read(std::io::Error::other(format!(
                "{size} bytes, more than a configuration file's {MAX_FILE_BYTES}"
            ))));
        }
        let text = std::fs::read_to_string(path).map_err(read)?;
        ConfigFile::parse(path, text, keys)
    }

    /// Checks `text`, the file at `path`.
    pub fn parse(path: &Path, text: String, keys: &[Key]) -> Result<ConfigFile, OptionsError> {
        let table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| OptionsError::Syntax {
                    path: path.to_owned(),
                    message: e.to_string().trim_end().to_owned(),
                })?;
        let file = ConfigFile {
            path: path.to_owned(),
            text,
            table,
        };
        if let Some(unknown) = file
            .table
            .keys()
            .find(|name| keys::find(keys, name).is_none())
        {
            // The flag's own spelling, if the key is one with underscores
            // or capitals (as in an environment variable's name).
            let spelt = unknown.to_lowercase().replace('_', "-");
            let spelt = spelt.strip_prefix("parlor-").unwrap_or(&spelt);
            return Err(OptionsError::UnknownKey {
                path: file.path.clone(),
                key: unknown.clone(),
                line: file.line_of(unknown),
                suggestion: keys::find(keys, spelt).map(|k| k.name.clone()),
            });
        }
        Ok(file)
    }

    /// Whether the file sets the key `name`.
    pub fn sets(&self, name: &str) -> bool {
        self.table.contains_key(name)
    }

    /// The line (from 1) where `key` is set, for messages: the first line
    /// that starts with the key, bare or quoted, and an `=`.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        let quoted = format!("\"{key}\"");
        self.text
            .lines()
            .position(|line| {
                let line = line.trim_start();
                [key, quoted.as_str()].iter().any(|k| {
                    line.strip_prefix(k)
                        .is_some_and(|rest| rest.trim_start().starts_with('='))
                })
            })
            .map(|i| i + 1)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn parse(text: &str) -> Result<ConfigFile, OptionsError> {
        ConfigFile::parse(Path::new("parlor.toml"), text.to_owned(), &keys::keys())
    }

    #[test]
    fn an_unknown_key_is_refused_with_its_line() {
        let err = parse("bind = \"127.0.0.1:1\"\n\nlisten = 3\n").unwrap_err();
        let said = err.to_string();
        assert!(
            matches!(&err, OptionsError::UnknownKey { key, line: Some(3), suggestion: None, .. } if key == "listen"),
            "{err:?}"
        );
        assert!(
            said.contains("parlor.toml: line 3: unknown key `listen`"),
            "{said}"
        );
    }

    #[test]
    fn a_key_with_underscores_is_refused_naming_the_flags_spelling() {
        for (written, meant) in [("lease_ms", "lease-ms"), ("PARLOR_MAX_ROOMS", "max-rooms")] {
            let err = parse(&format!("{written} = 3\n")).unwrap_err();
            let said = err.to_string();
            assert!(
                said.contains(&format!("unknown key `{written}`"))
                    && said.contains(&format!("did you mean `{meant}`")),
                "{said}"
            );
        }
    }

    #[test]
    fn a_table_is_an_unknown_key() {
        let err = parse("[server]\nbind = \"127.0.0.1:1\"\n").unwrap_err();
        assert!(
            matches!(&err, OptionsError::UnknownKey { key, .. } if key == "server"),
            "{err:?}"
        );
    }

    #[test]
    fn broken_toml_is_refused_with_its_line() {
        let err = parse("bind = \"127.0.0.1:1\"\nmax-rooms = = 3\n").unwrap_err();
        let said = err.to_string();
        assert!(matches!(err, OptionsError::Syntax { .. }), "{err:?}");
        assert!(said.contains("line 2"), "{said}");
    }

    #[test]
    fn a_missing_file_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent.toml");
        let err = ConfigFile::read(&path, &keys::keys()).unwrap_err();
        assert!(matches!(err, OptionsError::Read { .. }), "{err:?}");
        assert!(err.to_string().contains("absent.toml"), "{err}");
    }

    #[test]
    fn a_huge_file_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.toml");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let err = ConfigFile::read(&path, &keys::keys()).unwrap_err();
        assert!(err.to_string().contains("more than"), "{err}");
    }

    #[test]
    fn the_line_of_a_key_is_found_bare_or_quoted() {
        let file = parse("# bind = \"x\"\nmax-rooms = 1\n  \"bind\" = \"127.0.0.1:1\"\n").unwrap();
        assert_eq!(file.line_of("bind"), Some(3));
        assert_eq!(file.line_of("max-rooms"), Some(2));
        assert_eq!(file.line_of("db"), None);
        assert!(file.sets("bind") && !file.sets("db"));
    }
}
