//! Account names: 3-20 letters, digits, `_` and `-`, unique without regard
//! to case, and never one that could pass for the server, its staff or one
//! of its built-in bots.

use std::fmt;

use parlor_games::GameKind;
use serde::Serialize;

/// The shortest name: two characters are too easy to mistake and squat.
pub const NAME_MIN_CHARS: usize = 3;

/// The longest name: it must fit a seat's label on a 360 px screen.
pub const NAME_MAX_CHARS: usize = 20;

/// Names that would pass for the server or its people, whatever their case.
/// The built-in bots' names (each strategy, alone and as `GAME-STRATEGY`,
/// the names their ladder accounts use) are reserved as well.
const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "anonymous",
    "api",
    "bot",
    "guest",
    "mod",
    "moderator",
    "null",
    "parlor",
    "root",
    "server",
    "staff",
    "support",
    "system",
];

/// Why a name cannot be an account's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Shorter than [`NAME_MIN_CHARS`] or longer than [`NAME_MAX_CHARS`].
    #[error("a name has {NAME_MIN_CHARS} to {NAME_MAX_CHARS} characters; this one has {0}")]
    Length(usize),
    /// A character other than a letter, a digit, `_` or `-`.
    #[error("a name holds only letters, digits, _ and -; {0:?} is none of these")]
    Character(char),
    /// One of the reserved names.
    #[error("{0:?} is reserved")]
    Reserved(String),
}

/// A valid account name, as its owner spelled it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct AccountName(String);

impl AccountName {
    /// `s` as an account name, or why it cannot be one.
    pub fn new(s: &str) -> Result<Self, NameError> {
        let chars = s.chars().count();
        if !(NAME_MIN_CHARS..=NAME_MAX_CHARS).contains(&chars) {
            return Err(NameError::Length(chars));
        }
        // ASCII only: non-ASCII letters invite look-alike names.
        if let Some(c) = s
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        {
            return Err(NameError::Character(c));
        }
        let key = s.to_ascii_lowercase();
        if is_reserved(&key) {
            return Err(NameError::Reserved(s.to_owned()));
        }
        Ok(AccountName(s.to_owned()))
    }

    /// The built-in bot account of `game`'s strategy `strategy`:
    /// `GAME-STRATEGY`, a reserved name only the server gives.
    pub fn builtin(game: GameKind, strategy: &str) -> Self {
        AccountName(format!("{}-{strategy}", game.name()))
    }

    /// The name as its owner spelled it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key that makes names unique: `Alice` and `alice` are one name.
    pub fn key(&self) -> String {
        name_key(&self.0)
    }
}

/// The key of an account name as stored (names are unique whatever the
/// case): what registries of accounts are keyed by. The protocol's rule,
/// so that the store, beneath the accounts, keys seats the same way.
pub use parlor_protocol::account_key as name_key;

impl fmt::Display for AccountName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Checks a guest's name against the characters account names may hold:
/// ASCII letters, digits, `_` and `-`, so that no guest passes for
/// someone else with look-alike letters (Cyrillic, fullwidth), invisible
/// ones (zero-width, bidirectional overrides) or combining marks.
pub fn check_guest_name(name: &str) -> Result<(), NameError> {
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        Some(c) => Err(NameError::Character(c)),
        None => Ok(()),
    }
}

/// Whether the lower-cased `key` is reserved for the server.
fn is_reserved(key: &str) -> bool {
    if RESERVED.contains(&key) {
        return true;
    }
    GameKind::ALL.iter().any(|game| {
        game.strategies().iter().any(|s| {
            key == *s
                || key
                    .strip_prefix(game.name())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|rest| rest == *s)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn good_names_keep_their_spelling_and_share_a_key_across_case() {
        let a = AccountName::new("Alice_99").ok();
        let b = AccountName::new("alice_99").ok();
        assert_eq!(a.as_ref().map(AccountName::as_str), Some("Alice_99"));
        assert_eq!(a.map(|a| a.key()), b.map(|b| b.key()));
    }

    #[test]
    fn guest_names_hold_only_what_account_names_may() {
        assert_eq!(check_guest_name("al-9_x"), Ok(()));
        for bad in [
            "al\u{200b}ice",
            "\u{202e}ecila",
            "\u{0430}lice",
            "\u{ff41}lice",
            "alice\u{0301}",
            "al ice",
        ] {
            assert!(check_guest_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn bad_names_say_why() {
        assert_eq!(AccountName::new("al"), Err(NameError::Length(2)));
        assert_eq!(
            AccountName::new("a".repeat(21).as_str()),
            Err(NameError::Length(21))
        );
        assert_eq!(AccountName::new("al ice"), Err(NameError::Character(' ')));
        assert_eq!(AccountName::new("zoë"), Err(NameError::Character('ë')));
        for reserved in [
            "ADMIN",
            "Server",
            "optimal",
            "nimrod-optimal",
            "Cribbage-Expert",
        ] {
            assert!(
                matches!(AccountName::new(reserved), Err(NameError::Reserved(_))),
                "{reserved}"
            );
        }
        // A game's name alone, or with another game's bot, is free.
        assert!(AccountName::new("nimrod").is_ok());
        assert!(AccountName::new("nimrod-expert").is_ok());
    }

    proptest! {
        #[test]
        fn every_accepted_name_obeys_the_rules(s in "\\PC{0,24}") {
            if let Ok(n) = AccountName::new(&s) {
                let len = n.as_str().chars().count();
                prop_assert!((NAME_MIN_CHARS..=NAME_MAX_CHARS).contains(&len));
                prop_assert!(n.as_str().bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'));
                prop_assert!(!is_reserved(&n.key()));
            }
        }

        #[test]
        fn names_of_the_allowed_alphabet_are_accepted_unless_reserved(s in "[A-Za-z0-9_-]{3,20}") {
            let ok = AccountName::new(&s).is_ok();
            prop_assert_eq!(ok, !is_reserved(&s.to_ascii_lowercase()));
        }
    }
}
