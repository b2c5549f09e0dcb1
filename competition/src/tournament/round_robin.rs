//! Round robin by the circle method: in each cycle every pair of players
//! meets once.
//!
//! Players are laid out in seeding order `p₀ … p_{m-1}` (`m` even: an odd
//! field gains an empty place last, and whoever meets it has the bye).
//! In round `r` (from 0 within a cycle of `m-1` rounds) the last place
//! `p_{m-1}` meets `p_r`, and for `k` in `1 … m/2-1` the player at place
//! `(r+k) mod (m-1)` meets the one at `(r-k) mod (m-1)`. Seats: `p_{m-1}`
//! sits first in odd rounds; of two other players `p_i` and `p_j`, `p_i`
//! sits first when `(j-i) mod (m-1)` is at most `(m-2)/2`; in odd cycles
//! every game is turned round. Each player so sits first in half their
//! games of a cycle, give or take one. Boards are listed by their
//! better-seeded player.

use super::event_seed::EventSeed;
use super::rating_order::seeding;
use super::record::Entrant;
use super::round::Round;

/// Rounds in one cycle for `players` players.
pub fn rounds_per_cycle(players: usize) -> u32 {
    let m = players + players % 2;
    u32::try_from(m.saturating_sub(1)).unwrap_or(u32::MAX)
}

/// Round `round` (from 1) of a round robin among `entrants`; `None` past
/// the last round of `cycles` cycles or with fewer than two players.
pub fn round_robin(
    seed: &EventSeed,
    entrants: &[Entrant],
    cycles: u32,
    round: u32,
) -> Option<Round> {
    let per_cycle = rounds_per_cycle(entrants.len());
    if entrants.len() < 2 || round == 0 || round > per_cycle.saturating_mul(cycles) {
        return None;
    }
    let order = seeding(seed, entrants);
    let places: Vec<Option<&Entrant>> = order
        .iter()
        .map(Some)
        .chain((order.len() % 2 == 1).then_some(None))
        .collect();
    let m = places.len();
    let n = m - 1;
    let cycle = (round - 1) / per_cycle;
    let r = usize::try_from((round - 1) % per_cycle).ok()?;
    // (first, second) by place.
    let mut pairs: Vec<(usize, usize)> = Vec::with_capacity(m / 2);
    pairs.push(if r % 2 == 1 { (n, r) } else { (r, n) });
    for k in 1..m / 2 {
        let i = (r + k) % n;
        let j = (r + n - k) % n;
        pairs.push(if (j + n - i) % n <= (m - 2) / 2 {
            (i, j)
        } else {
            (j, i)
        });
    }
    let mut out = Round::default();
    let mut boards: Vec<(usize, [String; 2])> = Vec::new();
    for (a, b) in pairs {
        let (a, b) = if cycle % 2 == 1 { (b, a) } else { (a, b) };
        match (places[a], places[b]) {
            (Some(x), Some(y)) => boards.push((a.min(b), [x.name.clone(), y.name.clone()])),
            (Some(x), None) | (None, Some(x)) => out.bye = Some(x.name.clone()),
            (None, None) => {}
        }
    }
    boards.sort_by_key(|(best, _)| *best);
    out.boards = boards.into_iter().map(|(_, b)| b).collect();
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    fn field(n: usize) -> Vec<Entrant> {
        (0..n)
            .map(|i| Entrant {
                name: format!("p{i}"),
                rating: 1500.0 + (i % 3) as f64,
            })
            .collect()
    }

    #[test]
    fn every_pair_meets_once_per_cycle_with_seats_balanced() {
        let seed = EventSeed::new([9; 32]);
        for n in 2..=17 {
            let entrants = field(n);
            let per = rounds_per_cycle(n);
            for cycle in 0..2 {
                let mut met = HashSet::new();
                let mut first: HashMap<String, i32> = HashMap::new();
                let mut byes: HashMap<String, u32> = HashMap::new();
                for r in 1..=per {
                    let round = round_robin(&seed, &entrants, 2, cycle * per + r);
                    let round = round.unwrap_or_else(|| panic!("{n} players, round {r}"));
                    let mut seen = HashSet::new();
                    for [a, b] in &round.boards {
                        assert!(seen.insert(a.clone()) && seen.insert(b.clone()));
                        let key = if a < b {
                            (a.clone(), b.clone())
                        } else {
                            (b.clone(), a.clone())
                        };
                        assert!(met.insert(key), "{n} players: {a}-{b} twice in a cycle");
                        *first.entry(a.clone()).or_default() += 1;
                        *first.entry(b.clone()).or_default() -= 1;
                    }
                    if let Some(bye) = &round.bye {
                        assert!(seen.insert(bye.clone()));
                        *byes.entry(bye.clone()).or_default() += 1;
                    }
                    assert_eq!(seen.len(), n, "everyone plays or sits out");
                }
                assert_eq!(met.len(), n * (n - 1) / 2);
                for (name, balance) in first {
                    assert!(balance.abs() <= 1, "{n} players: {name} first {balance:+}");
                }
                assert!(byes.values().all(|&b| b == 1));
                assert_eq!(byes.len(), if n % 2 == 1 { n } else { 0 });
            }
        }
    }

    #[test]
    fn the_second_cycle_turns_every_game_round() {
        let seed = EventSeed::new([3; 32]);
        let entrants = field(6);
        let per = rounds_per_cycle(6);
        for r in 1..=per {
            let a = round_robin(&seed, &entrants, 2, r).map(|x| x.boards);
            let b = round_robin(&seed, &entrants, 2, r + per).map(|x| {
                x.boards
                    .into_iter()
                    .map(|[p, q]| [q, p])
                    .collect::<Vec<_>>()
            });
            assert_eq!(a, b);
        }
        assert_eq!(round_robin(&seed, &entrants, 2, 2 * per + 1), None);
        assert_eq!(round_robin(&seed, &entrants, 2, 0), None);
        assert_eq!(round_robin(&seed, &entrants[..1], 1, 1), None);
    }

    #[test]
    fn golden_rounds_for_a_fixed_seed() {
        // Four players rated 1503, 1502, 1501, 1500 (so the seed only
        // matters for ties): places p3 p2 p1 p0.
        let entrants: Vec<Entrant> = (0..4)
            .map(|i| Entrant {
                name: format!("p{i}"),
                rating: 1500.0 + i as f64,
            })
            .collect();
        let seed = EventSeed::new([0; 32]);
        let names = |r| {
            round_robin(&seed, &entrants, 1, r).map(|x| {
                x.boards
                    .iter()
                    .map(|[a, b]| format!("{a}-{b}"))
                    .collect::<Vec<_>>()
            })
        };
        // Round 0: (p3@0, p0@3), then k=1: i=1 (p2), j=2 (p1), (2-1)%3=1 <= 1.
        assert_eq!(names(1), Some(vec!["p3-p0".into(), "p2-p1".into()]));
        // Round 1: fixed p0 first against place 1 (p2); k=1: i=2 (p1), j=0 (p3),
        // (0-2)%3=1 <= 1, so p1 first.
        assert_eq!(names(2), Some(vec!["p1-p3".into(), "p0-p2".into()]));
        assert_eq!(names(3), Some(vec!["p3-p2".into(), "p1-p0".into()]));
    }
}
