//! Properties of whole ledgers of random matches: the fold is
//! deterministic to the bit, a line read back from its JSON keeps its
//! hash, and no deviation leaves [45, 350].

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use parlor_competition::ledger::{self, next_line, MatchEntrant, DAY_MS};
use parlor_competition::{Glicko2, LedgerLine, Rating};
use proptest::prelude::*;

const SYSTEM: Glicko2 = Glicko2::PARLOR;

const POOLS: [&str; 2] = ["nimrod", "cribbage"];

const NAMES: [&str; 6] = ["ann", "bob", "cy", "dee", "eve", "fay"];

/// One random match: its pool, the players (indices into [`NAMES`]),
/// their places, and the time since the previous match.
#[derive(Clone, Debug)]
struct Played {
    pool: usize,
    players: Vec<usize>,
    places: Vec<u8>,
    teams: bool,
    gap_ms: u64,
}

fn played() -> impl Strategy<Value = Played> {
    (
        0..POOLS.len(),
        Just((0..NAMES.len()).collect::<Vec<usize>>()).prop_shuffle(),
        2usize..=4,
        proptest::collection::vec(1u8..=4, 4),
        any::<bool>(),
        prop_oneof![0u64..3_600_000, 0u64..(40 * DAY_MS)],
    )
        .prop_map(|(pool, mut players, seats, places, teams, gap_ms)| {
            players.truncate(seats);
            let n = players.len();
            Played {
                pool,
                teams: teams && n == 4,
                places: places[..n].iter().map(|p| (*p).min(n as u8)).collect(),
                players,
                gap_ms,
            }
        })
}

/// The ledger a server writes for the matches.
fn ledger_of(matches: &[Played]) -> Vec<LedgerLine> {
    let mut table: HashMap<(usize, usize), (Rating, u64)> = HashMap::new();
    let mut lines: Vec<LedgerLine> = Vec::new();
    let mut at = 1_764_000_000_000u64;
    for (i, m) in matches.iter().enumerate() {
        at += m.gap_ms;
        let entrants: Vec<MatchEntrant> = m
            .players
            .iter()
            .enumerate()
            .map(|(seat, &p)| {
                let team = m.teams.then_some(seat as u8 % 2);
                MatchEntrant {
                    name: NAMES[p].to_owned(),
                    seat: seat as u8,
                    team,
                    // Partners share their place.
                    place: if m.teams {
                        m.places[seat % 2]
                    } else {
                        m.places[seat]
                    },
                    current: table.get(&(m.pool, p)).copied(),
                }
            })
            .collect();
        let head = lines.last().map(|l| (l.n, l.hash.as_str()));
        let line = next_line(
            &SYSTEM,
            head,
            at,
            POOLS[m.pool],
            &format!("r{i}"),
            "c",
            &entrants,
        );
        for (&p, lp) in m.players.iter().zip(&line.players) {
            table.insert((m.pool, p), (lp.after, at));
        }
        lines.push(line);
    }
    lines
}

fn bits(r: Rating) -> [u64; 3] {
    [r.rating.to_bits(), r.rd.to_bits(), r.vol.to_bits()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The same ledger folds to bit-identical ratings, twice, and to the
    /// ratings the server kept while writing it.
    #[test]
    fn the_fold_is_deterministic_to_the_bit(matches in proptest::collection::vec(played(), 1..40)) {
        let lines = ledger_of(&matches);
        let a = ledger::verify(&SYSTEM, &lines, 0.0).unwrap();
        let b = ledger::verify(&SYSTEM, &lines.clone(), 0.0).unwrap();
        for pool in POOLS {
            for name in NAMES {
                let (x, y) = (a.get(pool, name), b.get(pool, name));
                prop_assert_eq!(x.map(|(r, t)| (bits(r), t)), y.map(|(r, t)| (bits(r), t)));
                let last = lines.iter().rev().filter(|l| l.pool == pool)
                    .find_map(|l| l.players.iter().find(|p| p.name == name).map(|p| (p.after, l.at_ms)));
                prop_assert_eq!(x.map(|(r, t)| (bits(r), t)), last.map(|(r, t)| (bits(r), t)));
            }
        }
    }

    /// A line read back from its JSON is the same line to the bit and
    /// keeps its hash: what a verifier downloading the ledger relies on.
    #[test]
    fn a_line_read_back_from_json_keeps_its_hash(matches in proptest::collection::vec(played(), 1..30)) {
        for line in ledger_of(&matches) {
            let text = serde_json::to_string(&line).unwrap();
            let back: LedgerLine = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(back.compute_hash(), line.hash.clone());
            for (p, q) in line.players.iter().zip(&back.players) {
                prop_assert_eq!(bits(p.before), bits(q.before));
                prop_assert_eq!(bits(p.after), bits(q.after));
            }
        }
    }

    /// Every deviation in a ledger, entering or leaving a match, is
    /// within [45, 350]; two-player winners never fall, losers never rise.
    #[test]
    fn deviations_stay_in_bounds_and_winners_do_not_fall(matches in proptest::collection::vec(played(), 1..40)) {
        for line in ledger_of(&matches) {
            for p in &line.players {
                for r in [p.before, p.after] {
                    prop_assert!((45.0..=350.0).contains(&r.rd), "{:?}", line);
                }
            }
            if let [a, b] = line.players.as_slice() {
                let (w, l) = if a.place < b.place { (a, b) } else { (b, a) };
                if w.place != l.place {
                    prop_assert!(w.after.rating >= w.before.rating);
                    prop_assert!(l.after.rating <= l.before.rating);
                }
            }
        }
    }
}
