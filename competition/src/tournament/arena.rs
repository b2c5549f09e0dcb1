//! Arena pairing: whoever is free is paired at once with someone near
//! their score and rating, never with the opponent of their last game.
//!
//! A wave pairs the players free at one moment: ranked by points (see
//! [`Format::game_points`]), then rating at the event's start, then the
//! wave's lot; the highest-ranked unpaired player meets the next free
//! player down the ranking who was not the last opponent of either; a
//! player with no such partner waits for the next wave. Seats as
//! [`SeatHistory::arrange`] says, the wave's number standing for the round.

use std::collections::HashMap;

use super::event_seed::EventSeed;
use super::format::Format;
use super::rating_order::by_rating;
use super::record::{Entrant, RoundRecord};
use super::round::Round;
use super::seats::SeatHistory;
use super::standings::points;

/// The pairs of wave `wave` (from 1) among the free players `free`
/// (entrants of the event), after the waves `rounds` before it; the
/// players left unpaired go in [`Round::bye`]'s stead to
/// [`RoundRecord::unpaired`] when the wave is recorded.
pub fn arena(
    seed: &EventSeed,
    entrants: &[Entrant],
    free: &[String],
    rounds: &[RoundRecord],
    wave: u32,
) -> (Round, Vec<String>) {
    let pts = points(Format::Arena, entrants, rounds);
    let mut last: HashMap<&str, &str> = HashMap::new();
    for game in rounds.iter().flat_map(|r| &r.games) {
        last.insert(&game.seats[0], &game.seats[1]);
        last.insert(&game.seats[1], &game.seats[0]);
    }
    let mut ranked: Vec<&Entrant> = entrants.iter().filter(|e| free.contains(&e.name)).collect();
    ranked.sort_by(|a, b| {
        let pa = pts.get(&a.name).copied().unwrap_or(0.0);
        let pb = pts.get(&b.name).copied().unwrap_or(0.0);
        pb.total_cmp(&pa).then_with(|| by_rating(seed, wave, a, b))
    });
    let history = SeatHistory::of(rounds);
    let mut taken = vec![false; ranked.len()];
    let mut round = Round::default();
    let mut waiting = Vec::new();
    for i in 0..ranked.len() {
        if taken[i] {
            continue;
        }
        let me = ranked[i].name.as_str();
        let partner = (i + 1..ranked.len()).find(|&j| {
            let other = ranked[j].name.as_str();
            !taken[j] && last.get(me) != Some(&other) && last.get(other) != Some(&me)
        });
        match partner {
            Some(j) => {
                taken[i] = true;
                taken[j] = true;
                round
                    .boards
                    .push(history.arrange(me, &ranked[j].name, wave));
            }
            None => waiting.push(me.to_owned()),
        }
    }
    (round, waiting)
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

    #[test]
    fn nobody_meets_their_last_opponent_and_the_rest_wait() {
        let seed = EventSeed::new([4; 32]);
        let entrants = field(3);
        let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
        let (first, waiting) = arena(&seed, &entrants, &names, &[], 1);
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
        let (second, waiting) = arena(&seed, &entrants, &names, &rounds, 2);
        assert_eq!(second.boards.len(), 1);
        let board = &second.boards[0];
        assert!(board.contains(&"a0".to_string()));
        assert_eq!(waiting.len(), 1);
        // Only the two who just met free: nobody is paired.
        let (third, waiting) = arena(&seed, &entrants, &[x.clone(), y.clone()], &rounds, 3);
        assert!(third.boards.is_empty());
        assert_eq!(waiting.len(), 2);
    }

    #[test]
    fn neighbours_in_score_meet() {
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
        let (wave, waiting) = arena(&seed, &entrants, &names, &rounds, 3);
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
