//! What one viewer may know of a Cribbage match, and the public record of
//! a hand (what was shown, laid and scored) that the view carries.

use serde::{Deserialize, Serialize};

use super::card::Card;
use super::events::Event;
use super::pegging::Laid;
use super::phase::Phase;
use super::score::HandKind;
use crate::game::{Outcome, Seat, SeatSet};

/// A hand or the crib as shown, with its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    /// Whose it is (the dealer's for the crib).
    pub seat: Seat,
    /// A hand or the crib.
    pub kind: HandKind,
    /// The four cards.
    pub cards: Vec<Card>,
    /// Their value with the start card.
    pub total: u8,
}

/// Everything public about a finished hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    /// Hands are numbered from 1.
    pub number: u32,
    /// Who dealt it.
    pub dealer: Seat,
    /// The start card.
    pub start: Option<Card>,
    /// Every card laid in the play, in order.
    pub laid: Vec<Laid>,
    /// The hands and crib shown, in showing order.
    pub shown: Vec<Shown>,
    /// Every event of the hand.
    pub events: Vec<Event>,
}

/// What one viewer may know: their own cards, and everything public. A
/// spectator sees only the public part (`you` is `null`, `hand` and
/// `discarded` are empty).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Seats at the table.
    pub seats: u8,
    /// Points to win.
    pub target: u16,
    /// Whether seats 0 & 2 and 1 & 3 are partners (four players).
    pub partnerships: bool,
    /// Score per side. With 2 or 3 players a side is a seat; with 4, side
    /// 0 is seats 0 & 2 and side 1 is seats 1 & 3.
    pub scores: Vec<u16>,
    /// The hand being played, numbered from 1.
    pub hand_number: u32,
    /// Who deals this hand (and owns the crib).
    pub dealer: Seat,
    /// What is happening.
    pub phase: Phase,
    /// Who must act now.
    pub to_act: SeatSet,
    /// Who lays the next card during the play.
    pub next: Option<Seat>,
    /// The viewer's seat; `None` for a spectator.
    pub you: Option<Seat>,
    /// The viewer's cards not yet laid (all the dealt cards while
    /// discarding), sorted.
    pub hand: Vec<Card>,
    /// The cards the viewer threw to the crib this hand.
    pub discarded: Vec<Card>,
    /// How many cards each seat throws to the crib.
    pub discard_count: u8,
    /// How many cards each seat still holds.
    pub held: Vec<u8>,
    /// How many cards are in the crib.
    pub crib_size: u8,
    /// The start card, once cut.
    pub start: Option<Card>,
    /// The running count of the play.
    pub count: u8,
    /// The cards laid since the count last restarted.
    pub series: Vec<Laid>,
    /// Every card laid this hand, in order.
    pub laid: Vec<Laid>,
    /// Hands (and the crib) shown so far this hand.
    pub shown: Vec<Shown>,
    /// Every event of this hand so far.
    pub events: Vec<Event>,
    /// The previous hand, complete.
    pub previous: Option<HandRecord>,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
}

impl View {
    /// The side (index into `scores`) `seat` plays for.
    pub fn side(&self, seat: Seat) -> usize {
        seat.index() % self.scores.len().max(1)
    }
}
