//! Whether a move may be played now, and if not the first rule it breaks,
//! in the order of [`Illegal`]'s variants.

use super::super::card::first_duplicate;
use super::super::illegal::Illegal;
use super::super::moves::Move;
use super::super::phase::Phase;
use super::Cribbage;
use crate::game::Seat;

impl Cribbage {
    /// `Ok` if `seat` may play `mv` now; the state is not changed either
    /// way.
    pub(super) fn check(&self, seat: Seat, mv: &Move) -> Result<(), Illegal> {
        if self.outcome.is_some() {
            return Err(Illegal::GameOver);
        }
        if seat.0 >= self.seats {
            return Err(Illegal::NoSuchSeat {
                seat,
                seats: self.seats,
            });
        }
        match mv {
            Move::Discard(cards) => {
                if self.phase != Phase::Discard {
                    return Err(Illegal::NotDiscarding { phase: self.phase });
                }
                if self.discards[seat.index()].is_some() {
                    return Err(Illegal::AlreadyDiscarded { seat });
                }
                let expected = self.discard_count();
                if cards.len() != expected {
                    return Err(Illegal::DiscardCount {
                        expected,
                        got: cards.len(),
                    });
                }
                if let Some(card) = first_duplicate(cards) {
                    return Err(Illegal::DuplicateCard { card });
                }
                if let Some(&card) = cards.iter().find(|c| !self.hands[seat.index()].contains(c)) {
                    return Err(Illegal::NotHeld { card });
                }
                Ok(())
            }
            Move::Play(card) => {
                let Some(pegging) = self.pegging.as_ref().filter(|_| self.phase == Phase::Play)
                else {
                    return Err(Illegal::NotPlaying { phase: self.phase });
                };
                match pegging.next() {
                    Some(next) if next != seat => return Err(Illegal::NotYourTurn { seat, next }),
                    None => return Err(Illegal::NotPlaying { phase: self.phase }),
                    Some(_) => {}
                }
                if !pegging.hand(seat).contains(card) {
                    return Err(Illegal::NotHeld { card: *card });
                }
                if !pegging.fits(*card) {
                    return Err(Illegal::OverThirtyOne {
                        card: *card,
                        count: pegging.count(),
                    });
                }
                Ok(())
            }
        }
    }
}
