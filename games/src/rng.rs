//! The seeded random number generator every game draws its chance from.
//!
//! Games draw chance only through [`GameRng::shuffle`], [`GameRng::below`]
//! (and its [`GameRng::below_u8`] twin) and [`GameRng::range_inclusive`].
//! In the keyed mode those are this project's own algorithms on the
//! ChaCha20 keystream, specified below, so a dependency upgrade can never
//! change a deal and an outside auditor can recompute every deal (see
//! [`deal`](super::deal)). Bots may use the generator as any [`RngCore`]: their
//! choices are logged as moves, so nothing needs to pin them.
//!
//! # The keyed stream
//!
//! [`GameRng::from_key`] reads the ChaCha20 keystream (RFC 7539's block
//! function) for the 32-byte key, nonce 0, block counter starting at 0, as
//! consecutive little-endian 64-bit words: word 0 is keystream bytes 0..8,
//! word 1 bytes 8..16, and so on across block boundaries. Equivalently:
//! encrypt zero bytes and read the ciphertext.
//!
//! # The draws
//!
//! - `below(n)`, for n >= 1, is uniform on `0..n`, by rejection: draw a
//!   word x; if x < n * floor(2^64 / n) (computed without overflow, e.g.
//!   in 128 bits) return x mod n, else draw again. Every call draws at
//!   least one word, even for n = 1.
//! - `range_inclusive(lo, hi)`, for lo <= hi, is lo + `below(hi - lo + 1)`,
//!   where for the full range (lo = 0, hi = 2^64 - 1) the bound is 2^64:
//!   every word is accepted and returned as it is.
//! - `shuffle(items)` is Fisher–Yates from the end: for i = len - 1 down to
//!   1, j = `below(i + 1)`, swap items i and j. A slice of 0 or 1 items
//!   draws nothing.

use rand::seq::SliceRandom;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};

/// A deterministic RNG: the same seed or key always yields the same
/// shuffles, deals and draws, which is what makes match logs replayable.
#[derive(Clone, Debug)]
pub struct GameRng(Stream);

/// Where the randomness comes from, and which algorithms turn it into
/// draws.
#[derive(Clone, Debug)]
enum Stream {
    /// ChaCha8 seeded from a `u64` through `rand_core`'s seed expansion,
    /// with rand 0.8's `shuffle` and `gen_range` on top: how every match
    /// was dealt before keyed deals. Kept only so that matches already
    /// stored in users' databases restore exactly; its deals depend on
    /// rand 0.8's algorithms, which a rand upgrade may change.
    Legacy(ChaCha8Rng),
    /// The ChaCha20 keystream with our own draws (see the module doc).
    Keyed(ChaCha20Rng),
}

impl GameRng {
    /// The legacy generator of matches stored before keyed deals: ChaCha8
    /// seeded from `seed`, drawing with rand 0.8's algorithms, byte for
    /// byte as before. Use it only to restore or replay such matches (and
    /// for the bots' own choices, where nothing is pinned); new matches use
    /// [`GameRng::from_key`].
    pub fn from_seed(seed: u64) -> Self {
        GameRng(Stream::Legacy(ChaCha8Rng::seed_from_u64(seed)))
    }

    /// The keyed generator: the ChaCha20 keystream of `key` (nonce 0,
    /// counter from 0) with the draws specified in the module doc.
    pub fn from_key(key: [u8; 32]) -> Self {
        GameRng(Stream::Keyed(ChaCha20Rng::from_seed(key)))
    }

    /// Whether this is the keyed generator (else the legacy one).
    pub fn is_keyed(&self) -> bool {
        matches!(self.0, Stream::Keyed(_))
    }

    /// A uniform draw from `0..n`. `n = 0` returns 0 and draws nothing (no
    /// game asks for it; it is defined so that nothing can panic).
    ///
    /// Keyed: the rejection method of the module doc. Legacy: rand 0.8's
    /// `gen_range(0..n)` on `u64` (which is what `usize` ranges drew on the
    /// 64-bit machines the server runs on).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        match &mut self.0 {
            Stream::Legacy(r) => r.gen_range(0..n),
            Stream::Keyed(r) => below_from(u128::from(n), || r.next_u64()),
        }
    }

    /// [`GameRng::below`] for a small bound. Keyed it is exactly `below`;
    /// it exists because rand 0.8 draws a 32-bit word for a `u8` range and
    /// a 64-bit word for a `u64` one, and a legacy match that drew from a
    /// `u8` range (Cribbage's cut for the first deal) must keep doing so.
    pub fn below_u8(&mut self, n: u8) -> u8 {
        if n == 0 {
            return 0;
        }
        match &mut self.0 {
            Stream::Legacy(r) => r.gen_range(0..n),
            // below(n) < n <= u8::MAX, so the conversion never fails.
            Stream::Keyed(r) => {
                u8::try_from(below_from(u128::from(n), || r.next_u64())).unwrap_or(0)
            }
        }
    }

    /// A uniform draw from `lo..=hi`, the full `u64` range included. With
    /// `hi < lo` it returns `lo` and draws nothing (no game asks for it).
    ///
    /// Keyed: `lo + below(hi - lo + 1)` as in the module doc. Legacy: rand
    /// 0.8's `gen_range(lo..=hi)` on `u64`.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi < lo {
            return lo;
        }
        match &mut self.0 {
            Stream::Legacy(r) => r.gen_range(lo..=hi),
            Stream::Keyed(r) => {
                let span = u128::from(hi - lo) + 1;
                lo + below_from(span, || r.next_u64())
            }
        }
    }

    /// Shuffles `items` uniformly.
    ///
    /// Keyed: Fisher–Yates from the end with [`GameRng::below`], as in the
    /// module doc. Legacy: rand 0.8's `SliceRandom::shuffle`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        match &mut self.0 {
            Stream::Legacy(r) => items.shuffle(r),
            Stream::Keyed(r) => {
                for i in (1..items.len()).rev() {
                    // A slice length always fits in 64 bits.
                    let j = below_from(i as u128 + 1, || r.next_u64()) as usize;
                    items.swap(i, j);
                }
            }
        }
    }
}

/// Uniform on `0..n` for `1 <= n <= 2^64` from the words `word` yields, by
/// rejection: accept a word below the largest multiple of `n` that fits in
/// 64 bits, so that every residue is equally likely.
fn below_from(n: u128, mut word: impl FnMut() -> u64) -> u64 {
    let zone = n * ((1u128 << 64) / n);
    loop {
        let x = u128::from(word());
        if x < zone {
            // x % n < n <= 2^64.
            return (x % n) as u64;
        }
    }
}

impl RngCore for GameRng {
    fn next_u32(&mut self) -> u32 {
        match &mut self.0 {
            Stream::Legacy(r) => r.next_u32(),
            Stream::Keyed(r) => r.next_u32(),
        }
    }

    fn next_u64(&mut self) -> u64 {
        match &mut self.0 {
            Stream::Legacy(r) => r.next_u64(),
            Stream::Keyed(r) => r.next_u64(),
        }
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        match &mut self.0 {
            Stream::Legacy(r) => r.fill_bytes(dest),
            Stream::Keyed(r) => r.fill_bytes(dest),
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        match &mut self.0 {
            Stream::Legacy(r) => r.try_fill_bytes(dest),
            Stream::Keyed(r) => r.try_fill_bytes(dest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(rng: &mut GameRng, n: usize) -> Vec<u64> {
        (0..n).map(|_| rng.next_u64()).collect()
    }

    #[test]
    fn same_seed_same_stream_different_seed_different_stream() {
        let mut a = GameRng::from_seed(7);
        let mut b = GameRng::from_seed(7);
        let mut c = GameRng::from_seed(8);
        let xa = words(&mut a, 4);
        assert_eq!(xa, words(&mut b, 4));
        assert_ne!(xa, words(&mut c, 4));
        let mut k = GameRng::from_key([7; 32]);
        assert_eq!(words(&mut k, 4), words(&mut GameRng::from_key([7; 32]), 4));
        assert_ne!(xa, words(&mut GameRng::from_key([8; 32]), 4));
        assert!(k.is_keyed() && !a.is_keyed());
    }

    /// RFC 7539, appendix A.1, test vectors #1 and #2: the ChaCha20 block
    /// function for the all-zero key and nonce at block counters 0 and 1,
    /// copied from the RFC's text (and reproduced with Python's
    /// `cryptography` package on this machine).
    const RFC7539_ZERO_KEY_BLOCKS_0_1: &str = "\
        76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7\
        da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586\
        9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed\
        29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f";

    #[test]
    fn the_keyed_stream_is_rfc7539_chacha20_read_as_little_endian_words() {
        let bytes = hex::decode(RFC7539_ZERO_KEY_BLOCKS_0_1).unwrap_or_default();
        assert_eq!(bytes.len(), 128);
        let want: Vec<u64> = bytes
            .chunks(8)
            .map(|c| u64::from_le_bytes(<[u8; 8]>::try_from(c).unwrap_or_default()))
            .collect();
        let mut rng = GameRng::from_key([0; 32]);
        assert_eq!(words(&mut rng, 16), want);
    }

    /// `below_from` fed `script`: its answer and how many words it read.
    fn scripted(script: &[u64], n: u128) -> (u64, usize) {
        let mut it = script.iter().copied();
        let mut used = 0;
        let x = below_from(n, || {
            used += 1;
            it.next().unwrap_or(0)
        });
        (x, used)
    }

    #[test]
    fn rejection_bounds_by_hand() {
        // n = 3: 2^64 = 3 * 6148914691236517205 + 1, so the zone is
        // 2^64 - 1 and only the top word is rejected.
        assert_eq!(scripted(&[u64::MAX, 7], 3), (1, 2));
        assert_eq!(scripted(&[u64::MAX - 1], 3), (2, 1));
        // n = 2^63 + 1: the zone is n itself, so words from n up are
        // rejected and 2^63 (= n - 1) is the largest accepted.
        let n = (1u128 << 63) + 1;
        assert_eq!(scripted(&[1 << 63, 5], n), (1 << 63, 1));
        assert_eq!(scripted(&[(1 << 63) + 1, u64::MAX, 5], n), (5, 3));
        // n = 10: the zone is 2^64 - 6; 2^64 - 7 is accepted (its last
        // decimal digit is 9), 2^64 - 6 is not.
        assert_eq!(scripted(&[u64::MAX - 6], 10), (9, 1));
        assert_eq!(scripted(&[u64::MAX - 5, 12], 10), (2, 2));
        // Powers of two, the full range included, never reject.
        assert_eq!(scripted(&[u64::MAX], 1 << 64), (u64::MAX, 1));
        assert_eq!(scripted(&[u64::MAX], 1 << 5), (31, 1));
        // n = 1 still reads a word.
        assert_eq!(scripted(&[u64::MAX], 1), (0, 1));
    }

    #[test]
    fn keyed_draws_read_the_stream_through_the_same_rejection() {
        let key = [42; 32];
        let raw = words(&mut GameRng::from_key(key), 64);
        let mut rng = GameRng::from_key(key);
        let mut at = 0;
        for n in [3u64, 10, 52, 1 << 62, (1 << 63) + 1, 1] {
            let (want, used) = scripted(&raw[at..], u128::from(n));
            assert_eq!(rng.below(n), want, "below({n})");
            at += used;
        }
        assert_eq!(rng.range_inclusive(0, u64::MAX), raw[at]);
        at += 1;
        let (want, used) = scripted(&raw[at..], 6);
        assert_eq!(rng.range_inclusive(5, 10), 5 + want);
        at += used;
        let (want, _) = scripted(&raw[at..], 4);
        assert_eq!(u64::from(rng.below_u8(4)), want);
    }

    #[test]
    fn degenerate_bounds_draw_nothing_and_never_panic() {
        for mut rng in [GameRng::from_seed(1), GameRng::from_key([1; 32])] {
            let mut twin = rng.clone();
            assert_eq!(rng.below(0), 0);
            assert_eq!(rng.below_u8(0), 0);
            assert_eq!(rng.range_inclusive(9, 3), 9);
            let mut one = [5];
            rng.shuffle(&mut one);
            rng.shuffle::<u8>(&mut []);
            assert_eq!(one, [5]);
            assert_eq!(rng.next_u64(), twin.next_u64());
        }
    }

    #[test]
    fn keyed_shuffle_is_a_permutation_and_uniform_enough() {
        // 3 items have 6 orders; 6,000 shuffles give each about 1,000.
        let mut rng = GameRng::from_key([3; 32]);
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..6_000 {
            let mut v = [0u8, 1, 2];
            rng.shuffle(&mut v);
            *counts.entry(v).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 6);
        // Far outside 5 standard deviations (about 5 * 29) only if biased.
        assert!(
            counts.values().all(|&c| (850..=1150).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn legacy_draws_are_rand_0_8_on_chacha8() {
        use rand::seq::SliceRandom;
        let mut ours = GameRng::from_seed(11);
        let mut theirs = ChaCha8Rng::seed_from_u64(11);
        let mut a: Vec<u32> = (0..52).collect();
        let mut b = a.clone();
        ours.shuffle(&mut a);
        b.shuffle(&mut theirs);
        assert_eq!(a, b);
        assert_eq!(ours.below(40), theirs.gen_range(0..40u64));
        assert_eq!(ours.below_u8(3), theirs.gen_range(0..3u8));
        assert_eq!(ours.range_inclusive(1, 15), theirs.gen_range(1..=15u64));
        assert_eq!(ours.next_u64(), theirs.next_u64());
    }
}
