//! An event's rules and what they make of its history: the next round,
//! and the check that a published history follows from the seed.

use serde::{Deserialize, Serialize};

use super::arena::ArenaPairing;
use super::event_seed::EventSeed;
use super::format::Format;
use super::record::{Entrant, RoundRecord};
use super::round::{Play, Round};
use super::round_robin::{round_robin, rounds_per_cycle};
use super::swiss::swiss;

/// The rules an event was created with that its pairings depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRules {
    /// The format.
    pub format: Format,
    /// Round robin: cycles (every pair meets once per cycle); Swiss:
    /// rounds; arena: unused (a time window ends it).
    pub rounds: u32,
    /// How each board is played.
    pub play: Play,
    /// An arena's pairing rule (the one the event was made under);
    /// unused by the other formats.
    #[serde(default)]
    pub arena_pairing: ArenaPairing,
}

impl EventRules {
    /// Rounds the event has for `players` entrants (`None` for an arena,
    /// which runs until its window closes).
    pub fn total_rounds(&self, players: usize) -> Option<u32> {
        match self.format {
            Format::RoundRobin => Some(rounds_per_cycle(players).saturating_mul(self.rounds)),
            Format::Swiss => Some(self.rounds),
            Format::Arena => None,
        }
    }

    /// The next round of a round-robin or Swiss event, after `rounds`;
    /// `active` are the entrants still in it (a Swiss round pairs only
    /// them; a round robin's schedule is fixed at the start, and the
    /// games of those who left are forfeited by the host). `None` when
    /// the event has had all its rounds, or for an arena.
    pub fn next_round(
        &self,
        seed: &EventSeed,
        entrants: &[Entrant],
        active: &[String],
        rounds: &[RoundRecord],
    ) -> Option<Round> {
        let number = u32::try_from(rounds.len()).ok()?.checked_add(1)?;
        if number > self.total_rounds(entrants.len())? {
            return None;
        }
        match self.format {
            Format::RoundRobin => round_robin(seed, entrants, self.rounds, number),
            Format::Swiss => {
                let players: Vec<Entrant> = entrants
                    .iter()
                    .filter(|e| active.contains(&e.name))
                    .cloned()
                    .collect();
                Some(swiss(seed, &players, rounds, number))
            }
            Format::Arena => None,
        }
    }
}

/// Where a published history departs from what the rules and seed make.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Disagreement {
    /// A round's games are not the ones its pairings call for.
    #[error("round {round}: the games should be {expected:?}, not {published:?}")]
    Games {
        /// The round, from 1.
        round: u32,
        /// The games by seat, as recomputed.
        expected: Vec<[String; 2]>,
        /// As published.
        published: Vec<[String; 2]>,
    },
    /// A round's bye (or an arena wave's waiting list) differs.
    #[error("round {round}: the bye should be {expected:?}, not {published:?}")]
    Bye {
        /// The round, from 1.
        round: u32,
        /// As recomputed.
        expected: Option<String>,
        /// As published.
        published: Option<String>,
    },
    /// More rounds than the event has.
    #[error("round {round} is one more than the event has")]
    ExtraRound {
        /// The round, from 1.
        round: u32,
    },
}

/// Checks that every round of `rounds` is the one the rules and the seed
/// make of the rounds before it. A Swiss round's players are those it
/// seated (its games' players and its bye), since players may leave; an
/// arena wave's free players are its games' players and its waiting list.
pub fn check_rounds(
    rules: &EventRules,
    seed: &EventSeed,
    entrants: &[Entrant],
    rounds: &[RoundRecord],
) -> Result<(), Disagreement> {
    for (i, published) in rounds.iter().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let before = &rounds[..i];
        let seated: Vec<String> = published
            .games
            .iter()
            .flat_map(|g| g.seats.iter().cloned())
            .chain(published.bye.iter().cloned())
            .chain(published.unpaired.iter().cloned())
            .collect();
        let (expected, waiting) = match rules.format {
            Format::Arena => {
                let (round, waiting) = super::arena::arena(
                    rules.arena_pairing,
                    seed,
                    entrants,
                    &seated,
                    before,
                    number,
                );
                (round, waiting)
            }
            _ => (
                rules
                    .next_round(seed, entrants, &seated, before)
                    .ok_or(Disagreement::ExtraRound { round: number })?,
                Vec::new(),
            ),
        };
        let games: Vec<[String; 2]> = expected
            .games(rules.play)
            .into_iter()
            .map(|g| g.seats)
            .collect();
        let published_games: Vec<[String; 2]> =
            published.games.iter().map(|g| g.seats.clone()).collect();
        if games != published_games {
            return Err(Disagreement::Games {
                round: number,
                expected: games,
                published: published_games,
            });
        }
        if expected.bye != published.bye {
            return Err(Disagreement::Bye {
                round: number,
                expected: expected.bye,
                published: published.bye.clone(),
            });
        }
        if waiting != published.unpaired {
            return Err(Disagreement::Bye {
                round: number,
                expected: waiting.first().cloned(),
                published: published.unpaired.first().cloned(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::record::GameRecord;

    fn entrants(n: usize) -> Vec<Entrant> {
        (0..n)
            .map(|i| Entrant {
                name: format!("e{i}"),
                rating: 1500.0 + (i * 7 % 5) as f64,
            })
            .collect()
    }

    /// Runs an event to its end with the first seat winning every odd
    /// game and the rest drawn, as a host would.
    fn run(rules: &EventRules, seed: &EventSeed, entrants: &[Entrant]) -> Vec<RoundRecord> {
        let active: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
        let mut rounds = Vec::new();
        while let Some(round) = rules.next_round(seed, entrants, &active, &rounds) {
            let mut record = RoundRecord {
                games: round.pending(rules.play),
                bye: round.bye.clone(),
                unpaired: vec![],
            };
            for (i, g) in record.games.iter_mut().enumerate() {
                g.winners = Some(if i % 2 == 1 { vec![0] } else { vec![] });
            }
            rounds.push(record);
        }
        rounds
    }

    #[test]
    fn a_history_the_host_made_checks_and_any_change_is_caught() {
        let seed = EventSeed::new([11; 32]);
        let field = entrants(7);
        for rules in [
            EventRules {
                format: Format::RoundRobin,
                rounds: 1,
                play: Play::Single,
                arena_pairing: ArenaPairing::CURRENT,
            },
            EventRules {
                format: Format::Swiss,
                rounds: 3,
                play: Play::Duplicate { deals: 1 },
                arena_pairing: ArenaPairing::CURRENT,
            },
        ] {
            let rounds = run(&rules, &seed, &field);
            assert_eq!(Some(rounds.len() as u32), rules.total_rounds(field.len()));
            assert_eq!(check_rounds(&rules, &seed, &field, &rounds), Ok(()));
            // Turning a game round is caught.
            let mut swapped = rounds.clone();
            let g = &mut swapped[0].games[0];
            g.seats.swap(0, 1);
            assert!(check_rounds(&rules, &seed, &field, &swapped).is_err());
            let mut extra = rounds.clone();
            extra.push(RoundRecord::default());
            assert!(matches!(
                check_rounds(&rules, &seed, &field, &extra),
                Err(Disagreement::ExtraRound { .. })
            ));
        }
    }

    #[test]
    fn results_change_later_swiss_rounds_and_the_check_follows() {
        let seed = EventSeed::new([13; 32]);
        let field = entrants(8);
        let rules = EventRules {
            format: Format::Swiss,
            rounds: 3,
            play: Play::Single,
            arena_pairing: ArenaPairing::CURRENT,
        };
        let mut rounds = run(&rules, &seed, &field);
        // Flip a first-round result: round 2 as published no longer follows.
        let flipped: &mut GameRecord = &mut rounds[0].games[1];
        flipped.winners = Some(vec![1]);
        assert!(matches!(
            check_rounds(&rules, &seed, &field, &rounds),
            Err(Disagreement::Games { round: 2, .. })
        ));
    }
}
