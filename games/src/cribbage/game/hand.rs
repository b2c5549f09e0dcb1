//! A hand's course, from the deal through the discards and the cut, the
//! play, to the show and the next deal; and the points it awards, which
//! end the game the moment a side reaches the target.

use super::super::card::{Card, Rank};
use super::super::events::{Event, Reason, Stage};
use super::super::pegging::{PegScore, Pegging};
use super::super::phase::Phase;
use super::super::score::{breakdown, HandKind};
use super::super::view::{HandRecord, Shown};
use super::Cribbage;
use crate::game::{Outcome, Seat};
use crate::rng::GameRng;

impl Cribbage {
    pub(super) fn deal(&mut self, rng: &mut GameRng) {
        self.hand_number += 1;
        let n = usize::from(self.seats);
        let mut deck = Card::shuffled_deck(rng);
        let size = if self.seats == 2 { 6 } else { 5 };
        // Deal from the top as at the table: one card to each seat in turn,
        // starting left of the dealer.
        let mut hands = vec![Vec::with_capacity(size); n];
        for i in 0..size * n {
            let seat = (self.dealer.index() + 1 + i) % n;
            if let Some(c) = deck.pop() {
                hands[seat].push(c);
            }
        }
        for h in &mut hands {
            h.sort();
        }
        self.crib.clear();
        if self.seats == 3 {
            self.crib.extend(deck.pop());
        }
        self.deck = deck;
        self.hands = hands;
        self.discards = vec![None; n];
        self.start = None;
        self.pegging = None;
        self.shown.clear();
        self.events.clear();
        self.phase = Phase::Discard;
    }

    /// Records `event` and adds its points; the game ends the moment a side
    /// reaches the target. Does nothing once the game is over.
    fn award(&mut self, event: Event) {
        if self.outcome.is_some() {
            return;
        }
        let side = self.side(event.seat);
        let points = u16::from(event.points);
        self.events.push(event);
        if let Some(score) = self.scores.get_mut(side) {
            *score += points;
            if *score >= self.target {
                self.outcome = Some(Outcome::Win {
                    winners: self.side_seats(side),
                });
                self.phase = Phase::Over;
            }
        }
    }

    pub(super) fn discard(&mut self, seat: Seat, cards: &[Card], rng: &mut GameRng) {
        self.hands[seat.index()].retain(|c| !cards.contains(c));
        // Kept sorted, the form `canonical` gives: any order is one throw.
        let mut throw = cards.to_vec();
        throw.sort();
        self.discards[seat.index()] = Some(throw);
        if self.discards.iter().any(Option::is_none) {
            return;
        }
        for throw in self.discards.iter().flatten() {
            self.crib.extend_from_slice(throw);
        }
        self.crib.sort();
        // The cut: any card of the rest of the deck, equally likely.
        let start = if self.deck.is_empty() {
            None
        } else {
            // A deck length always fits in 64 bits, and the draw is below it.
            let i = rng.below(self.deck.len() as u64) as usize;
            Some(self.deck.swap_remove(i))
        };
        self.start = start;
        if let Some(start) = start.filter(|s| s.rank == Rank::JACK) {
            self.award(Event::new(
                self.dealer,
                Stage::Cut,
                Reason::HisHeels,
                2,
                vec![start],
            ));
            if self.outcome.is_some() {
                return;
            }
        }
        self.phase = Phase::Play;
        let leader = Seat((self.dealer.0 + 1) % self.seats);
        // Always `Some`: at most four seats of four cards.
        self.pegging = Pegging::new(&self.hands, leader);
    }

    pub(super) fn lay(&mut self, card: Card, rng: &mut GameRng) {
        let mut scores: Vec<PegScore> = Vec::new();
        let over = match self.pegging.as_mut() {
            Some(p) => {
                p.lay(card, &mut scores);
                p.next().is_none()
            }
            None => return,
        };
        for s in scores {
            self.award(Event::from_peg(s));
        }
        if over && self.outcome.is_none() {
            self.show(rng);
        }
    }

    /// The show, then the next deal.
    fn show(&mut self, rng: &mut GameRng) {
        let Some(start) = self.start else { return };
        let n = self.seats;
        let order = (1..=n).map(|i| (Seat((self.dealer.0 + i) % n), HandKind::Hand));
        let all: Vec<(Seat, HandKind)> = order.chain([(self.dealer, HandKind::Crib)]).collect();
        for (seat, kind) in all {
            let cards: Vec<Card> = match kind {
                HandKind::Hand => self.hands[seat.index()].clone(),
                HandKind::Crib => self.crib.clone(),
            };
            let Ok(four) = <[Card; 4]>::try_from(cards.as_slice()) else {
                continue;
            };
            let b = breakdown(&four, start, kind);
            self.shown.push(Shown {
                seat,
                kind,
                cards,
                total: b.total(),
            });
            for item in b.items {
                self.award(Event::new(
                    seat,
                    kind.into(),
                    item.kind.into(),
                    item.points,
                    item.cards,
                ));
            }
            if self.outcome.is_some() {
                return;
            }
        }
        self.previous = Some(HandRecord {
            number: self.hand_number,
            dealer: self.dealer,
            start: self.start,
            laid: self
                .pegging
                .as_ref()
                .map(|p| p.laid().to_vec())
                .unwrap_or_default(),
            shown: std::mem::take(&mut self.shown),
            events: std::mem::take(&mut self.events),
        });
        self.dealer = Seat((self.dealer.0 + 1) % n);
        self.deal(rng);
    }
}
