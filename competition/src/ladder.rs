//! The continuous bot ladder's pairing choice: which entered bots play
//! each other now. A pure function of what the server gathered (who is
//! entered, connected and busy, each bot's rating, and what each pair has
//! played), so that it is tested apart from any clock, store or network.
//!
//! The rule, applied greedily until nothing more can be paired:
//!
//! - Only **available** entrants play: connected, and with fewer games in
//!   progress than their own bound (`max_games`).
//! - Two **anchors** (the server's built-in bots) never meet: their games
//!   would rate nothing new.
//! - A pair never plays two games at once, and plays at most `daily_cap`
//!   games in a UTC day; a pair one of whom blocks the other never plays.
//! - Entrants are served in a fixed order: non-anchors first (they are who
//!   the ladder is for), then fewer games in progress, then name. Each
//!   takes the available opponent nearest in rating (ties: fewer games in
//!   progress, then name).
//! - Seats alternate between a pair's games: the name that sorts first
//!   sits at seat 0 when the pair's games today are even in number.

use std::collections::{BTreeMap, BTreeSet};

/// One entrant as the pairing sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderEntrant {
    /// Its name (unique among the entrants; compared exactly).
    pub name: String,
    /// Its rating in the game's pool.
    pub rating: f64,
    /// Whether it is one of the server's built-in bots.
    pub anchor: bool,
    /// Whether it may be paired now (signed in somewhere; anchors always
    /// are).
    pub connected: bool,
    /// Ladder games it is playing now.
    pub playing: u32,
    /// The most ladder games it may play at once.
    pub max_games: u32,
}

/// What a pair has played, keyed by [`pair_key`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairRecord {
    /// Games begun this UTC day (finished or not).
    pub today: u32,
    /// Whether one of its games is being played now.
    pub playing: bool,
    /// Whether one of the two blocks the other: they never meet.
    pub blocked: bool,
}

/// The pairing's input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LadderInput {
    /// Every entrant of the game's ladder.
    pub entrants: Vec<LadderEntrant>,
    /// Each pair's record (a pair not listed has played nothing today).
    pub pairs: BTreeMap<(String, String), PairRecord>,
    /// The most games a pair plays in a UTC day.
    pub daily_cap: u32,
}

/// A new game: the two names by seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LadderPairing {
    /// Seat 0's and seat 1's entrant.
    pub seats: [String; 2],
}

/// The key of the pair `a`, `b` in [`LadderInput::pairs`]: the two names
/// in order.
pub fn pair_key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

/// The games to start now (see the module's rule).
pub fn pair_ladder(input: &LadderInput) -> Vec<LadderPairing> {
    let mut playing: Vec<u32> = input.entrants.iter().map(|e| e.playing).collect();
    let mut pairs = input.pairs.clone();
    let free = |i: usize, playing: &[u32]| {
        let e = &input.entrants[i];
        e.connected && playing[i] < e.max_games
    };
    // Names are unique: a duplicate would make the pair records ambiguous,
    // so every entrant after the first of a name is left out.
    let mut seen = BTreeSet::new();
    let unique: Vec<usize> = (0..input.entrants.len())
        .filter(|&i| seen.insert(input.entrants[i].name.as_str()))
        .collect();
    let mut out = Vec::new();
    loop {
        let mut order: Vec<usize> = unique
            .iter()
            .copied()
            .filter(|&i| free(i, &playing))
            .collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&input.entrants[a], &input.entrants[b]);
            (x.anchor, playing[a], &x.name).cmp(&(y.anchor, playing[b], &y.name))
        });
        let mut paired = None;
        for &i in &order {
            let me = &input.entrants[i];
            let best = order
                .iter()
                .copied()
                .filter(|&j| j != i)
                .filter(|&j| !(me.anchor && input.entrants[j].anchor))
                .filter(|&j| {
                    let record = pairs
                        .get(&pair_key(&me.name, &input.entrants[j].name))
                        .copied()
                        .unwrap_or_default();
                    !record.playing && !record.blocked && record.today < input.daily_cap
                })
                .min_by(|&a, &b| {
                    let (x, y) = (&input.entrants[a], &input.entrants[b]);
                    let dx = (x.rating - me.rating).abs();
                    let dy = (y.rating - me.rating).abs();
                    dx.total_cmp(&dy)
                        .then(playing[a].cmp(&playing[b]))
                        .then(x.name.cmp(&y.name))
                });
            if let Some(j) = best {
                paired = Some((i, j));
                break;
            }
        }
        let Some((i, j)) = paired else {
            return out;
        };
        let (a, b) = (&input.entrants[i].name, &input.entrants[j].name);
        let key = pair_key(a, b);
        let record = pairs.entry(key.clone()).or_default();
        let (first, second) = key;
        let seats = if record.today.is_multiple_of(2) {
            [first, second]
        } else {
            [second, first]
        };
        record.today += 1;
        record.playing = true;
        playing[i] += 1;
        playing[j] += 1;
        out.push(LadderPairing { seats });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(name: &str, rating: f64, anchor: bool) -> LadderEntrant {
        LadderEntrant {
            name: name.into(),
            rating,
            anchor,
            connected: true,
            playing: 0,
            max_games: 2,
        }
    }

    #[test]
    fn a_new_bot_meets_the_nearest_anchor_and_anchors_never_meet() {
        let input = LadderInput {
            entrants: vec![
                bot("nimrod-optimal", 1900.0, true),
                bot("nimrod-random", 1200.0, true),
                bot("nimrod-simple", 1450.0, true),
                bot("newbie", 1500.0, false),
            ],
            pairs: BTreeMap::new(),
            daily_cap: 10,
        };
        let games = pair_ladder(&input);
        let names: Vec<[&str; 2]> = games
            .iter()
            .map(|g| [g.seats[0].as_str(), g.seats[1].as_str()])
            .collect();
        assert_eq!(
            names,
            vec![["newbie", "nimrod-simple"], ["newbie", "nimrod-random"]]
        );
    }

    #[test]
    fn a_blocked_pair_never_meets() {
        let mut pairs = BTreeMap::new();
        pairs.insert(
            pair_key("a", "b"),
            PairRecord {
                blocked: true,
                ..PairRecord::default()
            },
        );
        let entrants = vec![bot("a", 1500.0, false), bot("b", 1500.0, false)];
        let input = LadderInput {
            entrants: entrants.clone(),
            pairs,
            daily_cap: 10,
        };
        assert!(pair_ladder(&input).is_empty());
        let mut more = input;
        more.entrants.push(bot("c", 1900.0, false));
        let games = pair_ladder(&more);
        assert!(!games.is_empty());
        for g in &games {
            assert!(g.seats.contains(&"c".to_owned()), "{g:?}");
        }
        let open = LadderInput {
            entrants,
            pairs: BTreeMap::new(),
            daily_cap: 10,
        };
        assert_eq!(pair_ladder(&open).len(), 1);
    }

    #[test]
    fn seats_alternate_with_the_days_games() {
        let mut pairs = BTreeMap::new();
        pairs.insert(
            pair_key("b", "a"),
            PairRecord {
                today: 3,
                playing: false,
                blocked: false,
            },
        );
        let input = LadderInput {
            entrants: vec![bot("a", 1500.0, false), bot("b", 1500.0, false)],
            pairs,
            daily_cap: 10,
        };
        let games = pair_ladder(&input);
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].seats, ["b".to_owned(), "a".to_owned()]);
    }
}
