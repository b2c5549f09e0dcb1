//! Tokens: API tokens for bots and scripts, and browser-session tokens.
//! Each is 256 random bits, shown to its owner once; the server keeps only
//! its SHA-256 and compares hashes in constant time, so neither the
//! database nor a timing can give a token away.

use std::fmt;

use rand::rngs::OsRng;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// What every token starts with: tells people and secret scanners what
/// leaked, and tells a token from a password at a glance.
pub const TOKEN_PREFIX: &str = "parlor_";

/// Random bytes in a token: 256 bits, beyond guessing.
const TOKEN_BYTES: usize = 32;

/// A token in clear: exists only between its creation and the answer that
/// shows it, and while a request that presented it is checked.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// A new random token.
    pub fn generate() -> Self {
        let mut bytes = [0u8; TOKEN_BYTES];
        OsRng.fill_bytes(&mut bytes);
        Token(format!("{TOKEN_PREFIX}{}", hex::encode(bytes)))
    }

    /// What a client presented, if it has a token's form (anything else is
    /// refused without touching the store).
    pub fn parse(s: &str) -> Option<Self> {
        let hex_part = s.strip_prefix(TOKEN_PREFIX)?;
        let ok = hex_part.len() == TOKEN_BYTES * 2
            && hex_part
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        ok.then(|| Token(s.to_owned()))
    }

    /// The token in clear, for the one answer that shows it to its owner.
    pub fn reveal(&self) -> &str {
        &self.0
    }

    /// The SHA-256 the store keeps and looks tokens up by.
    pub fn hash(&self) -> TokenHash {
        TokenHash(Sha256::digest(self.0.as_bytes()).into())
    }
}

/// A token's SHA-256.
#[derive(Clone, Copy)]
pub struct TokenHash([u8; 32]);

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenHash(..)")
    }
}

impl TokenHash {
    /// The hash as stored (64 lower-case hex digits).
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// A stored hash read back, if it is one.
    pub fn from_hex(s: &str) -> Option<Self> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).ok()?;
        Some(TokenHash(out))
    }

    /// Whether two hashes are equal, in time that does not depend on where
    /// they differ.
    pub fn matches(&self, other: &TokenHash) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_and_its_hash_is_all_that_is_kept() {
        let t = Token::generate();
        assert_eq!(t.reveal().len(), TOKEN_PREFIX.len() + 64);
        let parsed = Token::parse(t.reveal()).expect("a generated token parses");
        let h = parsed.hash();
        assert!(h.matches(&t.hash()));
        let stored = h.to_hex();
        assert!(!stored.contains(&t.reveal()[TOKEN_PREFIX.len()..]));
        assert!(TokenHash::from_hex(&stored).is_some_and(|x| x.matches(&h)));
        assert!(!Token::generate().hash().matches(&h));
        assert!(!format!("{t:?} {h:?}").contains(&t.reveal()[TOKEN_PREFIX.len()..]));
    }

    #[test]
    fn malformed_tokens_are_not_tokens() {
        let good = Token::generate();
        let body = &good.reveal()[TOKEN_PREFIX.len()..];
        for bad in [
            String::new(),
            body.to_owned(),
            format!("{TOKEN_PREFIX}{}", &body[1..]),
            format!("{TOKEN_PREFIX}{}", body.to_uppercase()),
            format!("{TOKEN_PREFIX}{body}0"),
            format!("{TOKEN_PREFIX}{}g", &body[1..]),
        ] {
            assert!(Token::parse(&bad).is_none(), "{bad}");
        }
    }
}
