//! Choosing which cards to keep: the seed's `select_hand`, and a better
//! advisor that also weighs the cards thrown into the crib.
//!
//! Both consider every way to keep four of the five or six dealt cards and
//! score each by an exact expectation, computed in integers over a common
//! denominator so that ties are real ties and the tie-break is
//! deterministic: the dealt cards are sorted (rank, then suit) and the
//! four-card keeps listed in lexicographic order of positions; the first
//! keep with the best value wins. (So among equal keeps the one holding the
//! lower cards is chosen.)
//!
//! ## The crib's expected value
//!
//! The crib holds this player's discards, `m` cards nobody at this seat has
//! seen (2 with two players: the opponent's discards; 3 with three or four
//! players: the other discards, or two discards and the card dealt to the
//! crib), and is shown with the start card. The advisor assumes those `m`
//! cards and the start are drawn uniformly, without replacement, from the
//! cards this player has not seen (46 or 47). Real opponents do not throw
//! at random (a pone avoids giving the dealer fives), so this slightly
//! overvalues the dealer's crib and undervalues the pone's; it is the
//! standard model all the same, and it is computed exactly, not sampled:
//!
//! - fifteens, pairs and runs depend only on ranks, so the `m` unknown
//!   cards and the start are enumerated as rank patterns (at most 455 x 13),
//!   each weighted by the number of card combinations that realise it given
//!   how many cards of each rank are unseen;
//! - the crib flush (all five of one suit) and his nob are added in closed
//!   form from the number of unseen cards of each suit.
//!
//! Expectation is linear, so hand, crib flush and nobs add up exactly; tests
//! check the result against brute-force enumeration of every card
//! combination.

use serde::{Deserialize, Serialize};

use super::card::{first_duplicate, Card, CardSet, Rank, Suit};
use super::score::{hand_value, rank_points};

/// The number of cards a player keeps for the show.
pub const HAND_SIZE: usize = 4;

/// The number of cards dealt to each player: 6 with two players, 5 with
/// three or four.
pub const DEAL_SIZES: [usize; 2] = [5, 6];

/// Why a deal cannot be advised on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum DealError {
    /// Not 5 or 6 cards.
    #[error("a deal is 5 or 6 cards, not {got}")]
    Count {
        /// Cards given.
        got: usize,
    },
    /// The same card twice.
    #[error("{card} is dealt twice")]
    Duplicate {
        /// The repeated card.
        card: Card,
    },
}

/// Whose crib it is, from the advised player's side of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The crib is this player's (or partner's): its value is added.
    Dealer,
    /// The crib is an opponent's: its value is subtracted.
    Pone,
}

/// The seed's answer: what to keep, what to throw, and the kept hand's
/// average value over every possible start card.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Selection {
    /// The four cards kept, sorted.
    pub keep: [Card; HAND_SIZE],
    /// The cards thrown to the crib, sorted.
    pub crib: Vec<Card>,
    /// The kept hand's average value over the start cards.
    pub expected: f64,
}

/// The crib-aware advisor's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Advice {
    /// The four cards kept, sorted.
    pub keep: [Card; HAND_SIZE],
    /// The cards thrown to the crib, sorted.
    pub crib: Vec<Card>,
    /// The kept hand's average value over the start cards.
    pub hand_expected: f64,
    /// The crib's expected value, positive for the dealer and negative for
    /// the pone.
    pub crib_expected: f64,
    /// `hand_expected + crib_expected`, the value maximised.
    pub expected: f64,
}

/// The dealt cards sorted, checked for size and duplicates.
fn sorted_deal(cards: &[Card]) -> Result<Vec<Card>, DealError> {
    if !DEAL_SIZES.contains(&cards.len()) {
        return Err(DealError::Count { got: cards.len() });
    }
    if let Some(card) = first_duplicate(cards) {
        return Err(DealError::Duplicate { card });
    }
    let mut sorted = cards.to_vec();
    sorted.sort();
    Ok(sorted)
}

/// Every way to keep 4 of `dealt` (sorted): (keep, thrown), in
/// lexicographic order of the kept positions.
fn splits(dealt: &[Card]) -> Vec<([Card; HAND_SIZE], Vec<Card>)> {
    let n = dealt.len();
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    let keep = [dealt[a], dealt[b], dealt[c], dealt[d]];
                    let thrown = (0..n)
                        .filter(|i| ![a, b, c, d].contains(i))
                        .map(|i| dealt[i])
                        .collect();
                    out.push((keep, thrown));
                }
            }
        }
    }
    out
}

/// The sum of the kept hand's value over every start card in `unseen`.
fn hand_sum(keep: [Card; HAND_SIZE], unseen: CardSet) -> u64 {
    unseen.iter().map(|s| u64::from(hand_value(keep, s))).sum()
}

/// The seed's `select_hand`: keep the four cards with the highest average
/// value over every start card not among the dealt ones. Ties go to the
/// first keep in the order described in the module documentation.
pub fn select_hand(cards: &[Card]) -> Result<Selection, DealError> {
    let dealt = sorted_deal(cards)?;
    let unseen = dealt.iter().copied().collect::<CardSet>().complement();
    let mut best: Option<(u64, [Card; HAND_SIZE], Vec<Card>)> = None;
    for (keep, thrown) in splits(&dealt) {
        let sum = hand_sum(keep, unseen);
        if best.as_ref().is_none_or(|(b, _, _)| sum > *b) {
            best = Some((sum, keep, thrown));
        }
    }
    let (sum, keep, crib) = best.ok_or(DealError::Count { got: cards.len() })?;
    Ok(Selection {
        keep,
        crib,
        expected: sum as f64 / unseen.len() as f64,
    })
}

/// The exact expected value of a crib made of `discards` (1 or 2 cards),
/// `4 - discards.len()` cards drawn at random from `unseen`, and a start
/// drawn from the rest of `unseen`, as a fraction `(numerator,
/// denominator)`. See the module documentation for the method.
pub fn crib_expectation(discards: &[Card], unseen: CardSet) -> (u64, u64) {
    let m = HAND_SIZE.saturating_sub(discards.len());
    let u = unseen.len() as u64;
    let denominator = choose(u, m as u64) * u.saturating_sub(m as u64);
    if denominator == 0 {
        return (0, 1);
    }

    let mut unseen_of_rank = [0u64; 14];
    let mut unseen_of_suit = [0u64; 4];
    for c in unseen.iter() {
        unseen_of_rank[usize::from(c.rank.number())] += 1;
        unseen_of_suit[c.suit.index()] += 1;
    }

    // Fifteens, pairs, runs: walk the multisets of m unknown ranks in
    // non-decreasing order, then the start's rank.
    let fixed = discards.len().min(HAND_SIZE);
    let mut patterns = Patterns {
        ranks: [0; 5],
        fixed,
        left: unseen_of_rank,
        total: 0,
    };
    for (slot, c) in patterns.ranks.iter_mut().zip(discards) {
        *slot = c.rank.number();
    }
    patterns.walk(fixed, 1, 1);
    let mut total = patterns.total;

    // The crib flush: the discards share a suit and so do all the unknown
    // cards and the start.
    if let Some(first) = discards.first() {
        if discards.iter().all(|c| c.suit == first.suit) {
            let n = unseen_of_suit[first.suit.index()];
            total += 5 * choose(n, m as u64) * n.saturating_sub(m as u64);
        }
    }

    // His nob: a discarded jack needs a start of its suit; an unseen jack
    // must be among the unknown cards with a start of its suit (not itself).
    for c in discards.iter().filter(|c| c.rank == Rank::JACK) {
        total += unseen_of_suit[c.suit.index()] * choose(u - 1, m as u64);
    }
    for suit in Suit::ALL {
        if unseen.contains(Card::new(Rank::JACK, suit)) && m > 0 {
            total += unseen_of_suit[suit.index()].saturating_sub(1)
                * choose(u.saturating_sub(2), m as u64 - 1);
        }
    }
    (total, denominator)
}

/// Adds to `total` the weighted rank points of every completion of the
/// crib: `ranks[..fixed]` are the known discards, `ranks[fixed..filled]`
/// the unknown cards chosen so far (non-decreasing, so that each multiset
/// is met once; the next is at least `from`), then the start. `weight` is
/// the number of card combinations realising the unknown ranks chosen so
/// far; `left[r]` the unseen cards of rank `r` not yet used by them.
struct Patterns {
    ranks: [u8; 5],
    fixed: usize,
    left: [u64; 14],
    total: u64,
}

impl Patterns {
    fn walk(&mut self, filled: usize, from: u8, weight: u64) {
        if filled == HAND_SIZE {
            for start in 1..=13u8 {
                let n = self.left[usize::from(start)];
                if n > 0 {
                    self.ranks[HAND_SIZE] = start;
                    self.total += weight * n * u64::from(rank_points(self.ranks));
                }
            }
            return;
        }
        for r in from..=13u8 {
            let ri = usize::from(r);
            let n = self.left[ri];
            if n == 0 {
                continue;
            }
            // Choosing k of the n_r unseen cards of rank r is C(n_r, k)
            // ways; the j-th card of the rank turns C(n_r, j-1) into
            // C(n_r, j) by the factor (n_r - j + 1) / j, where
            // n_r - j + 1 is what is left of the rank. The division is
            // exact because C(n, j-1) (n - j + 1) = j C(n, j).
            let j = 1 + self.ranks[self.fixed..filled]
                .iter()
                .filter(|&&q| q == r)
                .count() as u64;
            self.ranks[filled] = r;
            self.left[ri] -= 1;
            self.walk(filled + 1, r, weight * n / j);
            self.left[ri] += 1;
        }
    }
}

/// Binomial coefficient C(n, k) for the small numbers used here.
fn choose(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let mut out = 1u64;
    for i in 0..k {
        out = out * (n - i) / (i + 1);
    }
    out
}

/// One way to keep four of a deal, as the crib-aware advisor rates it.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedKeep {
    /// The four cards kept, sorted.
    pub keep: [Card; HAND_SIZE],
    /// The cards thrown to the crib, sorted.
    pub crib: Vec<Card>,
    /// The hand's expected value plus (dealer) or minus (pone) the
    /// crib's, exactly, over a denominator common to every keep of the
    /// deal: equal values are real ties.
    pub value: i64,
    /// The hand's expected value.
    pub hand_expected: f64,
    /// The crib's expected value, positive for the dealer and negative
    /// for the pone.
    pub crib_expected: f64,
}

/// Every way to keep four of `cards`, each rated as [`advise`] rates it,
/// in the order described in the module documentation.
pub fn rated_keeps(cards: &[Card], role: Role) -> Result<Vec<RatedKeep>, DealError> {
    let dealt = sorted_deal(cards)?;
    let unseen = dealt.iter().copied().collect::<CardSet>().complement();
    let u = unseen.len() as u64;
    Ok(splits(&dealt)
        .into_iter()
        .map(|(keep, thrown)| {
            let hand = hand_sum(keep, unseen);
            let (crib, denominator) = crib_expectation(&thrown, unseen);
            // Over the common denominator: hand / u = hand * (denominator / u).
            let scale = denominator / u.max(1);
            let signed_crib = match role {
                Role::Dealer => crib as i64,
                Role::Pone => -(crib as i64),
            };
            RatedKeep {
                keep,
                crib: thrown,
                value: (hand * scale) as i64 + signed_crib,
                hand_expected: hand as f64 / u as f64,
                crib_expected: signed_crib as f64 / denominator as f64,
            }
        })
        .collect())
}

/// The crib-aware advisor: keep the four cards that maximise the hand's
/// expected value plus (dealer) or minus (pone) the crib's, both exact under
/// the model in the module documentation. Ties go to the first keep in the
/// documented order.
pub fn advise(cards: &[Card], role: Role) -> Result<Advice, DealError> {
    let mut best: Option<RatedKeep> = None;
    for k in rated_keeps(cards, role)? {
        if best.as_ref().is_none_or(|b| k.value > b.value) {
            best = Some(k);
        }
    }
    best.map(|k| Advice {
        keep: k.keep,
        crib: k.crib,
        hand_expected: k.hand_expected,
        crib_expected: k.crib_expected,
        expected: k.hand_expected + k.crib_expected,
    })
    .ok_or(DealError::Count { got: cards.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cribbage::score::crib_value;

    fn cards(s: &str) -> Vec<Card> {
        s.split_whitespace()
            .map(|t| t.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    /// Every crib completion and start, card by card: (sum of values,
    /// number of combinations).
    fn brute_crib(discards: &[Card], unseen: CardSet) -> (u64, u64) {
        let pool: Vec<Card> = unseen.iter().collect();
        let m = 4 - discards.len();
        let mut total = 0;
        let mut count = 0;
        let mut pick = |unknown: &[Card]| {
            let mut crib = discards.to_vec();
            crib.extend_from_slice(unknown);
            let crib: [Card; 4] = crib.try_into().unwrap_or_else(|c| panic!("{c:?}"));
            for &s in pool.iter().filter(|s| !unknown.contains(s)) {
                total += u64::from(crib_value(crib, s));
                count += 1;
            }
        };
        let n = pool.len();
        for a in 0..n {
            for b in a + 1..n {
                if m == 2 {
                    pick(&[pool[a], pool[b]]);
                    continue;
                }
                for c in b + 1..n {
                    pick(&[pool[a], pool[b], pool[c]]);
                }
            }
        }
        (total, count)
    }

    #[test]
    fn crib_expectation_matches_brute_force_with_two_discards() {
        for (dealt, thrown) in [
            ("5H 5S JH 9C KD 2H", "5H 5S"),
            ("JH 4H 9C KD 2H 3S", "JH 4H"),
            ("AC 2C 7D 8D QS KS", "AC 2C"),
        ] {
            let dealt = cards(dealt);
            let unseen = dealt.iter().copied().collect::<CardSet>().complement();
            let thrown = cards(thrown);
            assert_eq!(
                crib_expectation(&thrown, unseen),
                brute_crib(&thrown, unseen)
            );
        }
    }

    #[test]
    fn crib_expectation_matches_brute_force_with_one_discard() {
        // A smaller pool keeps the brute force quick in debug builds; the
        // method does not care how many cards are unseen.
        let unseen: CardSet = cards("AH 2H 3H 4H 5H 5C 5D 6H 7H 8H 9H TH JH QH KH JS JC 4S 4D 9S")
            .into_iter()
            .collect();
        for thrown in ["5S", "JD", "KC"] {
            let thrown = cards(thrown);
            assert_eq!(
                crib_expectation(&thrown, unseen),
                brute_crib(&thrown, unseen)
            );
        }
        let mut three = unseen;
        three.remove(cards("KH")[0]);
        let thrown = cards("AS");
        assert_eq!(crib_expectation(&thrown, three), brute_crib(&thrown, three));
    }

    #[test]
    fn select_hand_is_the_best_average_and_ignores_input_order() {
        let dealt = cards("5H 5S 5C JD KC 9S");
        let s = select_hand(&dealt).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.keep.to_vec(), cards("5C 5H 5S JD"));
        assert_eq!(s.crib, cards("9S KC"));
        // Brute force over the 15 keeps and 46 starts.
        let unseen = dealt.iter().copied().collect::<CardSet>().complement();
        let mut best = 0.0f64;
        for (keep, _) in splits(&dealt) {
            let avg = unseen
                .iter()
                .map(|st| f64::from(hand_value(keep, st)))
                .sum::<f64>()
                / 46.0;
            best = best.max(avg);
        }
        assert!((s.expected - best).abs() < 1e-12);
        let mut reversed = dealt.clone();
        reversed.reverse();
        assert_eq!(select_hand(&reversed), Ok(s));
    }

    #[test]
    fn ties_go_to_the_first_keep_in_sorted_order() {
        // Four unrelated cards and two more: several keeps may tie at the
        // same expectation; the answer must not depend on the input order.
        let dealt = cards("2C 4D 6H 8S TC QD");
        let a = select_hand(&dealt).unwrap_or_else(|e| panic!("{e}"));
        let mut shuffled = dealt.clone();
        shuffled.rotate_left(3);
        assert_eq!(select_hand(&shuffled), Ok(a.clone()));
        let b = advise(&shuffled, Role::Pone).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(advise(&dealt, Role::Pone), Ok(b));
    }

    #[test]
    fn the_advisor_weighs_the_crib_by_role() {
        // Dealer with two fives: a 5-5 crib is worth a lot, so the dealer
        // may throw them where the pone never would.
        let dealt = cards("5H 5S JH QC 9D 8S");
        let dealer = advise(&dealt, Role::Dealer).unwrap_or_else(|e| panic!("{e}"));
        let pone = advise(&dealt, Role::Pone).unwrap_or_else(|e| panic!("{e}"));
        assert!(dealer.crib_expected > 0.0 && pone.crib_expected < 0.0);
        assert!((dealer.expected - dealer.hand_expected - dealer.crib_expected).abs() < 1e-12);
        assert!(!pone.crib.iter().any(|c| c.rank.number() == 5));
        // Each maximises its own measure: no keep beats it.
        let unseen = dealt.iter().copied().collect::<CardSet>().complement();
        for (keep, thrown) in splits(&dealt) {
            let hand = hand_sum(keep, unseen) as f64 / 46.0;
            let (n, d) = crib_expectation(&thrown, unseen);
            let crib = n as f64 / d as f64;
            assert!(hand + crib <= dealer.expected + 1e-9);
            assert!(hand - crib <= pone.expected + 1e-9);
        }
    }

    #[test]
    fn bad_deals_are_refused() {
        assert_eq!(
            select_hand(&cards("5H 5S 5C 5D")),
            Err(DealError::Count { got: 4 })
        );
        let dup = cards("5H 5S 5C 5D 5H");
        assert_eq!(
            advise(&dup, Role::Dealer),
            Err(DealError::Duplicate { card: dup[0] })
        );
    }
}
