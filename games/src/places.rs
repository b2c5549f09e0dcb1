//! Places at the end of a match, for ratings: the winners share first
//! place (everyone, in a draw); the other seats follow in the order of a
//! measure the game defines (a Cribbage side's score, a Rummikub rack's
//! total), equal measures sharing a place, or all share second place
//! where the game defines none.

use crate::outcome::Outcome;
use crate::seat::Seat;

/// Each seat's place (1 is best) given the outcome and, for the seats
/// that did not win, `rank`: smaller is better, equal shares a place.
pub fn places_by<K: Ord>(outcome: Outcome, seats: u8, rank: impl Fn(Seat) -> K) -> Vec<u8> {
    let winners = match outcome {
        Outcome::Draw => return vec![1; usize::from(seats)],
        Outcome::Win { winners } => winners,
    };
    let losers: Vec<Seat> = (0..seats)
        .map(Seat)
        .filter(|s| !winners.contains(*s))
        .collect();
    (0..seats)
        .map(Seat)
        .map(|s| {
            if winners.contains(s) {
                return 1;
            }
            let mine = rank(s);
            let better = {
                let mut ahead: Vec<K> = losers
                    .iter()
                    .map(|&o| rank(o))
                    .filter(|k| *k < mine)
                    .collect();
                ahead.sort();
                ahead.dedup();
                ahead.len()
            };
            u8::try_from(2 + better).unwrap_or(u8::MAX)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeatSet;

    fn win(seats: &[u8]) -> Outcome {
        let mut w = SeatSet::EMPTY;
        for &s in seats {
            w.insert(Seat(s));
        }
        Outcome::Win { winners: w }
    }

    #[test]
    fn a_draw_places_everyone_first() {
        assert_eq!(places_by(Outcome::Draw, 3, |_| 0), vec![1, 1, 1]);
    }

    #[test]
    fn losers_follow_their_measure_and_equal_measures_share() {
        // Seat 1 won; seats 0, 2 and 3 have totals 30, 12 and 30.
        let totals = [30, 0, 12, 30];
        let p = places_by(win(&[1]), 4, |s| totals[s.index()]);
        assert_eq!(p, vec![3, 1, 2, 3]);
    }

    #[test]
    fn without_a_measure_every_loser_is_second() {
        assert_eq!(places_by(win(&[0, 2]), 4, |_| ()), vec![1, 2, 1, 2]);
    }
}
