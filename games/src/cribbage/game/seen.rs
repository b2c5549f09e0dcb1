//! What each viewer sees of a match, and what the state hides from whom
//! (the leak audits' item list): both follow from the one public record.

use super::super::card::{Card, CardSet};
use super::super::pegging::Pegging;
use super::super::phase::Phase;
use super::super::score::HandKind;
use super::super::view::View;
use super::Cribbage;
use crate::game::{Game, Seat, Viewer};
use crate::secrets::Secrets;

impl Cribbage {
    /// What `viewer` may see (see [`Game::view`]).
    pub(super) fn seen_by(&self, viewer: Viewer) -> View {
        let you = match viewer {
            Viewer::Seat(s) if s.0 < self.seats => Some(s),
            _ => None,
        };
        let mut hand = you.map(|s| self.unlaid(s).to_vec()).unwrap_or_default();
        hand.sort();
        let discarded = you
            .and_then(|s| self.discards[s.index()].clone())
            .unwrap_or_default();
        let pegging = self.pegging.as_ref();
        View {
            seats: self.seats,
            target: self.target,
            partnerships: self.seats == 4,
            scores: self.scores.clone(),
            hand_number: self.hand_number,
            dealer: self.dealer,
            phase: self.phase,
            to_act: self.to_act(),
            next: pegging
                .and_then(Pegging::next)
                .filter(|_| self.phase == Phase::Play),
            you,
            hand,
            discarded,
            discard_count: self.discard_count() as u8,
            held: (0..self.seats)
                .map(|s| self.unlaid(Seat(s)).len() as u8)
                .collect(),
            // The throws join the crib at the cut; before it they are
            // counted where they wait.
            crib_size: (self.crib.len()
                + if self.start.is_none() {
                    self.discards.iter().flatten().map(Vec::len).sum()
                } else {
                    0
                }) as u8,
            start: self.start,
            count: pegging.map_or(0, Pegging::count),
            series: pegging.map(|p| p.series().to_vec()).unwrap_or_default(),
            laid: pegging.map(|p| p.laid().to_vec()).unwrap_or_default(),
            shown: self.shown.clone(),
            events: self.events.clone(),
            previous: self.previous.clone(),
            outcome: self.outcome,
        }
    }

    /// Each seat's cards not yet laid, and its throw until the crib is
    /// shown; the undealt deck, and the card dealt straight to the crib
    /// (three players) until the show, are nobody's. Cards the public
    /// record names (laid, shown, cut, scored, this hand or the previous
    /// one, whose cards are back in the deck or in new hands) are left
    /// out: seeing them named reveals nothing.
    pub(super) fn hidden(&self) -> Secrets {
        let public = self.public_cards();
        let hidden = |c: &&Card| !public.contains(**c);
        let mut s = Secrets::new(self.seats);
        let crib_shown = self.shown.iter().any(|x| x.kind == HandKind::Crib);
        for seat in (0..self.seats).map(Seat) {
            s.seat_items(seat, self.unlaid(seat).iter().filter(hidden));
            if let Some(throw) = self.discards[seat.index()].as_ref().filter(|_| !crib_shown) {
                s.seat_items(seat, throw.iter().filter(hidden));
            }
        }
        s.undisclosed_items(self.deck.iter().filter(hidden));
        if !crib_shown {
            let dealt_to_crib = |c: &&Card| self.discards.iter().flatten().all(|t| !t.contains(c));
            s.undisclosed_items(self.crib.iter().filter(dealt_to_crib).filter(hidden));
        }
        s
    }

    /// Every card the public record names: the start card, the cards laid,
    /// shown and scored, in this hand and the previous one.
    fn public_cards(&self) -> CardSet {
        let mut set = CardSet::default();
        let mut add = |c: &Card| {
            set.insert(*c);
        };
        let laid = self.pegging.as_ref().map_or(&[][..], Pegging::laid);
        self.start.iter().for_each(&mut add);
        laid.iter().for_each(|l| add(&l.card));
        self.shown.iter().flat_map(|x| &x.cards).for_each(&mut add);
        self.events.iter().flat_map(|e| &e.cards).for_each(&mut add);
        if let Some(p) = &self.previous {
            p.start.iter().for_each(&mut add);
            p.laid.iter().for_each(|l| add(&l.card));
            p.shown.iter().flat_map(|x| &x.cards).for_each(&mut add);
            p.events.iter().flat_map(|e| &e.cards).for_each(&mut add);
        }
        set
    }
}
