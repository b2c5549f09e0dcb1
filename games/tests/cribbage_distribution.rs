//! The exhaustive distribution of hand scores: every 4-card hand with every
//! start card, C(52,4) x 48 = 12,994,800 deals, against the published
//! table. Too slow for a debug build, so it is ignored by default; run it
//! with
//!
//! ```text
//! cargo test --release -p parlor-games --test cribbage_distribution -- --ignored
//! ```
//!
//! The criterion bench `cribbage` times the same enumeration.

use parlor_games::cribbage::{crib_value, hand_value, Card};

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

/// Tallies hand and crib scores over every hand and start card.
fn distribution() -> ([u64; 30], [u64; 30]) {
    let deck: Vec<Card> = Card::deck().collect();
    let mut hands = [0u64; 30];
    let mut cribs = [0u64; 30];
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    let hand = [deck[a], deck[b], deck[c], deck[d]];
                    for (s, &start) in deck.iter().enumerate() {
                        if s == a || s == b || s == c || s == d {
                            continue;
                        }
                        hands[usize::from(hand_value(hand, start))] += 1;
                        cribs[usize::from(crib_value(hand, start))] += 1;
                    }
                }
            }
        }
    }
    (hands, cribs)
}

#[test]
#[ignore = "12,994,800 deals: run in release with --ignored"]
fn every_deal_scores_as_published() {
    let (hands, cribs) = distribution();
    assert_eq!(hands.iter().sum::<u64>(), 12_994_800);
    for (points, (&got, &want)) in hands.iter().zip(&PUBLISHED).enumerate() {
        assert_eq!(got, want, "deals scoring {points}");
    }
    assert_eq!(cribs[0], PUBLISHED_CRIB_ZEROES);
    println!("hand scores: {hands:?}");
    println!("crib scores: {cribs:?}");
}
