//! Passwords: hashed with Argon2id, checked against the hash, and never
//! kept, logged or shown in clear (their `Debug` says only that one is
//! there).

use std::fmt;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

/// The shortest password: shorter ones fall to guessing even through the
/// login limits.
pub const PASSWORD_MIN_CHARS: usize = 8;

/// The longest password in bytes: longer adds no strength, and bounds the
/// work one login asks of the hash.
pub const PASSWORD_MAX_BYTES: usize = 1024;

/// Argon2id's memory in KiB, passes and lanes: OWASP's recommended
/// minimum (19 MiB, 2 passes, 1 lane), written out so that a new version of
/// the crate cannot change what new hashes cost. Hashes keep their own
/// parameters, so old ones still verify if these are raised.
const ARGON2_MEMORY_KIB: u32 = 19 * 1024;
const ARGON2_PASSES: u32 = 2;
const ARGON2_LANES: u32 = 1;

/// Why a password cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    /// Fewer than [`PASSWORD_MIN_CHARS`] characters.
    #[error("a password has at least {PASSWORD_MIN_CHARS} characters")]
    TooShort,
    /// More than [`PASSWORD_MAX_BYTES`] bytes.
    #[error("a password has at most {PASSWORD_MAX_BYTES} bytes")]
    TooLong,
    /// The hash function failed (it does not for valid parameters).
    #[error("the password could not be hashed")]
    Hashing,
}

/// A password as a client sent it. It is only ever hashed or checked.
#[derive(Clone)]
pub struct Password(String);

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(..)")
    }
}

impl Password {
    /// Wraps what a client sent; [`Password::hash`] checks its length.
    pub fn new(s: String) -> Self {
        Password(s)
    }

    /// Whether the password may be set on an account.
    pub fn check_strength(&self) -> Result<(), PasswordError> {
        if self.0.len() > PASSWORD_MAX_BYTES {
            return Err(PasswordError::TooLong);
        }
        if self.0.chars().count() < PASSWORD_MIN_CHARS {
            return Err(PasswordError::TooShort);
        }
        Ok(())
    }

    /// The password's Argon2id hash with a fresh random salt, for a new
    /// account. CPU-heavy (tens of milliseconds): call it off the shards.
    pub fn hash(&self) -> Result<PasswordHash, PasswordError> {
        self.check_strength()?;
        let salt = SaltString::generate(&mut OsRng);
        hasher()?
            .hash_password(self.0.as_bytes(), &salt)
            .map(|h| PasswordHash(h.to_string()))
            .map_err(|_| PasswordError::Hashing)
    }

    /// Whether the password is the one `hash` was made from. The hash's
    /// own comparison is constant-time. A password too long to have been
    /// set fails without being hashed.
    pub fn verify(&self, hash: &PasswordHash) -> bool {
        if self.0.len() > PASSWORD_MAX_BYTES {
            return false;
        }
        let Ok(parsed) = argon2::PasswordHash::new(&hash.0) else {
            return false;
        };
        Argon2::default()
            .verify_password(self.0.as_bytes(), &parsed)
            .is_ok()
    }
}

/// A stored password hash in the PHC string format
/// (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`).
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(String);

impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordHash(..)")
    }
}

impl PasswordHash {
    /// A hash read back from the store.
    pub fn from_stored(s: String) -> Self {
        PasswordHash(s)
    }

    /// The PHC string, to store.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hasher() -> Result<Argon2<'static>, PasswordError> {
    let params = Params::new(ARGON2_MEMORY_KIB, ARGON2_PASSES, ARGON2_LANES, None)
        .map_err(|_| PasswordError::Hashing)?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_never_holds_it() {
        let pw = Password::new("correct horse".into());
        let hash = pw.hash().expect("a valid password hashes");
        assert!(hash.as_str().starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(!hash.as_str().contains("correct horse"));
        assert!(pw.verify(&hash));
        assert!(!Password::new("correct horsE".into()).verify(&hash));
        assert!(!Password::new("x".repeat(PASSWORD_MAX_BYTES + 1)).verify(&hash));
        // Two hashes of one password differ: each has its own salt.
        assert_ne!(pw.hash().ok().map(|h| h.0), Some(hash.0.clone()));
        assert!(!Password::new("correct horse".into()).verify(&PasswordHash("junk".into())));
    }

    #[test]
    fn the_minimum_counts_characters_not_bytes() {
        // Seven characters in fourteen bytes are too few...
        assert_eq!(
            Password::new("é".repeat(7)).check_strength(),
            Err(PasswordError::TooShort)
        );
        // ...and eight in eight bytes, or in sixteen, are enough.
        assert_eq!(Password::new("a".repeat(8)).check_strength(), Ok(()));
        assert_eq!(Password::new("é".repeat(8)).check_strength(), Ok(()));
    }

    #[test]
    fn weak_or_huge_passwords_are_refused_and_debug_shows_nothing() {
        assert_eq!(
            Password::new("seven77".into()).hash().err(),
            Some(PasswordError::TooShort)
        );
        assert_eq!(
            Password::new("y".repeat(PASSWORD_MAX_BYTES + 1))
                .hash()
                .err(),
            Some(PasswordError::TooLong)
        );
        let shown = format!("{:?}", Password::new("hunter22hunter".into()));
        assert!(!shown.contains("hunter"), "{shown}");
    }
}
