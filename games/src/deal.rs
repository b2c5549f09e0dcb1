//! Provably fair deals: where a keyed match's chance stream comes from,
//! and how anyone can check it afterwards.
//!
//! The games crate draws no randomness of its own: the server draws the
//! secret bytes and hands them in.
//!
//! # The algorithm
//!
//! 1. **Secret.** Before the match the server draws a server seed of
//!    [`SERVER_SEED_BYTES`] bytes and a salt of [`SALT_BYTES`] bytes
//!    ([`DealSecret`]).
//! 2. **Commitment.** It publishes `commitment = hex(SHA-256(server_seed ‖
//!    salt))`, lowercase, before anyone has chosen a client seed. Having
//!    published it, the server can no longer change the secret unnoticed.
//! 3. **Client seeds.** Each seat may add a client seed of 1 to
//!    [`MAX_CLIENT_SEED_CHARS`] characters, each an ASCII letter, digit,
//!    `-` or `_` ([`check_client_seed`]). Because the deal depends on
//!    them, the server cannot have picked a secret that favours anyone.
//! 4. **Key.** `key = SHA-256(server_seed ‖ salt ‖ s_0 ‖ s_1 ‖ ... )` where,
//!    for each seat in seat order, `s_i` is one byte holding the length in
//!    bytes of that seat's client seed (0 when it has none) followed by the
//!    seed's bytes ([`deal_key`]).
//! 5. **Stream.** The match's chance is [`GameRng::from_key`](crate::GameRng::from_key)`(key)`: the
//!    ChaCha20 keystream of `key` (RFC 7539, nonce 0, block counter from
//!    0) read as consecutive little-endian 64-bit words.
//! 6. **Draws.** On that stream: `below(n)` draws a word x and returns
//!    x mod n if x < n·⌊2^64/n⌋, otherwise draws again; `shuffle` is
//!    Fisher–Yates from the end (for i = len−1 down to 1, swap items i and
//!    `below(i+1)`). Each game's setup says which draws it makes, in order
//!    (e.g. Rummikub shuffles its 52 blocks once and deals them in
//!    order). See [`crate::rng`] for the exact definitions.
//! 7. **Reveal.** Once the match is over the server publishes the server
//!    seed and salt; anyone can check the commitment and recompute every
//!    deal.
//!
//! # Checking a match in Python 3
//!
//! ```python
//! import hashlib, struct
//! from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
//!
//! def commitment(seed: bytes, salt: bytes) -> str:
//!     return hashlib.sha256(seed + salt).hexdigest()
//!
//! def deal_key(seed: bytes, salt: bytes, client_seeds) -> bytes:
//!     data = seed + salt
//!     for s in client_seeds:            # seat order; None: no seed
//!         b = (s or "").encode()
//!         data += bytes([len(b)]) + b
//!     return hashlib.sha256(data).digest()
//!
//! class Stream:
//!     def __init__(self, key: bytes):
//!         chacha = algorithms.ChaCha20(key, bytes(16))   # counter 0, nonce 0
//!         self.enc = Cipher(chacha, mode=None).encryptor()
//!     def word(self) -> int:
//!         return struct.unpack("<Q", self.enc.update(bytes(8)))[0]
//!     def below(self, n: int) -> int:
//!         zone = n * (2**64 // n)
//!         while True:
//!             x = self.word()
//!             if x < zone:
//!                 return x % n
//!     def shuffle(self, items: list) -> None:
//!         for i in range(len(items) - 1, 0, -1):
//!             j = self.below(i + 1)
//!             items[i], items[j] = items[j], items[i]
//! ```
//!
//! `Stream(deal_key(seed, salt, seeds))` then replays the match's draws:
//! for a two-seat Rummikub match, shuffle the 52 blocks sorted by number
//! then colour name (black, blue, red, yellow) and deal racks from the
//! front, seat 0 first.

use std::fmt;

use sha2::{Digest, Sha256};

/// Bytes in a server seed: 256 bits, as many as the ChaCha20 key it
/// becomes part of, so guessing it is hopeless.
pub const SERVER_SEED_BYTES: usize = 32;

/// Bytes in the salt: 128 bits, so that a commitment cannot be matched
/// against a table of hashes precomputed for likely seeds.
pub const SALT_BYTES: usize = 16;

/// The longest client seed, in characters: ample for any nonce a person
/// or bot picks, and short enough that every length fits the one length
/// byte of the key derivation and a message stays small.
pub const MAX_CLIENT_SEED_CHARS: usize = 64;

/// The server's secret for one match. Its `Debug` shows the commitment,
/// never the secret, so that logging it cannot leak a deal.
#[derive(Clone, PartialEq, Eq)]
pub struct DealSecret {
    /// The server seed.
    pub server_seed: [u8; SERVER_SEED_BYTES],
    /// The salt.
    pub salt: [u8; SALT_BYTES],
}

/// Which part of a [`DealSecret`] a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretPart {
    /// The server seed.
    ServerSeed,
    /// The salt.
    Salt,
}

impl fmt::Display for SecretPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SecretPart::ServerSeed => "server seed",
            SecretPart::Salt => "salt",
        })
    }
}

/// Why a secret or a client seed is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// A hex string that is not hex.
    #[error("the {part} is not hexadecimal: {reason}")]
    NotHex {
        /// Which part.
        part: SecretPart,
        /// What the decoder found.
        reason: String,
    },
    /// A part of the wrong length.
    #[error("the {part} must be {expected} bytes ({} hex digits), not {got} bytes", expected * 2)]
    Length {
        /// Which part.
        part: SecretPart,
        /// Bytes it must have.
        expected: usize,
        /// Bytes it has.
        got: usize,
    },
    /// An empty client seed.
    #[error("a client seed has 1 to {MAX_CLIENT_SEED_CHARS} characters; leave it out rather than send an empty one")]
    EmptyClientSeed,
    /// A client seed that is too long.
    #[error("a client seed has at most {MAX_CLIENT_SEED_CHARS} characters, not {chars}")]
    LongClientSeed {
        /// Its length in characters.
        chars: usize,
    },
    /// A client seed with a character outside the allowed set.
    #[error("a client seed may hold only ASCII letters, digits, '-' and '_', not {found:?} (character {at})")]
    ClientSeedCharacter {
        /// The first character refused.
        found: char,
        /// Its position, counting from 1.
        at: usize,
    },
}

impl DealSecret {
    /// A secret from bytes the caller drew.
    pub fn new(server_seed: [u8; SERVER_SEED_BYTES], salt: [u8; SALT_BYTES]) -> Self {
        DealSecret { server_seed, salt }
    }

    /// A secret from its hex forms (as revealed or stored), either case.
    pub fn from_hex(seed_hex: &str, salt_hex: &str) -> Result<Self, DealError> {
        Ok(DealSecret {
            server_seed: decode(SecretPart::ServerSeed, seed_hex)?,
            salt: decode(SecretPart::Salt, salt_hex)?,
        })
    }

    /// The server seed as lowercase hex.
    pub fn seed_hex(&self) -> String {
        hex::encode(self.server_seed)
    }

    /// The salt as lowercase hex.
    pub fn salt_hex(&self) -> String {
        hex::encode(self.salt)
    }

    /// The public commitment: lowercase hex of SHA-256(server seed ‖ salt).
    pub fn commitment(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.server_seed);
        h.update(self.salt);
        hex::encode(h.finalize())
    }
}

impl fmt::Debug for DealSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DealSecret")
            .field("commitment", &self.commitment())
            .finish_non_exhaustive()
    }
}

fn decode<const N: usize>(part: SecretPart, text: &str) -> Result<[u8; N], DealError> {
    let bytes = hex::decode(text).map_err(|e| DealError::NotHex {
        part,
        reason: e.to_string(),
    })?;
    let got = bytes.len();
    <[u8; N]>::try_from(bytes).map_err(|_| DealError::Length {
        part,
        expected: N,
        got,
    })
}

/// Checks a client seed: 1 to [`MAX_CLIENT_SEED_CHARS`] characters, each
/// an ASCII letter, digit, `-` or `_`.
pub fn check_client_seed(s: &str) -> Result<(), DealError> {
    if s.is_empty() {
        return Err(DealError::EmptyClientSeed);
    }
    let chars = s.chars().count();
    if chars > MAX_CLIENT_SEED_CHARS {
        return Err(DealError::LongClientSeed { chars });
    }
    match s
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        Some((i, found)) => Err(DealError::ClientSeedCharacter { found, at: i + 1 }),
        None => Ok(()),
    }
}

/// The most bytes of one client seed the key takes in: what its one
/// length byte can count. Checked seeds are far shorter
/// ([`MAX_CLIENT_SEED_CHARS`]); the cut only keeps the encoding
/// unambiguous for a caller that skipped [`check_client_seed`].
const MAX_HASHED_SEED_BYTES: usize = u8::MAX as usize;

/// The match's ChaCha20 key: SHA-256(server seed ‖ salt ‖ for each seat
/// in order, one length byte then the client seed's UTF-8 bytes, length 0
/// when the seat has none). Every seat adds at least its length byte, so
/// the key is never the public commitment.
///
/// Client seeds should have passed [`check_client_seed`]; a longer one is
/// cut to its first 255 bytes here, which keeps the length byte honest.
pub fn deal_key(secret: &DealSecret, client_seeds: &[Option<&str>]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(secret.server_seed);
    h.update(secret.salt);
    for seed in client_seeds {
        let bytes = seed.map_or(&[][..], str::as_bytes);
        let bytes = &bytes[..bytes.len().min(MAX_HASHED_SEED_BYTES)];
        // At most 255 after the cut above.
        h.update([bytes.len() as u8]);
        h.update(bytes);
    }
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Server seed 00 01 .. 1f, salt a0 a1 .. af.
    fn secret() -> DealSecret {
        let mut seed = [0; SERVER_SEED_BYTES];
        for (i, b) in seed.iter_mut().enumerate() {
            *b = i as u8;
        }
        let mut salt = [0; SALT_BYTES];
        for (i, b) in salt.iter_mut().enumerate() {
            *b = 0xa0 + i as u8;
        }
        DealSecret::new(seed, salt)
    }

    // Known answers for `secret()`, computed once on this machine with
    // Python's hashlib through the snippet in the module doc:
    //   seed = bytes(range(32)); salt = bytes(range(0xa0, 0xb0))
    //   commitment(seed, salt); deal_key(seed, salt, [...]).hex()
    const COMMITMENT: &str = "8c38eba5f798f9c94910d96a045f1abddd58dff24f48e6b0c607f6babb55481d";
    /// Client seeds ["alice", None, "Bob_42-x"].
    const KEY_THREE: &str = "8ad60354d83771c9c8b5e514b21e8fb895c2d4be021e79c6e78ed928d1e6d51c";
    /// Client seeds [None, None].
    const KEY_NONE_TWO: &str = "8ab794d4ac60c37941ff1e591e79547597b9c16a158a5bfa8b51fbf9c47474e4";
    /// Client seeds [None, "alice", "Bob_42-x"]: the same seeds, other seats.
    const KEY_SHIFTED: &str = "b5b09560782fb637a6d58ace3684c4e5a5fd8898373128e4a08bffcfe9c6ef6e";

    #[test]
    fn commitment_and_keys_match_python_hashlib() {
        let s = secret();
        assert_eq!(s.commitment(), COMMITMENT);
        assert_eq!(
            hex::encode(deal_key(&s, &[Some("alice"), None, Some("Bob_42-x")])),
            KEY_THREE
        );
        assert_eq!(hex::encode(deal_key(&s, &[None, None])), KEY_NONE_TWO);
        assert_eq!(
            hex::encode(deal_key(&s, &[None, Some("alice"), Some("Bob_42-x")])),
            KEY_SHIFTED
        );
    }

    #[test]
    fn hex_forms_round_trip_and_bad_ones_say_why() {
        let s = secret();
        assert_eq!(s.seed_hex(), hex::encode((0..32u8).collect::<Vec<_>>()));
        assert_eq!(s.salt_hex(), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
        assert_eq!(
            DealSecret::from_hex(&s.seed_hex(), &s.salt_hex()),
            Ok(s.clone())
        );
        assert_eq!(
            DealSecret::from_hex(&s.seed_hex().to_uppercase(), &s.salt_hex()),
            Ok(s.clone())
        );
        assert!(matches!(
            DealSecret::from_hex("zz", &s.salt_hex()),
            Err(DealError::NotHex {
                part: SecretPart::ServerSeed,
                ..
            })
        ));
        assert_eq!(
            DealSecret::from_hex(&s.seed_hex(), "abcd"),
            Err(DealError::Length {
                part: SecretPart::Salt,
                expected: 16,
                got: 2
            })
        );
        let msg = DealSecret::from_hex("00", &s.salt_hex())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            msg.contains("server seed") && msg.contains("64 hex digits"),
            "{msg}"
        );
        let debug = format!("{s:?}");
        assert!(
            debug.contains(COMMITMENT) && !debug.contains(&s.seed_hex()),
            "{debug}"
        );
    }

    #[test]
    fn client_seeds_are_short_plain_words() {
        assert_eq!(check_client_seed("alice"), Ok(()));
        assert_eq!(check_client_seed("A-z_09"), Ok(()));
        assert_eq!(check_client_seed(&"x".repeat(64)), Ok(()));
        assert_eq!(check_client_seed(""), Err(DealError::EmptyClientSeed));
        assert_eq!(
            check_client_seed(&"x".repeat(65)),
            Err(DealError::LongClientSeed { chars: 65 })
        );
        assert_eq!(
            check_client_seed("ab cd"),
            Err(DealError::ClientSeedCharacter { found: ' ', at: 3 })
        );
        assert_eq!(
            check_client_seed("é"),
            Err(DealError::ClientSeedCharacter { found: 'é', at: 1 })
        );
        let msg = check_client_seed("a/b")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(msg.contains("'/'") && msg.contains("letters"), "{msg}");
    }

    #[test]
    fn over_long_seeds_are_cut_not_ambiguous() {
        let s = secret();
        let long = "y".repeat(300);
        let cut = "y".repeat(255);
        assert_eq!(
            deal_key(&s, &[Some(&long), None]),
            deal_key(&s, &[Some(&cut), None])
        );
        assert_ne!(
            deal_key(&s, &[Some(&cut), None]),
            deal_key(&s, &[Some(&"y".repeat(254)), Some("y")])
        );
    }
}
