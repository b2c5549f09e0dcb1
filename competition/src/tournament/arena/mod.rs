//! Arena pairing: whoever is free is paired at once with someone near
//! their score and rating, never with the opponent of their last game.
//!
//! A wave pairs the players free at one moment, ranked by points (see
//! [`Format::game_points`]), then rating at the event's start, then the
//! wave's lot. Two rules have been used, and an event keeps the one it
//! was made under ([`ArenaPairing`]), so that its published waves can
//! always be re-derived:
//!
//! - [`ArenaPairing::WaitsFirst`] (events made now), in [`waits_first`]:
//!   the players who have waited most choose first, and as many players
//!   as possible are paired, so nobody waits while a pairing for them
//!   exists.
//! - [`ArenaPairing::TopDown`] (events stored before the rule had a
//!   name), in [`top_down`]: the highest-ranked unpaired player meets the
//!   next free player down the ranking. It starves: two players whose
//!   last game was against each other may never be paired again while
//!   the top four are free together.
//!
//! Seats as [`SeatHistory::arrange`] says, the wave's number standing for
//! the round.

pub mod top_down;
pub mod waits_first;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::event_seed::EventSeed;
use super::format::Format;
use super::rating_order::by_rating;
use super::record::{Entrant, RoundRecord};
use super::round::Round;
use super::seats::SeatHistory;
use super::standings::points;

/// Which rule an arena's waves follow (a closed set: each is kept as long
/// as events made under it may be re-checked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ArenaPairing {
    /// The first rule: top-down through the ranking. The default, since
    /// an event stored without a rule was made under it.
    #[default]
    TopDown,
    /// Most waits first, as many paired as possible.
    WaitsFirst,
}

impl ArenaPairing {
    /// The rule new events are made under.
    pub const CURRENT: ArenaPairing = ArenaPairing::WaitsFirst;
}

/// A wave's free players as both rules see them.
struct Field<'a> {
    /// The free players, best-ranked first.
    ranked: Vec<&'a str>,
    /// Each player's last opponent.
    last: HashMap<&'a str, &'a str>,
    /// Waves before this one that left each player waiting.
    waits: HashMap<&'a str, u32>,
    history: SeatHistory,
}

impl<'a> Field<'a> {
    fn new(
        seed: &EventSeed,
        entrants: &'a [Entrant],
        free: &[String],
        rounds: &'a [RoundRecord],
        wave: u32,
    ) -> Self {
        let pts = points(Format::Arena, entrants, rounds);
        let mut last: HashMap<&str, &str> = HashMap::new();
        let mut waits: HashMap<&str, u32> = HashMap::new();
        for round in rounds {
            for game in &round.games {
                last.insert(&game.seats[0], &game.seats[1]);
                last.insert(&game.seats[1], &game.seats[0]);
            }
            for name in &round.unpaired {
                *waits.entry(name.as_str()).or_default() += 1;
            }
        }
        let mut ranked: Vec<&Entrant> =
            entrants.iter().filter(|e| free.contains(&e.name)).collect();
        ranked.sort_by(|a, b| {
            let pa = pts.get(&a.name).copied().unwrap_or(0.0);
            let pb = pts.get(&b.name).copied().unwrap_or(0.0);
            pb.total_cmp(&pa).then_with(|| by_rating(seed, wave, a, b))
        });
        Field {
            ranked: ranked.into_iter().map(|e| e.name.as_str()).collect(),
            last,
            waits,
            history: SeatHistory::of(rounds),
        }
    }

    /// Whether the players ranked `i` and `j` may meet: neither was the
    /// other's last opponent.
    fn allowed(&self, i: usize, j: usize) -> bool {
        let (a, b) = (self.ranked[i], self.ranked[j]);
        i != j && self.last.get(a) != Some(&b) && self.last.get(b) != Some(&a)
    }

    /// The wave from pairs of ranking positions and the positions left
    /// waiting: boards listed by their better-ranked player, the waiting
    /// in ranking order.
    fn wave(
        &self,
        pairs: &[(usize, usize)],
        mut waiting: Vec<usize>,
        wave: u32,
    ) -> (Round, Vec<String>) {
        let mut pairs: Vec<(usize, usize)> =
            pairs.iter().map(|&(i, j)| (i.min(j), i.max(j))).collect();
        pairs.sort_unstable();
        waiting.sort_unstable();
        let boards = pairs
            .iter()
            .map(|&(hi, lo)| self.history.arrange(self.ranked[hi], self.ranked[lo], wave))
            .collect();
        let waiting = waiting.iter().map(|&i| self.ranked[i].to_owned()).collect();
        (Round { boards, bye: None }, waiting)
    }
}

/// The pairs of wave `wave` (from 1) among the free players `free`
/// (entrants of the event), after the waves `rounds` before it, by the
/// rule `pairing`; the players left unpaired go in [`Round::bye`]'s stead
/// to [`RoundRecord::unpaired`] when the wave is recorded.
pub fn arena(
    pairing: ArenaPairing,
    seed: &EventSeed,
    entrants: &[Entrant],
    free: &[String],
    rounds: &[RoundRecord],
    wave: u32,
) -> (Round, Vec<String>) {
    let field = Field::new(seed, entrants, free, rounds, wave);
    let (pairs, waiting) = match pairing {
        ArenaPairing::TopDown => top_down::pair(&field),
        ArenaPairing::WaitsFirst => waits_first::pair(&field),
    };
    field.wave(&pairs, waiting, wave)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::record::GameRecord;

    fn field(n: usize) -> Vec<Entrant> {
        (0..n)
            .map(|i| Entrant {
                name: format!("a{i}"),
                rating: 1500.0 + i as f64,
            })
            .collect()
    }

    const RULES: [ArenaPairing; 2] = [ArenaPairing::TopDown, ArenaPairing::WaitsFirst];

    #[test]
    fn nobody_meets_their_last_opponent_and_the_rest_wait() {
        for rule in RULES {
            last_opponents_wait(rule);
        }
    }

    fn last_opponents_wait(rule: ArenaPairing) {
        let seed = EventSeed::new([4; 32]);
        let entrants = field(3);
        let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
        let (first, waiting) = arena(rule, &seed, &entrants, &names, &[], 1);
        // Ranked a2 a1 a0: a2 meets a1, a0 waits.
        assert_eq!(first.boards.len(), 1);
        assert_eq!(waiting, ["a0".to_string()]);
        let [x, y] = first.boards[0].clone();
        let rounds = vec![RoundRecord {
            games: vec![GameRecord {
                seats: [x.clone(), y.clone()],
                winners: Some(vec![0]),
            }],
            bye: None,
            unpaired: waiting,
        }];
        // x and y free again, a0 still free: neither may meet the other.
        let (second, waiting) = arena(rule, &seed, &entrants, &names, &rounds, 2);
        assert_eq!(second.boards.len(), 1);
        let board = &second.boards[0];
        assert!(board.contains(&"a0".to_string()));
        assert_eq!(waiting.len(), 1);
        // Only the two who just met free: nobody is paired.
        let (third, waiting) = arena(rule, &seed, &entrants, &[x.clone(), y.clone()], &rounds, 3);
        assert!(third.boards.is_empty());
        assert_eq!(waiting.len(), 2);
    }

    #[test]
    fn neighbours_in_score_meet() {
        for rule in RULES {
            score_neighbours(rule);
        }
    }

    fn score_neighbours(rule: ArenaPairing) {
        let seed = EventSeed::new([6; 32]);
        let entrants = field(4);
        let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
        // a0 beat a1 twice (4 points); a2 and a3 have none.
        let win = |a: &str, b: &str| RoundRecord {
            games: vec![GameRecord {
                seats: [a.into(), b.into()],
                winners: Some(vec![0]),
            }],
            bye: None,
            unpaired: vec![],
        };
        let rounds = vec![win("a0", "a2"), win("a0", "a1")];
        let (wave, waiting) = arena(rule, &seed, &entrants, &names, &rounds, 3);
        assert!(waiting.is_empty());
        // Ranked a0 (4), a3, a2, a1 (0 each, by rating): a0's last was a1,
        // so a0 meets a3; then a2 meets a1.
        let mut pairs: Vec<[String; 2]> = wave
            .boards
            .iter()
            .map(|b| {
                let mut b = b.clone();
                b.sort();
                b
            })
            .collect();
        pairs.sort();
        assert_eq!(
            pairs,
            vec![
                ["a0".to_string(), "a3".to_string()],
                ["a1".to_string(), "a2".to_string()]
            ]
        );
    }
}
