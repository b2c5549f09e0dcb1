//! The show: what a hand of four cards plus the start card is worth.
//!
//! Two paths compute the same number:
//!
//! - [`hand_value`] / [`crib_value`], the hot path used by the exhaustive
//!   distribution and the advisors. Fifteens, pairs and runs depend only on
//!   the five ranks and are found with bit tricks (a packed subset-sum
//!   table for fifteens, a rank-presence mask for runs), never by walking
//!   the 31 subsets.
//! - [`breakdown`], which lists every scoring combination (each fifteen,
//!   each pair, each run, the flush, his nob) for people to read. It walks
//!   the subsets, the way the rules are written, and tests check that the
//!   two agree on every hand.

use serde::{Deserialize, Serialize};

use super::card::{Card, Rank};

/// The most a hand can score (555J with the start the fifth 5 in the jack's
/// suit); tests check nothing exceeds it.
pub const MAX_HAND_SCORE: u8 = 29;

/// The total that fifteens are made of.
pub const FIFTEEN: u8 = 15;

/// Whether the four cards are a player's hand or the crib: they differ only
/// in the flush, which in the crib needs all five cards of one suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandKind {
    /// A player's own hand: four of a suit score 4, 5 with the start.
    Hand,
    /// The dealer's crib: only five of a suit score (5).
    Crib,
}

/// The points of fifteens, pairs and runs among five ranks (numbers 1..=13;
/// any order). This is everything in a hand that does not depend on suits.
pub fn rank_points(ranks: [u8; 5]) -> u8 {
    // Fifteens: nibble s of `ways` counts the subsets of the cards seen so
    // far whose values sum to s (0..=15). Adding a card of value v adds
    // every subset shifted up by v; sums past 15 fall off the top. Subsets
    // of positive values with equal sums form an antichain, so by Sperner's
    // theorem at most C(5,2) = 10 share a sum and a nibble never overflows.
    let mut ways: u64 = 1;
    // Runs: bit r set when rank r is present. Pairs: compare every two.
    let mut present: u16 = 0;
    let mut pairs = 0u8;
    for (i, &r) in ranks.iter().enumerate() {
        ways = ways.wrapping_add(ways << (4 * u32::from(r.min(10))));
        present |= 1 << r;
        for &q in &ranks[..i] {
            pairs += u8::from(q == r);
        }
    }
    let fifteens = (ways >> 60) as u8;

    // Five cards hold at most one run of three or more, so the run is the
    // block of consecutive present ranks starting at the lowest start of a
    // three-run, and its count is the product of its ranks' multiplicities.
    let starts3 = present & (present >> 1) & (present >> 2);
    let mut runs = 0u8;
    if starts3 != 0 {
        let low = starts3.trailing_zeros() as u8;
        let mut len = 3u8;
        while present & (1 << (low + len)) != 0 {
            len += 1;
        }
        let mut ways_to_pick = 1u8;
        for rank in low..low + len {
            ways_to_pick *= ranks.iter().map(|&r| u8::from(r == rank)).sum::<u8>();
        }
        runs = len * ways_to_pick;
    }
    2 * fifteens + 2 * pairs + runs
}

fn flush_points(hand: &[Card; 4], start: Card, kind: HandKind) -> u8 {
    let suit = hand[0].suit;
    if hand.iter().any(|c| c.suit != suit) {
        return 0;
    }
    match (kind, start.suit == suit) {
        (_, true) => 5,
        (HandKind::Hand, false) => 4,
        (HandKind::Crib, false) => 0,
    }
}

fn nobs_points(hand: &[Card; 4], start: Card) -> u8 {
    u8::from(
        hand.iter()
            .any(|c| c.rank == Rank::JACK && c.suit == start.suit),
    )
}

/// The value of `hand` shown with `start` as a player's hand (the seed's
/// `hand_value`).
pub fn hand_value(hand: [Card; 4], start: Card) -> u8 {
    value(&hand, start, HandKind::Hand)
}

/// The value of the crib `crib` with `start`: as [`hand_value`], except that
/// a flush needs the start's suit too.
pub fn crib_value(crib: [Card; 4], start: Card) -> u8 {
    value(&crib, start, HandKind::Crib)
}

/// The value of four cards with `start`, as a hand or as the crib.
pub fn value(cards: &[Card; 4], start: Card, kind: HandKind) -> u8 {
    let ranks = [
        cards[0].rank.number(),
        cards[1].rank.number(),
        cards[2].rank.number(),
        cards[3].rank.number(),
        start.rank.number(),
    ];
    rank_points(ranks) + flush_points(cards, start, kind) + nobs_points(cards, start)
}

/// What one scoring combination is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// Cards whose values sum to 15: 2 points.
    Fifteen,
    /// Two cards of one rank: 2 points.
    Pair,
    /// Three or more consecutive ranks: 1 point per card.
    Run,
    /// Four (or five) cards of one suit.
    Flush,
    /// The jack of the start's suit in hand: 1 point.
    Nobs,
}

/// One scoring combination of a shown hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// What it is.
    pub kind: ItemKind,
    /// The cards that make it, in rank order (the start among them where it
    /// takes part).
    pub cards: Vec<Card>,
    /// What it scores.
    pub points: u8,
}

/// A shown hand itemised: the totals per kind and every combination.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Points from fifteens.
    pub fifteens: u8,
    /// Points from pairs.
    pub pairs: u8,
    /// Points from runs.
    pub runs: u8,
    /// Points from the flush.
    pub flush: u8,
    /// Points for his nob.
    pub nobs: u8,
    /// Every combination, fifteens first, then pairs, runs, flush, nobs.
    pub items: Vec<Item>,
}

impl Breakdown {
    /// The hand's value: the sum of its items.
    pub fn total(&self) -> u8 {
        self.fifteens + self.pairs + self.runs + self.flush + self.nobs
    }

    fn push(&mut self, kind: ItemKind, mut cards: Vec<Card>, points: u8) {
        cards.sort();
        *match kind {
            ItemKind::Fifteen => &mut self.fifteens,
            ItemKind::Pair => &mut self.pairs,
            ItemKind::Run => &mut self.runs,
            ItemKind::Flush => &mut self.flush,
            ItemKind::Nobs => &mut self.nobs,
        } += points;
        self.items.push(Item {
            kind,
            cards,
            points,
        });
    }
}

/// Every scoring combination of `cards` shown with `start`, found by
/// walking the subsets of the five cards as the rules describe them. Slower
/// than [`value`], for display; the two always agree.
pub fn breakdown(cards: &[Card; 4], start: Card, kind: HandKind) -> Breakdown {
    let five = [cards[0], cards[1], cards[2], cards[3], start];
    // Subsets as 5-bit masks, in increasing order: small combinations first.
    let subsets = |mask: u32| -> Vec<Card> {
        (0..5)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| five[i])
            .collect()
    };
    let mut b = Breakdown::default();

    for mask in 1u32..32 {
        let set = subsets(mask);
        if set.iter().map(|c| u32::from(c.value())).sum::<u32>() == u32::from(FIFTEEN) {
            b.push(ItemKind::Fifteen, set, 2);
        }
    }
    for mask in 1u32..32 {
        let set = subsets(mask);
        if set.len() == 2 && set[0].rank == set[1].rank {
            b.push(ItemKind::Pair, set, 2);
        }
    }
    // A run: three or more cards of distinct, consecutive ranks. Only the
    // longest runs count (a run of four is not also two runs of three); in
    // five cards every run lies within one block of ranks, so "longest" is
    // well defined.
    let is_run = |set: &[Card]| {
        let mut ranks: Vec<u8> = set.iter().map(|c| c.rank.number()).collect();
        ranks.sort_unstable();
        ranks.len() >= 3 && ranks.windows(2).all(|w| w[1] == w[0] + 1)
    };
    let runs: Vec<Vec<Card>> = (1u32..32).map(subsets).filter(|s| is_run(s)).collect();
    let longest = runs.iter().map(Vec::len).max().unwrap_or(0);
    for run in runs.into_iter().filter(|r| r.len() == longest) {
        let points = run.len() as u8;
        b.push(ItemKind::Run, run, points);
    }

    let flush = flush_points(cards, start, kind);
    if flush > 0 {
        let mut set = cards.to_vec();
        if flush == 5 {
            set.push(start);
        }
        b.push(ItemKind::Flush, set, flush);
    }
    if let Some(&jack) = cards
        .iter()
        .find(|c| c.rank == Rank::JACK && c.suit == start.suit)
    {
        b.push(ItemKind::Nobs, vec![jack], 1);
    }
    b
}

/// The number of deals, hand plus start card, scoring each number of
/// points from 0 to 29: every 4-card hand with every one of the 48 other
/// cards as the start, C(52,4) x 48 = 12,994,800 deals in all.
pub fn distribution(kind: HandKind) -> [u64; MAX_HAND_SCORE as usize + 1] {
    let deck: Vec<Card> = Card::deck().collect();
    let mut tally = [0u64; MAX_HAND_SCORE as usize + 1];
    let n = deck.len();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    let hand = [deck[a], deck[b], deck[c], deck[d]];
                    for (s, &start) in deck.iter().enumerate() {
                        if s != a && s != b && s != c && s != d {
                            let v = usize::from(value(&hand, start, kind));
                            if let Some(t) = tally.get_mut(v) {
                                *t += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards<const N: usize>(s: &str) -> [Card; N] {
        let v: Vec<Card> = s
            .split_whitespace()
            .map(|t| t.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect();
        v.try_into().unwrap_or_else(|v| panic!("{v:?}"))
    }

    fn check(hand: &str, start: &str, expect: u8) {
        let h = cards::<4>(hand);
        let [s] = cards::<1>(start);
        assert_eq!(hand_value(h, s), expect, "{hand} + {start}");
        assert_eq!(
            breakdown(&h, s, HandKind::Hand).total(),
            expect,
            "{hand} + {start}"
        );
    }

    #[test]
    fn the_seeds_worked_hands() {
        check("7C QH 2C JC", "9H", 0);
        check("AS 3H KH 7H", "KS", 2);
        check("AS 3H KH 7H", "2D", 5);
        check("6C 7C 8C 9C", "8S", 20);
        check("7H 9S 8C 7C", "8H", 24);
        check("5H 5S 5C JD", "5D", 29);
    }

    #[test]
    fn the_seeds_prose_examples() {
        // 2, 3, 5, 10, king: four fifteens.
        check("2C 3D 5H TS", "KC", 8);
        // 2, 6, 8, 9 with a 7: a run of four and three fifteens.
        check("2C 6D 8H 9S", "7C", 10);
    }

    #[test]
    fn flushes_and_nobs() {
        // Even values only: no fifteens, no runs, no pairs.
        check("2H 4H 6H 8H", "KS", 4);
        check("2H 4H 6H 8H", "KH", 5);
        // Three in hand plus the start score nothing for the flush.
        check("2H 4H 6H 8S", "QH", 0);
        let crib = cards::<4>("2H 4H 6H 8H");
        let [ks, kh] = cards::<2>("KS KH");
        assert_eq!(crib_value(crib, ks), 0);
        assert_eq!(crib_value(crib, kh), 5);
        // His nob: the jack of the start's suit in hand, not the start
        // itself. 6+9 and 2+4+9 are the fifteens.
        check("JD 2C 4H 6S", "9D", 4 + 1);
        check("JC 2C 4H 6S", "9D", 4);
        check("2C 4H 6S 9D", "JD", 4);
    }

    #[test]
    fn double_runs_count_twice() {
        // 3 4 5 5 6: two runs of four and a pair (and 4+5+6 twice).
        let h = cards::<4>("3C 4D 5H 5S");
        let [s] = cards::<1>("6C");
        let b = breakdown(&h, s, HandKind::Hand);
        assert_eq!(b.runs, 8);
        assert_eq!(
            b.items.iter().filter(|i| i.kind == ItemKind::Run).count(),
            2
        );
        assert_eq!(b.pairs, 2);
        assert_eq!(b.total(), hand_value(h, s));
    }
}
