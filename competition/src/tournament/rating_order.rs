//! Rating order, the event's seeding: players ranked by the rating they
//! brought to the event, equals by the seed's lot. Pairings fall back on
//! it when nothing else (points) separates players.

use std::cmp::Ordering;

use super::event_seed::EventSeed;
use super::record::Entrant;

/// Compares two entrants for round `round`: the higher rating first,
/// then the lower lot ([`EventSeed::lot`]).
pub fn by_rating(seed: &EventSeed, round: u32, a: &Entrant, b: &Entrant) -> Ordering {
    b.rating
        .total_cmp(&a.rating)
        .then_with(|| seed.lot(round, &a.name).cmp(&seed.lot(round, &b.name)))
}

/// The event's seeding: entrants by rating at the start, ties by the lot
/// of round 0. Round robin's schedule is laid out in this order.
pub fn seeding(seed: &EventSeed, entrants: &[Entrant]) -> Vec<Entrant> {
    let mut order = entrants.to_vec();
    order.sort_by(|a, b| by_rating(seed, 0, a, b));
    order
}
