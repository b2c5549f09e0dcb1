//! The event's seed: committed to when the event is created, revealed
//! when it ends, and the only source of chance in its pairings and deals.
//!
//! Every draw is a SHA-256 of the seed and a label, so that anyone holding
//! the revealed seed re-derives it in a line of any language:
//! `SHA-256(seed ‖ label ‖ 0x00 ‖ part₁ ‖ 0x00 ‖ part₂ …)`, the seed as its
//! 32 raw bytes and labels and parts as UTF-8 text (numbers in decimal).

use std::fmt;

use parlor_games::deal::{SALT_BYTES, SERVER_SEED_BYTES};
use parlor_games::DealSecret;
use sha2::{Digest, Sha256};

/// Bytes in an event seed: as many as a match's server seed, for the same
/// reason (guessing it must be hopeless while the event runs).
pub const EVENT_SEED_BYTES: usize = 32;

/// Why a revealed seed is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeedError {
    /// Not hex, or not 32 bytes.
    #[error("an event seed is {digits} hex digits, not {0:?}", digits = EVENT_SEED_BYTES * 2)]
    Malformed(String),
}

/// An event's secret seed. Its `Debug` shows the commitment only.
#[derive(Clone, PartialEq, Eq)]
pub struct EventSeed([u8; EVENT_SEED_BYTES]);

/// A 32-byte draw, compared as big-endian bytes where an order is needed.
pub type Draw = [u8; 32];

impl EventSeed {
    /// A seed from bytes the caller drew.
    pub fn new(bytes: [u8; EVENT_SEED_BYTES]) -> Self {
        EventSeed(bytes)
    }

    /// A seed from its hex form, either case.
    pub fn from_hex(text: &str) -> Result<Self, SeedError> {
        let bytes = hex::decode(text).map_err(|_| SeedError::Malformed(text.to_owned()))?;
        let bytes: [u8; EVENT_SEED_BYTES] = bytes
            .try_into()
            .map_err(|_| SeedError::Malformed(text.to_owned()))?;
        Ok(EventSeed(bytes))
    }

    /// The seed as lowercase hex (revealed when the event ends).
    pub fn hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The public commitment: lowercase hex of SHA-256(seed).
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    /// The draw for `label` and `parts` (see the module's formula).
    pub fn draw(&self, label: &str, parts: &[&str]) -> Draw {
        let mut h = Sha256::new();
        h.update(self.0);
        h.update(label.as_bytes());
        for part in parts {
            h.update([0u8]);
            h.update(part.as_bytes());
        }
        h.finalize().into()
    }

    /// Where `name` stands among equals in `round` (lower first): the
    /// order of players whom nothing else separates.
    pub fn lot(&self, round: u32, name: &str) -> Draw {
        self.draw("lot", &[&round.to_string(), name])
    }

    /// The deal of a tournament game: the `deal`-th deal of board `board`
    /// (its pairing's place in the round, from 0) in round `round` (from
    /// 1). Every game of a duplicate set plays the same deal. The server
    /// seed is the draw labelled `deal-seed`, the salt the first 16 bytes
    /// of the draw labelled `deal-salt`, both over the three numbers.
    pub fn deal(&self, round: u32, board: u32, deal: u32) -> DealSecret {
        let parts = [round.to_string(), board.to_string(), deal.to_string()];
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        let seed = self.draw("deal-seed", &parts);
        let salt_draw = self.draw("deal-salt", &parts);
        let mut server_seed = [0u8; SERVER_SEED_BYTES];
        server_seed.copy_from_slice(&seed[..SERVER_SEED_BYTES]);
        let mut salt = [0u8; SALT_BYTES];
        salt.copy_from_slice(&salt_draw[..SALT_BYTES]);
        DealSecret::new(server_seed, salt)
    }
}

impl fmt::Debug for EventSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSeed")
            .field("commitment", &self.commitment())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_bad_text_is_refused() {
        let seed = EventSeed::new([7; 32]);
        assert_eq!(EventSeed::from_hex(&seed.hex()), Ok(seed.clone()));
        assert_eq!(
            EventSeed::from_hex(&seed.hex().to_uppercase()),
            Ok(seed.clone())
        );
        assert!(EventSeed::from_hex("abc").is_err());
        assert!(EventSeed::from_hex(&"zz".repeat(32)).is_err());
        assert!(EventSeed::from_hex(&"00".repeat(31)).is_err());
        assert!(!format!("{seed:?}").contains(&seed.hex()));
    }

    #[test]
    fn the_commitment_is_the_hash_of_the_seed_bytes() {
        let seed = EventSeed::new([0; 32]);
        // SHA-256 of 32 zero bytes, a published test value.
        assert_eq!(
            seed.commitment(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }

    #[test]
    fn draws_separate_their_parts() {
        let seed = EventSeed::new([1; 32]);
        // "1" + "12" must differ from "11" + "2": the separator sees to it.
        assert_ne!(seed.draw("x", &["1", "12"]), seed.draw("x", &["11", "2"]));
        assert_ne!(seed.draw("x", &["1"]), seed.draw("y", &["1"]));
        assert_eq!(seed.draw("x", &["1"]), seed.draw("x", &["1"]));
        let mut manual = Sha256::new();
        manual.update([1u8; 32]);
        manual.update(b"lot");
        manual.update([0u8]);
        manual.update(b"3");
        manual.update([0u8]);
        manual.update(b"alice");
        let manual: Draw = manual.finalize().into();
        assert_eq!(seed.lot(3, "alice"), manual);
    }

    #[test]
    fn deals_differ_by_board_and_deal_but_not_by_asking_twice() {
        let seed = EventSeed::new([2; 32]);
        assert_eq!(seed.deal(1, 0, 0), seed.deal(1, 0, 0));
        assert_ne!(seed.deal(1, 0, 0), seed.deal(1, 1, 0));
        assert_ne!(seed.deal(1, 0, 0), seed.deal(1, 0, 1));
        assert_ne!(seed.deal(1, 0, 0), seed.deal(2, 0, 0));
        let d = seed.deal(4, 2, 1);
        assert_eq!(d.server_seed, seed.draw("deal-seed", &["4", "2", "1"]));
        assert_eq!(d.salt[..], seed.draw("deal-salt", &["4", "2", "1"])[..16]);
    }
}
