//! How `parlor-server` is told to run: its flags, each also an
//! environment variable (`PARLOR_BIND`) and a key of a TOML configuration
//! file (`bind = "0.0.0.0:7878"`, `--config FILE`), merged with the
//! precedence flag > environment > file > default, checked, and printed
//! back by `--print-config`.
//!
//! - [`flags`]: the run flags ([`RunOptions`]), clap's and serde's at once.
//! - [`keys`]: each flag's names (key, variable), read from its definition.
//! - [`source`]: the four layers.
//! - [`mod@file`]: reading and checking the file.
//! - [`layers`]: merging the layers (figment over clap's values).
//! - [`check`]: the rules between flags, on the merged values.
//! - [`mod@print`]: the TOML `--print-config` prints, with [`redact`]'s
//!   passwords hidden.
//!
//! The commands (`backup`, `accounts`, `export`, `import`) read neither
//! the file nor these variables: they take their own flags.

pub mod check;
pub mod error;
pub mod file;
pub mod flags;
pub mod keys;
pub mod layers;
pub mod print;
pub mod redact;
pub mod source;

pub use error::OptionsError;
pub use flags::RunOptions;
pub use layers::{load, Effective};
pub use print::render;
pub use source::Source;
