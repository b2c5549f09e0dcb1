//! The play ("pegging"): cards laid in turn onto a running count.
//!
//! Players lay cards one at a time, clockwise, starting left of the dealer,
//! adding their values to a count that may not pass 31. Laying a card
//! scores, for its player:
//!
//! - 2 when the count reaches 15, and 2 when it reaches 31;
//! - a pair with the previous card 2, three of a kind 6, four 12;
//! - a run: when the last three or more cards, in any order, are distinct
//!   consecutive ranks, 1 per card (the longest such run only).
//!
//! A player who holds cards but cannot lay one without passing 31 says
//! "go". Here the go is applied automatically: a player is asked to act
//! only when they have a card they can lay, since saying go is never a
//! choice. The others carry on while they can; when nobody can, the last
//! player to lay a card scores 1 for the go (nothing extra if the count is
//! exactly 31, which already scored 2), and the count restarts at 0 with
//! the next player, clockwise from the one who laid the last card, who
//! still holds cards. Pairs and runs never reach back across a restart.
//! The very last card of the play scores 1 ("last card") unless it made 31.
//!
//! [`Pegging`] holds that state and is used both by the hosted game and by
//! the expert bot's look-ahead, which runs it on guessed hands.

use serde::{Deserialize, Serialize};

use super::card::Card;
use crate::game::Seat;

/// The count may not pass 31, and reaching it exactly scores 2.
pub const MAX_COUNT: u8 = 31;

/// Reaching this count scores 2.
pub const PLAY_FIFTEEN: u8 = 15;

/// Why points (or a "go") happened during the play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PegReason {
    /// The count reached 15: 2.
    Fifteen,
    /// The count reached 31: 2.
    ThirtyOne,
    /// The card pairs the previous one(s): 2, 6 or 12.
    Pair,
    /// The last cards form a run: 1 per card.
    Run,
    /// Nobody else could play: 1 to the last player who did.
    Go,
    /// The last card of the play: 1.
    LastCard,
    /// This player held cards but could not play (no points).
    SaysGo,
}

/// Something that happened during the play, with the points it scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PegScore {
    /// Who scored (or said go).
    pub seat: Seat,
    /// Why.
    pub reason: PegReason,
    /// Points scored (0 for [`PegReason::SaysGo`]).
    pub points: u8,
    /// The cards that made it: the pair or run, or the whole series for a
    /// fifteen or 31; empty for a go.
    pub cards: Vec<Card>,
}

/// A card laid, and by whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Laid {
    /// The player who laid it.
    pub seat: Seat,
    /// The card.
    pub card: Card,
}

/// What laying the last card of `series` scores: `(pair points, run
/// length)`. `series` is the cards laid since the count last restarted,
/// oldest first.
pub fn pairs_and_run(series: &[Card]) -> (u8, u8) {
    let Some(last) = series.last() else {
        return (0, 0);
    };
    let same = series
        .iter()
        .rev()
        .take_while(|c| c.rank == last.rank)
        .count() as u8;
    let pair = same * same.saturating_sub(1);

    // Walk back from the last card, keeping a mask of the ranks seen; the
    // last k cards are a run when their k ranks are distinct and
    // contiguous. A repeated rank ends the search: every longer tail holds
    // it too.
    let mut mask: u16 = 0;
    let mut run = 0u8;
    for (k, c) in series.iter().rev().enumerate() {
        let bit = 1u16 << c.rank.number();
        if mask & bit != 0 {
            break;
        }
        mask |= bit;
        let len = k as u32 + 1;
        if len >= 3 && (mask >> mask.trailing_zeros()) == (1u16 << len) - 1 {
            run = len as u8;
        }
    }
    (pair, run)
}

/// The points a card scores when laid, given the series after it (count
/// included): fifteen, 31, pairs and runs. The go and last card are not
/// included (they depend on what the others hold).
pub fn lay_points(series: &[Card], count: u8) -> u8 {
    let (pair, run) = pairs_and_run(series);
    let count_points = if count == PLAY_FIFTEEN || count == MAX_COUNT {
        2
    } else {
        0
    };
    count_points + pair + run
}

/// The most seats at a cribbage table.
pub const MAX_PLAYERS: usize = 4;

/// The most cards a hand can hold in the play: only four are kept, but six
/// are allowed so that any deal could be played out.
pub const HAND_CAP: usize = 6;

/// The most cards in one series: the count stays within 31, and the
/// smallest cards (four aces, four 2s, four 3s, a 4) reach 28 with 13 of
/// them, so 16 is ample.
pub const SERIES_CAP: usize = 16;

/// The most cards laid in one hand: every seat's whole hand.
pub const LAID_CAP: usize = MAX_PLAYERS * HAND_CAP;

/// A fixed-capacity list of `N` items: the play is searched millions of
/// times by the expert bot, and copying a few arrays is far cheaper than
/// cloning vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pile<T: Copy, const N: usize> {
    len: u8,
    items: [T; N],
}

impl<T: Copy, const N: usize> Pile<T, N> {
    fn new(filler: T) -> Self {
        Pile {
            len: 0,
            items: [filler; N],
        }
    }

    fn from_slice(items: &[T], filler: T) -> Option<Self> {
        let mut p = Pile::new(filler);
        for &x in items {
            if !p.push(x) {
                return None;
            }
        }
        Some(p)
    }

    fn as_slice(&self) -> &[T] {
        &self.items[..usize::from(self.len)]
    }

    fn push(&mut self, x: T) -> bool {
        let i = usize::from(self.len);
        if i >= N {
            return false;
        }
        self.items[i] = x;
        self.len += 1;
        true
    }

    fn remove(&mut self, i: usize) {
        let len = usize::from(self.len);
        if i < len {
            self.items.copy_within(i + 1..len, i);
            self.len -= 1;
        }
    }

    fn clear(&mut self) {
        self.len = 0;
    }
}

const FILLER_CARD: Card = Card {
    rank: super::card::Rank::ACE,
    suit: super::card::Suit::Clubs,
};

const FILLER_LAID: Laid = Laid {
    seat: Seat(0),
    card: FILLER_CARD,
};

/// The state of the play. Cheap to copy, so that look-ahead can try every
/// card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pegging {
    seats: u8,
    /// Each seat's cards not yet laid.
    hands: [Pile<Card, HAND_CAP>; MAX_PLAYERS],
    /// The cards laid since the count last restarted.
    series: Pile<Laid, SERIES_CAP>,
    /// The running count.
    count: u8,
    /// Who lays next; `None` once every card is laid.
    next: Option<Seat>,
    /// Who said go in this series, as a bitmask of seats, so each go is
    /// announced once.
    said_go: u8,
    /// Every card laid this hand, in order.
    laid: Pile<Laid, LAID_CAP>,
}

impl Pegging {
    fn empty(seats: usize, hands: &[Vec<Card>]) -> Option<Pegging> {
        if seats > MAX_PLAYERS {
            return None;
        }
        let mut piles = [Pile::new(FILLER_CARD); MAX_PLAYERS];
        for (pile, hand) in piles.iter_mut().zip(hands) {
            *pile = Pile::from_slice(hand, FILLER_CARD)?;
        }
        Some(Pegging {
            seats: seats as u8,
            hands: piles,
            series: Pile::new(FILLER_LAID),
            count: 0,
            next: None,
            said_go: 0,
            laid: Pile::new(FILLER_LAID),
        })
    }

    /// The play with these hands (one per seat), `leader` laying first
    /// (left of the dealer); a leader with no cards passes the lead on.
    /// `None` beyond [`MAX_PLAYERS`] seats or [`HAND_CAP`] cards a hand.
    pub fn new(hands: &[Vec<Card>], leader: Seat) -> Option<Pegging> {
        let mut p = Pegging::empty(hands.len(), hands)?;
        p.next = p.first_with_cards(leader);
        Some(p)
    }

    /// A play already under way, for look-ahead from a seat's view:
    /// `hands` (guessed for the others), the current `series`, and who lays
    /// next. `None` when the hands or series are too big, or the series
    /// passes 31.
    pub fn resume(hands: &[Vec<Card>], series: &[Laid], next: Seat) -> Option<Pegging> {
        let mut p = Pegging::empty(hands.len(), hands)?;
        p.series = Pile::from_slice(series, FILLER_LAID)?;
        p.count = series.iter().map(|l| l.card.value()).sum();
        if p.count > MAX_COUNT || next.0 >= p.seats {
            return None;
        }
        p.next = Some(next);
        Some(p)
    }

    /// How many seats play.
    pub fn seats(&self) -> u8 {
        self.seats
    }

    /// Who lays next; `None` once the play is over.
    pub fn next(&self) -> Option<Seat> {
        self.next
    }

    /// The running count.
    pub fn count(&self) -> u8 {
        self.count
    }

    /// The cards laid since the count last restarted.
    pub fn series(&self) -> &[Laid] {
        self.series.as_slice()
    }

    /// Every card laid this hand, in order.
    pub fn laid(&self) -> &[Laid] {
        self.laid.as_slice()
    }

    /// `seat`'s cards not yet laid.
    pub fn hand(&self, seat: Seat) -> &[Card] {
        if seat.0 >= self.seats {
            return &[];
        }
        self.hands.get(seat.index()).map_or(&[], |h| h.as_slice())
    }

    /// Whether `card` fits on the count.
    pub fn fits(&self, card: Card) -> bool {
        self.count + card.value() <= MAX_COUNT
    }

    /// The cards `seat` could lay now if it were their turn, sorted.
    pub fn playable(&self, seat: Seat) -> Vec<Card> {
        let mut cards: Vec<Card> = self
            .hand(seat)
            .iter()
            .copied()
            .filter(|&c| self.fits(c))
            .collect();
        cards.sort();
        cards
    }

    fn can_play(&self, seat: Seat) -> bool {
        self.hand(seat).iter().any(|&c| self.fits(c))
    }

    /// The first seat, clockwise from `from` (itself included), holding
    /// cards.
    fn first_with_cards(&self, from: Seat) -> Option<Seat> {
        let n = self.seats.max(1);
        (0..n)
            .map(|i| Seat((from.0 + i) % n))
            .find(|s| !self.hand(*s).is_empty())
    }

    fn restart(&mut self) {
        self.series.clear();
        self.count = 0;
        self.said_go = 0;
    }

    /// The player to move lays `card`, and the play moves on: what happens
    /// (the card's own scores, goes said, then any go or last card point)
    /// is appended to `out` in order. Returns `false`, changing nothing,
    /// when there is no player to move, or they do not hold `card`, or it
    /// does not fit.
    pub fn lay(&mut self, card: Card, out: &mut Vec<PegScore>) -> bool {
        self.advance(card, Some(out)).is_some()
    }

    /// As [`Pegging::lay`], returning only the points the player scored
    /// (all points from one card go to the player who laid it); `None`
    /// when the card cannot be laid. For look-ahead.
    pub fn lay_quiet(&mut self, card: Card) -> Option<u8> {
        self.advance(card, None)
    }

    fn advance(&mut self, card: Card, mut out: Option<&mut Vec<PegScore>>) -> Option<u8> {
        let seat = self.next?;
        let pos = self.hand(seat).iter().position(|&c| c == card)?;
        if !self.fits(card) {
            return None;
        }
        self.hands[seat.index()].remove(pos);
        let laid = Laid { seat, card };
        self.series.push(laid);
        self.laid.push(laid);
        self.count += card.value();
        let mut points = match out.as_deref_mut() {
            Some(out) => self.score_lay(seat, out),
            None => {
                let mut ranks = [FILLER_CARD; SERIES_CAP];
                let n = self.series.as_slice().len();
                for (slot, l) in ranks.iter_mut().zip(self.series.as_slice()) {
                    *slot = l.card;
                }
                lay_points(&ranks[..n], self.count)
            }
        };

        let n = self.seats;
        if self.count == MAX_COUNT {
            // 31 already scored 2; there is no go on top of it.
            self.restart();
            self.next = self.first_with_cards(Seat((seat.0 + 1) % n));
            return Some(points);
        }
        for i in 1..=n {
            let other = Seat((seat.0 + i) % n);
            if self.can_play(other) {
                self.next = Some(other);
                return Some(points);
            }
            let bit = 1u8 << other.0;
            // The player who laid the card simply claims the go below.
            if other != seat && !self.hand(other).is_empty() && self.said_go & bit == 0 {
                self.said_go |= bit;
                if let Some(out) = out.as_deref_mut() {
                    out.push(PegScore {
                        seat: other,
                        reason: PegReason::SaysGo,
                        points: 0,
                        cards: Vec::new(),
                    });
                }
            }
        }
        // Nobody can lay a card: the go, or the last card of the play.
        let over = self.hands[..usize::from(n)]
            .iter()
            .all(|h| h.as_slice().is_empty());
        if let Some(out) = out {
            out.push(PegScore {
                seat,
                reason: if over {
                    PegReason::LastCard
                } else {
                    PegReason::Go
                },
                points: 1,
                cards: Vec::new(),
            });
        }
        points += 1;
        self.restart();
        self.next = self.first_with_cards(Seat((seat.0 + 1) % n));
        Some(points)
    }

    /// Appends the scores for the card just laid by `seat`; returns their
    /// sum.
    fn score_lay(&self, seat: Seat, out: &mut Vec<PegScore>) -> u8 {
        let cards: Vec<Card> = self.series.as_slice().iter().map(|l| l.card).collect();
        let mut total = 0;
        let mut push = |reason, points, cards: &[Card]| {
            total += points;
            out.push(PegScore {
                seat,
                reason,
                points,
                cards: cards.to_vec(),
            })
        };
        if self.count == PLAY_FIFTEEN {
            push(PegReason::Fifteen, 2, &cards);
        }
        if self.count == MAX_COUNT {
            push(PegReason::ThirtyOne, 2, &cards);
        }
        let (pair, run) = pairs_and_run(&cards);
        if pair > 0 {
            let last = cards.last().map(|c| c.rank);
            let same = cards
                .iter()
                .rev()
                .take_while(|c| Some(c.rank) == last)
                .count();
            push(PegReason::Pair, pair, &cards[cards.len() - same..]);
        }
        if run > 0 {
            let mut run_cards = cards[cards.len() - usize::from(run)..].to_vec();
            run_cards.sort();
            push(PegReason::Run, run, &run_cards);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(s: &str) -> Vec<Card> {
        s.split_whitespace()
            .map(|t| t.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    /// Plays `moves` (compact cards, laid by whoever is next) on hands
    /// `p0` and `p1`, seat 0 leading; returns every score in order as
    /// (seat, reason, points).
    fn play(p0: &str, p1: &str, moves: &str) -> (Pegging, Vec<(u8, PegReason, u8)>) {
        let mut p = Pegging::new(&[cards(p0), cards(p1)], Seat(0))
            .unwrap_or_else(|| panic!("hands too big"));
        let mut out = Vec::new();
        for c in cards(moves) {
            assert!(p.lay(c, &mut out), "could not lay {c}");
        }
        let scores = out.iter().map(|s| (s.seat.0, s.reason, s.points)).collect();
        (p, scores)
    }

    use PegReason::*;

    #[test]
    fn fifteen_and_runs_in_any_order() {
        let (p, s) = play("4C 5C", "6C 3D", "4C 6C 5C 3D");
        assert_eq!(
            s,
            vec![(0, Fifteen, 2), (0, Run, 3), (1, Run, 4), (1, LastCard, 1)]
        );
        assert_eq!(p.next(), None);
    }

    #[test]
    fn pairs_royal_and_double_royal() {
        let (_, s) = play("5C 5D", "5H 5S", "5C 5H 5D 5S");
        assert_eq!(
            s,
            vec![
                (1, Pair, 2),
                (0, Fifteen, 2),
                (0, Pair, 6),
                (1, Pair, 12),
                (1, LastCard, 1)
            ]
        );
    }

    #[test]
    fn thirty_one_scores_two_and_no_go_nor_last_card() {
        let (p, s) = play("KS 9S QD 3C", "KH 5D 6D 7D", "KS KH 9S");
        // 29: seat 1 cannot play, nor can seat 0: the go is seat 0's.
        assert_eq!(s, vec![(1, Pair, 2), (1, SaysGo, 0), (0, Go, 1)]);
        assert_eq!((p.count(), p.next()), (0, Some(Seat(1))));
        let mut p = p;
        let mut out = Vec::new();
        for c in cards("5D QD 6D 3C 7D") {
            assert!(p.lay(c, &mut out));
        }
        let s: Vec<_> = out.iter().map(|s| (s.seat.0, s.reason, s.points)).collect();
        // 5, 15 (fifteen), 21, 24, 31: 31 for 2, and it is the last card
        // but 31 is not also a go.
        assert_eq!(s, vec![(0, Fifteen, 2), (1, ThirtyOne, 2)]);
        assert_eq!(p.next(), None);
    }

    #[test]
    fn combinations_never_span_a_restart() {
        // 10, 20, 30; seat 1 cannot lay its king: go to seat 0. The count
        // restarts and seat 1's king does not pair the last king.
        let (_, s) = play("KC KD", "QC KH", "KC QC KD KH");
        assert_eq!(s, vec![(1, SaysGo, 0), (0, Go, 1), (1, LastCard, 1)]);
    }

    #[test]
    fn a_player_keeps_laying_while_the_other_cannot() {
        // 10 + 10 = 20; seat 0 cannot lay 5+... it can: 25, then 29 (run?
        // no), then seat 1 still cannot: seat 0 takes the go.
        let (p, s) = play("KC 5C 4C 9D", "QH JD TS 8S", "KC QH 5C");
        assert_eq!(s, vec![(1, SaysGo, 0)]);
        assert_eq!(p.next(), Some(Seat(0)));
        let mut p = p;
        let mut out = Vec::new();
        let before = p;
        assert!(!p.lay(cards("9D")[0], &mut out), "9 takes 25 past 31");
        assert!(!p.lay(cards("QH")[0], &mut out), "not seat 0's card");
        assert_eq!(p, before);
        assert!(p.lay(cards("4C")[0], &mut out));
        let s: Vec<_> = out.iter().map(|s| (s.seat.0, s.reason, s.points)).collect();
        assert_eq!(s, vec![(0, Go, 1)]);
        assert_eq!(p.next(), Some(Seat(1)));
    }

    #[test]
    fn pairs_and_runs_look_only_at_the_latest_cards() {
        let c = cards;
        assert_eq!(pairs_and_run(&c("3C 5D 4H")), (0, 3));
        assert_eq!(pairs_and_run(&c("3C 5D 4H 4S")), (2, 0));
        assert_eq!(pairs_and_run(&c("2C 3C 5D 4H 6S")), (0, 5));
        assert_eq!(pairs_and_run(&c("3C 4D 6H 5S")), (0, 4));
        assert_eq!(pairs_and_run(&c("3C 4D 3H 5S")), (0, 3));
        assert_eq!(pairs_and_run(&c("QC KD JH")), (0, 3));
        assert_eq!(pairs_and_run(&c("KC AD 2H")), (0, 0));
        assert_eq!(lay_points(&c("7C 8D"), 15), 2);
    }
}
