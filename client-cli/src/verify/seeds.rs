//! What each seat added to a match's deal, as `parlor verify` reports
//! it (docs/protocol/fair-dealing.md): whether the deal rests on
//! the server alone, and what each seat's part protects against.

use parlor_games::Seat;
use parlor_protocol::MatchHeader;
use serde::Serialize;

/// What one seat added to the deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Contribution {
    /// A client seed, given after the room's commitment was published
    /// (a seat waiting for its seed accepts it only then): neither the
    /// server nor the other players could fit the deal around it.
    Seed,
    /// A player who added none: away when the seat's wait ran out, or a
    /// client that sends none.
    NoSeed,
    /// A built-in bot seated by the server (one added to the room, or a
    /// ladder's anchor): it adds none.
    Bot,
    /// A game of a duplicate set, whose rooms share one deal: it comes
    /// from the event's seed alone, and no seat adds to it.
    SharedDeal,
}

impl Contribution {
    /// What the seat's part protects against, for people.
    pub fn protects(self) -> &'static str {
        match self {
            Contribution::Seed => {
                "this seat's seed came after the commitment: it protects the deal against the server and the other players"
            }
            Contribution::NoSeed => {
                "this player added no seed: the seat protects against nothing (the deal rests on the others' seeds and the server's)"
            }
            Contribution::Bot => "a built-in bot seated by the server: it adds no seed",
            Contribution::SharedDeal => {
                "a duplicate set's shared deal: it comes from the event's seed, committed when the event was announced, and no seat adds to it"
            }
        }
    }
}

/// One seat's line of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatSeed {
    /// The seat.
    pub seat: Seat,
    /// What it added.
    pub contributed: Contribution,
    /// What that protects against.
    pub protects: &'static str,
}

/// Each seat's contribution to the deal of `header` (empty for a match
/// dealt before fair dealing, which had no seeds).
pub fn seat_seeds(header: &MatchHeader) -> Vec<SeatSeed> {
    let Some(deal) = &header.deal else {
        return Vec::new();
    };
    let shared = header
        .event
        .as_ref()
        .is_some_and(|e| !e.siblings.is_empty());
    let anchor = |i: usize| {
        header
            .ladder
            .as_ref()
            .is_some_and(|l| l.strategies.get(i).is_some_and(Option::is_some))
    };
    (0..header.seats)
        .map(|s| {
            let i = usize::from(s);
            let seeded = deal
                .client_seeds
                .get(i)
                .is_some_and(|c| c.as_deref().is_some_and(|c| !c.is_empty()));
            let contributed = if seeded {
                Contribution::Seed
            } else if shared {
                Contribution::SharedDeal
            } else if deal.bot_seats.contains(&Seat(s)) || anchor(i) {
                Contribution::Bot
            } else {
                Contribution::NoSeed
            };
            SeatSeed {
                seat: Seat(s),
                contributed,
                protects: contributed.protects(),
            }
        })
        .collect()
}

/// Whether the deal rests on the server's seed alone: a fair deal to
/// which no seat added a seed (the commitment then shows only that the
/// server fixed its seed before the match, not that it did not choose it).
pub fn server_alone(seats: &[SeatSeed]) -> bool {
    !seats.is_empty() && seats.iter().all(|s| s.contributed != Contribution::Seed)
}
