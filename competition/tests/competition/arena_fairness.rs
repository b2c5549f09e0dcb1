//! Arena waves treat every entrant alike: nobody waits while a pairing
//! for them exists, and games played stay even across the field.
//!
//! The simulations play an arena wave by wave as the server does: each
//! wave pairs the players free at that moment, a wave that pairs nobody
//! is not recorded, and a game's winner is drawn from the two players'
//! strengths.

use std::collections::HashMap;

use parlor_competition::tournament::{
    arena, ArenaPairing, Entrant, EventSeed, GameRecord, RoundRecord,
};
use proptest::prelude::*;

/// Waves each simulation runs.
const WAVES: usize = 200;

/// The most waves in a row a free player may be left unpaired when games
/// last up to [`LONGEST_GAME`] waves: a player who waited goes first, so
/// they wait only while everyone free is their last opponent, which ends
/// when a game in progress does.
const MOST_WAITS_IN_A_ROW: u32 = 3;

/// The longest game in the simulation with games of several lengths, in
/// waves.
const LONGEST_GAME: u32 = 3;

/// The most games two players may differ by when every game lasts one
/// wave: with an odd field one player waits each wave, and the one who
/// waited goes first, so the wait moves round the field.
const GAMES_SPREAD: u32 = 1;

/// What happened to each player over a simulation.
#[derive(Default)]
struct Tally {
    games: HashMap<String, u32>,
    /// The most waves in a row each player was free and unpaired.
    most_waits: HashMap<String, u32>,
}

impl Tally {
    fn spread(&self) -> u32 {
        let max = self.games.values().max().copied().unwrap_or(0);
        let min = self.games.values().min().copied().unwrap_or(0);
        max - min
    }

    fn longest_wait(&self) -> u32 {
        self.most_waits.values().max().copied().unwrap_or(0)
    }
}

fn field(strengths: &[u16]) -> Vec<Entrant> {
    strengths
        .iter()
        .enumerate()
        .map(|(i, s)| Entrant {
            name: format!("p{i}"),
            rating: f64::from(*s),
        })
        .collect()
}

/// Runs `waves` waves of an arena under `rule`; each game lasts the next
/// length of `lengths` (in waves) and is won by the first seat when the
/// next draw of `draws` (0 to 999) is under its expected score.
fn simulate(
    rule: ArenaPairing,
    entrants: &[Entrant],
    seed: &EventSeed,
    waves: usize,
    lengths: &mut impl Iterator<Item = u32>,
    draws: &mut impl Iterator<Item = u16>,
) -> Tally {
    let rating: HashMap<&str, f64> = entrants
        .iter()
        .map(|e| (e.name.as_str(), e.rating))
        .collect();
    let mut tally = Tally::default();
    for e in entrants {
        tally.games.insert(e.name.clone(), 0);
        tally.most_waits.insert(e.name.clone(), 0);
    }
    let mut waits_in_a_row: HashMap<String, u32> = HashMap::new();
    // Games in progress: their record's place and the wave they end in.
    let mut playing: Vec<(usize, usize, usize)> = Vec::new();
    let mut rounds: Vec<RoundRecord> = Vec::new();
    for tick in 0..waves {
        playing.retain(|&(r, g, ends)| {
            if ends > tick {
                return true;
            }
            let [a, b] = rounds[r].games[g].seats.clone();
            let expected =
                1.0 / (1.0 + 10f64.powf((rating[b.as_str()] - rating[a.as_str()]) / 400.0));
            let draw = f64::from(draws.next().unwrap_or(500)) / 1000.0;
            rounds[r].games[g].winners = Some(vec![if draw < expected { 0 } else { 1 }]);
            false
        });
        let busy: Vec<&String> = playing
            .iter()
            .flat_map(|&(r, g, _)| rounds[r].games[g].seats.iter())
            .collect();
        let free: Vec<String> = entrants
            .iter()
            .map(|e| e.name.clone())
            .filter(|n| !busy.contains(&n))
            .collect();
        let number = u32::try_from(rounds.len() + 1).unwrap_or(u32::MAX);
        let (round, waiting) = arena(rule, seed, entrants, &free, &rounds, number);
        for name in &free {
            let row = waits_in_a_row.entry(name.clone()).or_default();
            if round.boards.iter().any(|b| b.contains(name)) {
                *row = 0;
            } else if free.len() > 1 {
                // A wave with someone else free to meet: a wait. Alone
                // (everyone else in a game), nobody could be paired.
                *row += 1;
                let most = tally.most_waits.entry(name.clone()).or_default();
                *most = (*most).max(*row);
            }
        }
        if round.boards.is_empty() {
            continue;
        }
        let r = rounds.len();
        let mut record = RoundRecord {
            games: Vec::new(),
            bye: None,
            unpaired: waiting,
        };
        for (g, [a, b]) in round.boards.iter().enumerate() {
            *tally.games.entry(a.clone()).or_default() += 1;
            *tally.games.entry(b.clone()).or_default() += 1;
            record.games.push(GameRecord {
                seats: [a.clone(), b.clone()],
                winners: None,
            });
            let length = lengths.next().unwrap_or(1).max(1) as usize;
            playing.push((r, g, tick + length));
        }
        rounds.push(record);
    }
    tally
}

/// The field: six players, every game over within its wave.
fn six_players(rule: ArenaPairing) -> Tally {
    let entrants = field(&[1900, 1800, 1700, 1600, 1500, 1400]);
    let seed = EventSeed::new([34; 32]);
    let mut draws = (0u32..1000).map(|d| ((d * 617) % 1000) as u16).cycle();
    simulate(
        rule,
        &entrants,
        &seed,
        WAVES,
        &mut std::iter::repeat(1),
        &mut draws,
    )
}

#[test]
fn the_first_rule_starves_two_of_six_players() {
    // Kept for events made under it: the measurement the new rule fixes.
    let tally = six_players(ArenaPairing::TopDown);
    assert!(tally.spread() > 100, "spread {}", tally.spread());
    assert!(tally.longest_wait() > 100, "wait {}", tally.longest_wait());
}

#[test]
fn six_players_all_play_every_wave() {
    let tally = six_players(ArenaPairing::WaitsFirst);
    assert_eq!(tally.longest_wait(), 0);
    assert!(
        tally.games.values().all(|g| *g == WAVES as u32),
        "{:?}",
        tally.games
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Every game over within its wave: nobody waits two waves in a row,
    /// and games played differ by at most [`GAMES_SPREAD`].
    #[test]
    fn one_wave_games_keep_the_field_even(
        strengths in prop::collection::vec(1000u16..2200, 4..=12),
        draws in prop::collection::vec(0u16..1000, 64),
        seed in any::<[u8; 32]>(),
    ) {
        let entrants = field(&strengths);
        let seed = EventSeed::new(seed);
        let mut draws = draws.into_iter().cycle();
        let tally = simulate(
            ArenaPairing::WaitsFirst, &entrants, &seed, WAVES, &mut std::iter::repeat(1), &mut draws,
        );
        prop_assert!(tally.longest_wait() <= 1, "wait {}", tally.longest_wait());
        prop_assert!(tally.spread() <= GAMES_SPREAD, "spread {} {:?}", tally.spread(), tally.games);
    }

    /// Games of one to [`LONGEST_GAME`] waves: no free player with someone
    /// else free to meet waits more than [`MOST_WAITS_IN_A_ROW`] such
    /// waves in a row (alone, everyone else still playing, nobody could
    /// be paired; a case found once is kept in proptest-regressions/).
    #[test]
    fn nobody_free_waits_long(
        strengths in prop::collection::vec(1000u16..2200, 4..=12),
        lengths in prop::collection::vec(1u32..=LONGEST_GAME, 64),
        draws in prop::collection::vec(0u16..1000, 64),
        seed in any::<[u8; 32]>(),
    ) {
        let entrants = field(&strengths);
        let seed = EventSeed::new(seed);
        let mut lengths = lengths.into_iter().cycle();
        let mut draws = draws.into_iter().cycle();
        let tally = simulate(
            ArenaPairing::WaitsFirst, &entrants, &seed, WAVES, &mut lengths, &mut draws,
        );
        prop_assert!(
            tally.longest_wait() <= MOST_WAITS_IN_A_ROW,
            "wait {} {:?}", tally.longest_wait(), tally.most_waits
        );
    }
}
