//! Pairing invariants over random fields and random results.

use std::collections::{HashMap, HashSet};

use parlor_competition::tournament::{
    arena, round_robin, rounds_per_cycle, standings, swiss, ArenaPairing, Entrant, EventSeed,
    Format, GameRecord, Round, RoundRecord,
};
use proptest::prelude::*;

fn field(ratings: &[u16]) -> Vec<Entrant> {
    ratings
        .iter()
        .enumerate()
        .map(|(i, r)| Entrant {
            name: format!("player{i}"),
            rating: f64::from(*r),
        })
        .collect()
}

/// Plays `round` with results drawn from `results` (0: first seat wins,
/// 1: second, 2: draw).
fn play(round: &Round, results: &mut impl Iterator<Item = u8>) -> RoundRecord {
    RoundRecord {
        games: round
            .boards
            .iter()
            .map(|[a, b]| GameRecord {
                seats: [a.clone(), b.clone()],
                winners: Some(match results.next().unwrap_or(2) {
                    0 => vec![0],
                    1 => vec![1],
                    _ => vec![],
                }),
            })
            .collect(),
        bye: round.bye.clone(),
        unpaired: vec![],
    }
}

fn pair_key(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Up to half the field's size in rounds a rematch-free pairing always
    /// exists (each player has met fewer than half the others), so Swiss
    /// must find one; byes go to a different player each round.
    #[test]
    fn swiss_never_rematches_while_avoidable(
        ratings in prop::collection::vec(1000u16..2000, 2..24),
        results in prop::collection::vec(0u8..3, 400),
        seed in any::<[u8; 32]>(),
    ) {
        let entrants = field(&ratings);
        let seed = EventSeed::new(seed);
        let n = entrants.len();
        let mut results = results.into_iter().cycle();
        let mut rounds: Vec<RoundRecord> = Vec::new();
        let mut met = HashSet::new();
        let mut byes = HashSet::new();
        for r in 1..=(n / 2) as u32 {
            let round = swiss(&seed, &entrants, &rounds, r);
            let mut seen = HashSet::new();
            for [a, b] in &round.boards {
                prop_assert!(seen.insert(a.clone()) && seen.insert(b.clone()));
                prop_assert!(met.insert(pair_key(a, b)), "round {r}: {a}-{b} again");
            }
            if let Some(b) = &round.bye {
                prop_assert!(seen.insert(b.clone()));
                prop_assert!(byes.insert(b.clone()), "round {r}: a second bye for {b}");
            }
            prop_assert_eq!(seen.len(), n);
            rounds.push(play(&round, &mut results));
        }
        // The same inputs give the same pairings.
        let again = swiss(&seed, &entrants, &rounds, 99);
        prop_assert_eq!(again, swiss(&seed, &entrants, &rounds, 99));
    }

    /// Standings: points add up to the games' worth, and the order is by
    /// points then tie-break then name.
    #[test]
    fn standings_account_for_every_point(
        ratings in prop::collection::vec(1000u16..2000, 2..12),
        results in prop::collection::vec(0u8..3, 200),
        seed in any::<[u8; 32]>(),
        cycles in 1u32..3,
    ) {
        let entrants = field(&ratings);
        let seed = EventSeed::new(seed);
        let mut results = results.into_iter().cycle();
        let mut rounds = Vec::new();
        for r in 1..=rounds_per_cycle(entrants.len()) * cycles {
            if let Some(round) = round_robin(&seed, &entrants, cycles, r) {
                rounds.push(play(&round, &mut results));
            }
        }
        let table = standings(Format::RoundRobin, &entrants, &rounds);
        let games: usize = rounds.iter().map(|r| r.games.len()).sum();
        let total: f64 = table.iter().map(|s| s.points).sum();
        prop_assert_eq!(total, games as f64);
        let n = entrants.len() as u32;
        for s in &table {
            prop_assert_eq!(s.games, (n - 1) * cycles);
        }
        for w in table.windows(2) {
            let ordered = w[0].points > w[1].points
                || (w[0].points == w[1].points && w[0].tiebreak > w[1].tiebreak)
                || (w[0].points == w[1].points && w[0].tiebreak == w[1].tiebreak && w[0].name < w[1].name);
            prop_assert!(ordered, "{:?} before {:?}", w[0], w[1]);
        }
    }

    /// Arena waves pair only free players, each once, never with their
    /// last opponent, and leave waiting only players with no other choice.
    #[test]
    fn arena_never_repeats_the_last_opponent(
        ratings in prop::collection::vec(1000u16..2000, 2..16),
        frees in prop::collection::vec(prop::collection::vec(any::<bool>(), 16), 1..12),
        results in prop::collection::vec(0u8..3, 200),
        seed in any::<[u8; 32]>(),
        rule in prop::sample::select(vec![ArenaPairing::TopDown, ArenaPairing::WaitsFirst]),
    ) {
        let entrants = field(&ratings);
        let seed = EventSeed::new(seed);
        let mut results = results.into_iter().cycle();
        let mut rounds: Vec<RoundRecord> = Vec::new();
        let mut last: HashMap<String, String> = HashMap::new();
        for (w, mask) in frees.iter().enumerate() {
            let free: Vec<String> = entrants
                .iter()
                .zip(mask)
                .filter(|(_, f)| **f)
                .map(|(e, _)| e.name.clone())
                .collect();
            let (round, waiting) = arena(rule, &seed, &entrants, &free, &rounds, w as u32 + 1);
            let mut seen = HashSet::new();
            for [a, b] in &round.boards {
                prop_assert!(free.contains(a) && free.contains(b));
                prop_assert!(seen.insert(a.clone()) && seen.insert(b.clone()));
                prop_assert!(last.get(a) != Some(b) && last.get(b) != Some(a));
            }
            for x in &waiting {
                prop_assert!(seen.insert(x.clone()));
            }
            prop_assert_eq!(seen.len(), free.len());
            // Two waiting players could not have met each other.
            for (i, x) in waiting.iter().enumerate() {
                for y in &waiting[i + 1..] {
                    prop_assert!(last.get(x) == Some(y) || last.get(y) == Some(x));
                }
            }
            let mut record = play(&round, &mut results);
            record.unpaired = waiting;
            for g in &record.games {
                last.insert(g.seats[0].clone(), g.seats[1].clone());
                last.insert(g.seats[1].clone(), g.seats[0].clone());
            }
            rounds.push(record);
        }
    }
}
