//! Seats and viewers: who sits at a table and who looks at it.

use std::fmt::{self, Debug};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most seats any room can have: [`SeatSet`] is a bitmask of this width.
pub const MAX_SEATS: u8 = 8;

/// A seat at the table, numbered from 0 in turn order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat's index, for indexing per-seat arrays.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// A set of seats, e.g. everyone who must act in a simultaneous phase.
/// Serialised as a sorted list of seat numbers.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SeatSet(u8);

impl SeatSet {
    /// No seat.
    pub const EMPTY: SeatSet = SeatSet(0);

    /// Just `seat`.
    pub fn single(seat: Seat) -> Self {
        let mut s = SeatSet::EMPTY;
        s.insert(seat);
        s
    }

    /// Seats `0..n`.
    pub fn first(n: u8) -> Self {
        let mut s = SeatSet::EMPTY;
        for i in 0..n.min(MAX_SEATS) {
            s.insert(Seat(i));
        }
        s
    }

    /// Adds `seat` (seats beyond [`MAX_SEATS`] are ignored).
    pub fn insert(&mut self, seat: Seat) {
        if seat.0 < MAX_SEATS {
            self.0 |= 1 << seat.0;
        }
    }

    /// Removes `seat`.
    pub fn remove(&mut self, seat: Seat) {
        if seat.0 < MAX_SEATS {
            self.0 &= !(1 << seat.0);
        }
    }

    /// Whether `seat` is in the set.
    pub fn contains(self, seat: Seat) -> bool {
        seat.0 < MAX_SEATS && self.0 & (1 << seat.0) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many seats the set holds.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The seats in ascending order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..MAX_SEATS).map(Seat).filter(move |s| self.contains(*s))
    }
}

impl Debug for SeatSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter().map(|s| s.0)).finish()
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Self {
        let mut s = SeatSet::EMPTY;
        for seat in iter {
            s.insert(seat);
        }
        s
    }
}

impl Serialize for SeatSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for SeatSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let seats = Vec::<Seat>::deserialize(d)?;
        if let Some(bad) = seats.iter().find(|s| s.0 >= MAX_SEATS) {
            return Err(serde::de::Error::custom(format!(
                "seat {} is out of range (at most {} seats)",
                bad.0, MAX_SEATS
            )));
        }
        Ok(seats.into_iter().collect())
    }
}

/// Who is looking at the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// The player in this seat: sees their own hidden information.
    Seat(Seat),
    /// A spectator: sees only what is public.
    Spectator,
}
