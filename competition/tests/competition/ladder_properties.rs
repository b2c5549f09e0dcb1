//! The ladder's pairing invariants over random fields: never over a
//! bot's bound, never over the daily cap, never anchor against anchor,
//! never a pair twice at once, only connected entrants, and the same
//! answer for the same input.

use std::collections::{BTreeMap, HashMap};

use parlor_competition::ladder::{pair_key, pair_ladder, LadderEntrant, LadderInput, PairRecord};
use proptest::prelude::*;

/// A field from `(rating, anchor, connected, playing, max_games)` per
/// entrant, and a pair record from `(today, playing)` for some pairs.
fn input(
    field: &[(u16, bool, bool, u8, u8)],
    records: &[(usize, usize, u8, bool)],
    daily_cap: u32,
) -> LadderInput {
    let entrants: Vec<LadderEntrant> = field
        .iter()
        .enumerate()
        .map(
            |(i, &(rating, anchor, connected, playing, max_games))| LadderEntrant {
                name: format!("bot{i}"),
                rating: f64::from(rating),
                anchor,
                connected: connected || anchor,
                playing: u32::from(playing.min(max_games)),
                max_games: u32::from(max_games),
            },
        )
        .collect();
    let mut pairs = BTreeMap::new();
    for &(a, b, today, playing) in records {
        let (Some(x), Some(y)) = (entrants.get(a), entrants.get(b)) else {
            continue;
        };
        if a != b {
            pairs.insert(
                pair_key(&x.name, &y.name),
                PairRecord {
                    today: u32::from(today),
                    playing,
                    blocked: false,
                },
            );
        }
    }
    LadderInput {
        entrants,
        pairs,
        daily_cap,
    }
}

fn field_strategy() -> impl Strategy<Value = Vec<(u16, bool, bool, u8, u8)>> {
    prop::collection::vec(
        (
            1000u16..2200,
            prop::bool::weighted(0.3),
            prop::bool::weighted(0.8),
            0u8..3,
            1u8..4,
        ),
        0..14,
    )
}

fn records_strategy() -> impl Strategy<Value = Vec<(usize, usize, u8, bool)>> {
    prop::collection::vec(
        (0usize..14, 0usize..14, 0u8..6, prop::bool::weighted(0.2)),
        0..20,
    )
}

proptest! {
    #[test]
    fn pairings_keep_every_rule(
        field in field_strategy(),
        records in records_strategy(),
        cap in 1u32..5,
    ) {
        let input = input(&field, &records, cap);
        let games = pair_ladder(&input);
        let by_name: HashMap<&str, &LadderEntrant> =
            input.entrants.iter().map(|e| (e.name.as_str(), e)).collect();
        let mut playing: HashMap<&str, u32> =
            input.entrants.iter().map(|e| (e.name.as_str(), e.playing)).collect();
        let mut new_per_pair: HashMap<(String, String), u32> = HashMap::new();
        for g in &games {
            let [a, b] = [&g.seats[0], &g.seats[1]];
            prop_assert_ne!(a, b, "a bot against itself");
            let (x, y) = (by_name[a.as_str()], by_name[b.as_str()]);
            prop_assert!(!(x.anchor && y.anchor), "anchor against anchor: {:?}", g);
            prop_assert!(x.connected && y.connected, "an absent bot paired: {:?}", g);
            for name in [a, b] {
                let n = playing.entry(name.as_str()).or_default();
                *n += 1;
                prop_assert!(*n <= by_name[name.as_str()].max_games, "{} over its bound", name);
            }
            let key = pair_key(a, b);
            let before = input.pairs.get(&key).copied().unwrap_or_default();
            prop_assert!(!before.playing, "a pair already playing paired again: {:?}", g);
            let n = new_per_pair.entry(key).or_default();
            *n += 1;
            prop_assert_eq!(*n, 1, "a pair twice at once");
            prop_assert!(before.today < input.daily_cap, "over the daily cap: {:?}", g);
        }
        prop_assert_eq!(pair_ladder(&input), games, "not deterministic");
    }

    /// Nothing is left that the rules would allow: every two available
    /// entrants not paired now are barred by a rule.
    #[test]
    fn pairing_stops_only_when_nothing_more_is_allowed(
        field in field_strategy(),
        records in records_strategy(),
        cap in 1u32..5,
    ) {
        let input = input(&field, &records, cap);
        let games = pair_ladder(&input);
        let mut playing: HashMap<&str, u32> =
            input.entrants.iter().map(|e| (e.name.as_str(), e.playing)).collect();
        let mut pairs = input.pairs.clone();
        for g in &games {
            *playing.entry(g.seats[0].as_str()).or_default() += 1;
            *playing.entry(g.seats[1].as_str()).or_default() += 1;
            pairs.entry(pair_key(&g.seats[0], &g.seats[1])).or_default().playing = true;
        }
        for x in &input.entrants {
            for y in &input.entrants {
                if x.name >= y.name || (x.anchor && y.anchor) {
                    continue;
                }
                let free = |e: &LadderEntrant| e.connected && playing[e.name.as_str()] < e.max_games;
                let record = pairs.get(&pair_key(&x.name, &y.name)).copied().unwrap_or_default();
                let allowed = free(x) && free(y) && !record.playing && record.today < cap;
                prop_assert!(!allowed, "{} and {} could still play", x.name, y.name);
            }
        }
    }
}
