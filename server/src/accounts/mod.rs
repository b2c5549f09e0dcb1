//! Players with names: what an account is and how its secrets are kept.
//!
//! - [`name`]: the rules of an account name (length, characters, reserved
//!   names) and the case-insensitive key that makes names unique.
//! - [`password`]: passwords, hashed with Argon2id and never kept, logged
//!   or shown in clear.
//! - [`token`]: API and browser-session tokens: 256 random bits shown once,
//!   kept only as their SHA-256, compared in constant time.
//! - [`kind`]: human or bot, fixed when the account is made.
//! - [`standing`]: its role (player, moderator, admin) and what
//!   moderation holds against it (closed, marked, muted, play-banned).
//! - [`store`]: where accounts, tokens and sessions are kept.
//! - [`service`]: registration, logins, tokens and sessions, with their
//!   rules (rate limits, passwords only over TLS or loopback, Argon2 off
//!   the shards).
//! - [`attempts`]: counting attempts per key in fixed windows.
//! - [`login`]: name and password checked under the failure limits.
//! - [`device`]: device cookies, which keep strangers' failed logins
//!   from locking an owner out.
//! - [`ending`]: credentials that end (revoked, logged out, password
//!   changed, account closed) and the connections they take along.
//! - [`error`]: why the service refused, one variant per reason (the
//!   API maps each to an HTTP status and an error code).

pub mod attempts;
pub mod device;
pub mod ending;
pub mod error;
pub mod kind;
pub mod login;
pub mod name;
pub mod password;
pub mod record;
pub mod service;
pub mod standing;
pub mod store;
pub mod token;

pub use ending::{EndConnections, NoConnections};
pub use error::{AccountError, Throttled};
pub use kind::AccountKind;
pub use login::SignedIn;
pub use name::{check_guest_name, name_key, AccountName, NameError};
pub use password::{Password, PasswordError, PasswordHash};
pub use service::{AccountSettings, Accounts, Credential};
pub use standing::{Mark, Role, Standing};
pub use token::{Token, TokenHash};
