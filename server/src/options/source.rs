//! Where a setting's value came from: the four layers, lowest first.

use std::fmt;

use super::keys::Key;

/// The layer a value came from. The order is the precedence: a value
/// from a later layer wins over one from an earlier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// The flag's built-in default.
    Default,
    /// The configuration file (`--config`).
    File,
    /// The flag's environment variable (`PARLOR_...`).
    Environment,
    /// The command line.
    Flag,
}

impl Source {
    /// Whether the value was given in some layer rather than defaulted.
    pub fn given(self) -> bool {
        self != Source::Default
    }
}

/// `key` as the layer that gave it names it, for messages: `--lease-ms`,
/// `PARLOR_LEASE_MS`, `lease-ms` (in the file) or `lease-ms` (default).
#[derive(Debug)]
pub struct Named<'k> {
    /// The key.
    pub key: &'k Key,
    /// Its layer.
    pub source: Source,
}

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source {
            Source::Flag => write!(f, "--{}", self.key.name),
            Source::Environment => write!(f, "{}", self.key.env),
            Source::File => write!(f, "`{}` (in the configuration file)", self.key.name),
            Source::Default => write!(f, "`{}` (default)", self.key.name),
        }
    }
}
