//! Why the settings could not be read: each names the file, the key and,
//! where it has one, the line.

use std::fmt;
use std::path::PathBuf;

/// Why the server's settings could not be put together. The server then
/// exits with [`OptionsError::EXIT_CODE`] without starting.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    /// The configuration file could not be read.
    #[error("cannot read the configuration file {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file is not TOML (the parser's message has the line and
    /// column).
    #[error("{}: not valid TOML: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The TOML parser's message.
        message: String,
    },
    /// A key the file may not hold: not a flag's long name.
    #[error("{}{}: unknown key `{key}`{}", path.display(), Line(*line), hint(suggestion.as_deref()))]
    UnknownKey {
        /// The file.
        path: PathBuf,
        /// The key as written.
        key: String,
        /// Where it is written, if found.
        line: Option<usize>,
        /// The key it probably means (`lease-ms` for `lease_ms`).
        suggestion: Option<String>,
    },
    /// A value of the file that its key does not take.
    #[error("{}{}: `{key}`: {message}", path.display(), Line(*line))]
    BadValue {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// Where it is written, if found.
        line: Option<usize>,
        /// What is wrong with it.
        message: String,
    },
    /// The merged settings break a rule between flags, or a range.
    #[error("{0}")]
    Rule(String),
}

impl OptionsError {
    /// The exit status for any of these: a usage error, as clap's own.
    pub const EXIT_CODE: u8 = 2;
}

/// `: line N`, or nothing when the line is not known.
struct Line(Option<usize>);

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, ": line {n}"),
            None => Ok(()),
        }
    }
}

/// What an unknown key should have been.
fn hint(suggestion: Option<&str>) -> String {
    match suggestion {
        Some(s) => format!(" (did you mean `{s}`? keys are the flags' long names, with dashes)"),
        None => {
            " (keys are the long names of `parlor-server --help`'s flags, e.g. `bind`, `lease-ms`)"
                .to_owned()
        }
    }
}
