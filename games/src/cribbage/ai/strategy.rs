//! Cribbage bots. Each sees only its seat's [`View`].
//!
//! - [`RandomMove`]: a random legal move.
//! - [`SeedPlayer`]: the seed's `select_hand` for the crib, and a greedy
//!   play (the card scoring the most at once; the lowest on ties).
//! - [`Expert`]: the crib-aware advisor for the crib, and a play that looks
//!   ahead: it deals the cards it has not seen to the other players at
//!   random many times over, plays the rest of the play out by minimax on
//!   each deal (its side against the rest), and lays the card with the best
//!   average.

use rand::seq::SliceRandom;

use crate::cribbage::advice::{advise, select_hand, Role};
use crate::cribbage::card::{Card, CardSet};
use crate::cribbage::pegging::{lay_points, Pegging, MAX_COUNT};
use crate::cribbage::{Cribbage, Move, Phase, View};
use crate::game::Seat;
use crate::rng::GameRng;
use crate::strategy::{Bots, Strategy};

/// The hand `seat` holds if it must discard now.
fn discarding(seat: Seat, view: &View) -> Option<&[Card]> {
    (view.phase == Phase::Discard && view.to_act.contains(seat) && view.you == Some(seat))
        .then_some(view.hand.as_slice())
}

/// The cards `seat` may lay if it is its turn in the play.
fn playable(seat: Seat, view: &View) -> Option<Vec<Card>> {
    if view.phase != Phase::Play || view.next != Some(seat) || view.you != Some(seat) {
        return None;
    }
    let cards: Vec<Card> = view
        .hand
        .iter()
        .copied()
        .filter(|c| view.count + c.value() <= MAX_COUNT)
        .collect();
    (!cards.is_empty()).then_some(cards)
}

/// A uniformly random legal move.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomMove;

impl Strategy<Cribbage> for RandomMove {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        if let Some(hand) = discarding(seat, view) {
            let mut cards = hand.to_vec();
            cards.shuffle(rng);
            cards.truncate(usize::from(view.discard_count));
            cards.sort();
            return Some(Move::Discard(cards));
        }
        let cards = playable(seat, view)?;
        cards.choose(rng).copied().map(Move::Play)
    }
}

/// The seed's player: `select_hand` for the crib, then in the play the card
/// that scores the most at once (the lowest card on ties).
#[derive(Clone, Copy, Debug, Default)]
pub struct SeedPlayer;

/// What laying `card` on the view's series scores at once.
fn immediate_points(view: &View, card: Card) -> u8 {
    let mut series: Vec<Card> = view.series.iter().map(|l| l.card).collect();
    series.push(card);
    lay_points(&series, view.count + card.value())
}

impl Strategy<Cribbage> for SeedPlayer {
    fn choose(&mut self, seat: Seat, view: &View, _rng: &mut GameRng) -> Option<Move> {
        if let Some(hand) = discarding(seat, view) {
            return select_hand(hand).ok().map(|s| Move::Discard(s.crib));
        }
        let mut cards = playable(seat, view)?;
        cards.sort();
        let mut best: Option<(u8, Card)> = None;
        for c in cards {
            let p = immediate_points(view, c);
            if best.is_none_or(|(b, _)| p > b) {
                best = Some((p, c));
            }
        }
        best.map(|(_, c)| Move::Play(c))
    }
}

/// How many random deals of the unseen cards the expert plays out per
/// decision: enough that the average settles (the choice rarely changes
/// beyond this) while a decision stays within a few milliseconds.
pub const EXPERT_SAMPLES: usize = 24;

/// How many cards ahead the expert searches. Two players hold at most 8
/// cards between them, so this is the whole play; with three or four it
/// keeps the search to a few milliseconds.
pub const LOOKAHEAD_PLIES: u8 = 8;

/// The expert: crib-aware discards and a look-ahead play.
#[derive(Clone, Copy, Debug)]
pub struct Expert {
    /// Random deals of the unseen cards per play decision.
    pub samples: usize,
}

impl Default for Expert {
    fn default() -> Self {
        Expert {
            samples: EXPERT_SAMPLES,
        }
    }
}

/// The best net score (this side's points minus the others') the player to
/// move can force from `p`, with everyone else playing against this side,
/// searched `depth` cards deep with alpha-beta pruning.
fn search(p: &Pegging, me: usize, sides: usize, depth: u8, mut alpha: i32, mut beta: i32) -> i32 {
    let Some(next) = p.next() else {
        return 0;
    };
    if depth == 0 {
        return 0;
    }
    let mine = next.index() % sides == me;
    let mut best = if mine { i32::MIN } else { i32::MAX };
    // Cards of one rank are interchangeable in the play: try each rank once.
    let mut tried: u16 = 0;
    for &c in p.hand(next) {
        let bit = 1u16 << c.rank.number();
        if tried & bit != 0 || !p.fits(c) {
            continue;
        }
        tried |= bit;
        let mut child = *p;
        let Some(points) = child.lay_quiet(c) else {
            continue;
        };
        let signed = if mine {
            i32::from(points)
        } else {
            -i32::from(points)
        };
        let v = signed + search(&child, me, sides, depth - 1, alpha - signed, beta - signed);
        if mine {
            best = best.max(v);
            alpha = alpha.max(best);
        } else {
            best = best.min(v);
            beta = beta.min(best);
        }
        if alpha >= beta {
            break;
        }
    }
    if tried == 0 {
        0
    } else {
        best
    }
}

impl Expert {
    fn lay(&self, seat: Seat, view: &View, cards: Vec<Card>, rng: &mut GameRng) -> Option<Card> {
        if cards.len() == 1 {
            return cards.first().copied();
        }
        // Every card this seat has not seen: not in its hand or throw, not
        // laid, not the start.
        let mut seen: CardSet = view.hand.iter().chain(&view.discarded).copied().collect();
        for l in &view.laid {
            seen.insert(l.card);
        }
        if let Some(s) = view.start {
            seen.insert(s);
        }
        let mut unseen: Vec<Card> = seen.complement().iter().collect();
        let sides = view.scores.len().max(1);
        let me = view.side(seat);
        let mut totals = vec![0i64; cards.len()];
        for _ in 0..self.samples.max(1) {
            unseen.shuffle(rng);
            let mut rest = unseen.iter().copied();
            let hands: Vec<Vec<Card>> = (0..view.seats)
                .map(|s| {
                    if Seat(s) == seat {
                        view.hand.clone()
                    } else {
                        let n = view.held.get(usize::from(s)).copied().unwrap_or(0);
                        rest.by_ref().take(usize::from(n)).collect()
                    }
                })
                .collect();
            let Some(p) = Pegging::resume(&hands, &view.series, seat) else {
                continue;
            };
            for (total, &c) in totals.iter_mut().zip(&cards) {
                let mut child = p;
                if let Some(points) = child.lay_quiet(c) {
                    let v = i32::from(points)
                        + search(
                            &child,
                            me,
                            sides,
                            LOOKAHEAD_PLIES - 1,
                            i32::MIN / 2,
                            i32::MAX / 2,
                        );
                    *total += i64::from(v);
                }
            }
        }
        // The best average; on ties the first (lowest) card.
        let mut best: Option<(i64, Card)> = None;
        for (&t, &c) in totals.iter().zip(&cards) {
            if best.is_none_or(|(b, _)| t > b) {
                best = Some((t, c));
            }
        }
        best.map(|(_, c)| c)
    }
}

impl Strategy<Cribbage> for Expert {
    fn choose(&mut self, seat: Seat, view: &View, rng: &mut GameRng) -> Option<Move> {
        if let Some(hand) = discarding(seat, view) {
            let role = if view.side(view.dealer) == view.side(seat) {
                Role::Dealer
            } else {
                Role::Pone
            };
            return advise(hand, role).ok().map(|a| Move::Discard(a.crib));
        }
        let mut cards = playable(seat, view)?;
        cards.sort();
        self.lay(seat, view, cards, rng).map(Move::Play)
    }
}

impl Bots for Cribbage {
    const STRATEGIES: &'static [&'static str] = &["expert", "seed", "random"];

    fn strategy(name: &str) -> Option<Box<dyn Strategy<Self>>> {
        match name {
            "expert" => Some(Box::new(Expert::default())),
            "seed" => Some(Box::new(SeedPlayer)),
            "random" => Some(Box::new(RandomMove)),
            _ => None,
        }
    }
}
