//! Standings: points from the games played, a tie-break, and the order
//! best first.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::format::Format;
use super::record::{Entrant, RoundRecord};

/// One player's line in the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Standing {
    /// The player.
    pub name: String,
    /// Points (see [`Format::game_points`] and [`Format::bye_points`]).
    pub points: f64,
    /// The format's tie-break ([`Format::tiebreak_name`]).
    pub tiebreak: f64,
    /// Games finished.
    pub games: u32,
}

/// Each entrant's points after `rounds` (finished games and byes).
pub fn points(
    format: Format,
    entrants: &[Entrant],
    rounds: &[RoundRecord],
) -> HashMap<String, f64> {
    let mut points: HashMap<String, f64> = entrants.iter().map(|e| (e.name.clone(), 0.0)).collect();
    let mut streak: HashMap<&str, u32> = HashMap::new();
    for round in rounds {
        if let Some(bye) = &round.bye {
            *points.entry(bye.clone()).or_default() += format.bye_points();
        }
        for game in &round.games {
            for (seat, name) in game.seats.iter().enumerate() {
                let Some(score) = game.score(seat) else {
                    continue;
                };
                let run = streak.entry(name).or_default();
                *points.entry(name.clone()).or_default() += format.game_points(score, *run);
                *run = if score == 1.0 { *run + 1 } else { 0 };
            }
        }
    }
    points
}

/// The standings after `rounds`, best first: by points, then the
/// tie-break, then name (byte order).
pub fn standings(format: Format, entrants: &[Entrant], rounds: &[RoundRecord]) -> Vec<Standing> {
    let points = points(format, entrants, rounds);
    let mut table: Vec<Standing> = entrants
        .iter()
        .map(|e| Standing {
            name: e.name.clone(),
            points: points.get(&e.name).copied().unwrap_or(0.0),
            tiebreak: 0.0,
            games: 0,
        })
        .collect();
    let at: HashMap<String, usize> = table
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    for game in rounds.iter().flat_map(|r| &r.games) {
        for (seat, name) in game.seats.iter().enumerate() {
            let (Some(score), Some(&i)) = (game.score(seat), at.get(name)) else {
                continue;
            };
            let theirs = points.get(game.opponent(seat)).copied().unwrap_or(0.0);
            table[i].games += 1;
            table[i].tiebreak += match format {
                Format::RoundRobin => score * theirs,
                Format::Swiss | Format::Arena => theirs,
            };
        }
    }
    table.sort_by(best_first);
    table
}

fn best_first(a: &Standing, b: &Standing) -> Ordering {
    b.points
        .total_cmp(&a.points)
        .then(b.tiebreak.total_cmp(&a.tiebreak))
        .then(a.name.cmp(&b.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::record::GameRecord;

    fn entrant(name: &str) -> Entrant {
        Entrant {
            name: name.into(),
            rating: 1500.0,
        }
    }

    fn game(a: &str, b: &str, winners: &[u8]) -> GameRecord {
        GameRecord {
            seats: [a.into(), b.into()],
            winners: Some(winners.to_vec()),
        }
    }

    #[test]
    fn a_small_round_robin_counted_by_hand() {
        // a beats b, a draws c, c beats b; b-c also drawn in a second game.
        let entrants: Vec<_> = ["a", "b", "c"].map(entrant).into();
        let rounds = vec![
            RoundRecord {
                games: vec![game("a", "b", &[0])],
                bye: Some("c".into()),
                unpaired: vec![],
            },
            RoundRecord {
                games: vec![game("c", "a", &[]), game("b", "c", &[1])],
                bye: None,
                unpaired: vec![],
            },
        ];
        let table = standings(Format::RoundRobin, &entrants, &rounds);
        // Points: a 1.5, c 1.5, b 0. SB: a = 1*0 + 0.5*1.5 = 0.75;
        // c = 0.5*1.5 + 1*0 = 0.75; tie broken by name.
        let names: Vec<&str> = table.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "c", "b"]);
        assert_eq!(table[0].points, 1.5);
        assert_eq!(table[0].tiebreak, 0.75);
        assert_eq!(table[1].tiebreak, 0.75);
        assert_eq!(table[2].points, 0.0);
        assert_eq!(table[2].games, 2);
    }

    #[test]
    fn swiss_byes_score_and_buchholz_sums_opponents() {
        let entrants: Vec<_> = ["a", "b", "c"].map(entrant).into();
        let rounds = vec![RoundRecord {
            games: vec![game("a", "b", &[1])],
            bye: Some("c".into()),
            unpaired: vec![],
        }];
        let table = standings(Format::Swiss, &entrants, &rounds);
        let get = |n: &str| table.iter().find(|s| s.name == n).cloned();
        assert_eq!(get("c").map(|s| (s.points, s.games)), Some((1.0, 0)));
        assert_eq!(get("b").map(|s| s.points), Some(1.0));
        // b's Buchholz is a's points (0), a's is b's (1).
        assert_eq!(get("a").map(|s| s.tiebreak), Some(1.0));
        assert_eq!(get("b").map(|s| s.tiebreak), Some(0.0));
    }

    #[test]
    fn pending_games_count_for_nothing() {
        let entrants: Vec<_> = ["a", "b"].map(entrant).into();
        let rounds = vec![RoundRecord {
            games: vec![GameRecord::pending(["a".into(), "b".into()])],
            bye: None,
            unpaired: vec![],
        }];
        let table = standings(Format::Swiss, &entrants, &rounds);
        assert!(table.iter().all(|s| s.points == 0.0 && s.games == 0));
    }

    #[test]
    fn an_arena_streak_doubles_until_it_breaks() {
        let entrants: Vec<_> = ["a", "b"].map(entrant).into();
        let wins = |n: usize| {
            (0..n)
                .map(|_| RoundRecord {
                    games: vec![game("a", "b", &[0])],
                    bye: None,
                    unpaired: vec![],
                })
                .collect::<Vec<_>>()
        };
        let mut rounds = wins(4);
        rounds.push(RoundRecord {
            games: vec![game("a", "b", &[])],
            bye: None,
            unpaired: vec![],
        });
        rounds.extend(wins(1));
        let p = points(Format::Arena, &entrants, &rounds);
        // 2 + 2 + 4 + 4, a draw on fire 2, then a fresh win 2.
        assert_eq!(p.get("a"), Some(&16.0));
        // b's draw after four losses: 1.
        assert_eq!(p.get("b"), Some(&1.0));
    }
}
