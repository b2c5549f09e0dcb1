//! The exhaustive distribution of hand scores: every 4-card hand with every
//! start card, C(52,4) x 48 = 12,994,800 deals, against the published
//! table. Too slow for a debug build, so it is ignored by default; run it
//! with
//!
//! ```text
//! cargo test --release -p parlor-games --test games cribbage_distribution:: -- --ignored
//! ```
//!
//! The criterion bench `cribbage` times the same enumeration.

// Tests fail by panicking, helpers included.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::cribbage::{distribution, HandKind};

/// Number of deals (hand + start) scoring 0, 1, ..., 29 points.
///
/// Source: Steven S. Lumetta, "Amusing Cribbage Facts"
/// (lumetta.web.engr.illinois.edu/humor/cribbage.html), the table the
/// Wikipedia article "Cribbage statistics" reproduces. 19, 25, 26 and 27
/// never occur.
const PUBLISHED: [u64; 30] = [
    1_009_008, 99_792, 2_813_796, 505_008, 2_855_676, 697_508, 1_800_268, 751_324, 1_137_236,
    361_224, 388_740, 51_680, 317_340, 19_656, 90_100, 9_168, 58_248, 11_196, 2_708, 0, 8_068,
    2_496, 444, 356, 3_680, 0, 0, 0, 76, 4,
];

/// Deals scoring 0 when counted as the crib (a four-card flush no longer
/// scores), from the Wikipedia article "Cribbage statistics".
const PUBLISHED_CRIB_ZEROES: u64 = 1_022_208;

#[test]
#[ignore = "12,994,800 deals: run in release with --ignored"]
fn every_deal_scores_as_published() {
    let hands = distribution(HandKind::Hand);
    let cribs = distribution(HandKind::Crib);
    assert_eq!(hands.iter().sum::<u64>(), 12_994_800);
    for (points, (&got, &want)) in hands.iter().zip(&PUBLISHED).enumerate() {
        assert_eq!(got, want, "deals scoring {points}");
    }
    assert_eq!(cribs[0], PUBLISHED_CRIB_ZEROES);
    println!("hand scores: {hands:?}");
    println!("crib scores: {cribs:?}");
}

#[test]
#[ignore = "12,994,800 deals itemised: run in release with --ignored"]
fn every_deal_itemises_to_its_fast_value() {
    use parlor_games::cribbage::{breakdown, value, Card};
    let deck: Vec<Card> = Card::deck().collect();
    let mut checked = 0u64;
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    let hand = [deck[a], deck[b], deck[c], deck[d]];
                    for &start in deck.iter().filter(|s| !hand.contains(s)) {
                        for kind in [HandKind::Hand, HandKind::Crib] {
                            assert_eq!(
                                breakdown(&hand, start, kind).total(),
                                value(&hand, start, kind),
                                "{hand:?} {start} {kind:?}"
                            );
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 12_994_800);
}
