//! A bot's series of matches (found by seeking or by accepting
//! challenges) and the summary it prints at the end.

use parlor_games::{Outcome, Seat};
use parlor_protocol::RoomId;
use serde::Serialize;

/// What a series of matches came to, printed as JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Matches played to their end (aborted ones included).
    pub games: u32,
    /// Won by the bot's seat (alone or with partners).
    pub wins: u32,
    /// Won by others.
    pub losses: u32,
    /// Nobody won.
    pub draws: u32,
    /// Closed without a result (a rated match aborted before a first move).
    pub aborted: u32,
    /// Every match's room, in the order played.
    pub rooms: Vec<RoomId>,
}

impl Summary {
    /// Counts the match in `room` that `seat` played and that ended with
    /// `outcome` (`None`: closed without one).
    pub fn record(&mut self, room: RoomId, seat: Seat, outcome: Option<Outcome>) {
        self.games += 1;
        match outcome {
            Some(Outcome::Win { winners }) if winners.contains(seat) => self.wins += 1,
            Some(Outcome::Win { .. }) => self.losses += 1,
            Some(Outcome::Draw) => self.draws += 1,
            None => self.aborted += 1,
        }
        self.rooms.push(room);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::SeatSet;
    use proptest::prelude::*;

    fn room(i: usize) -> RoomId {
        RoomId::new(format!("{i:012x}")).unwrap_or_else(|| unreachable!())
    }

    fn outcome(kind: u8, winner: u8) -> Option<Outcome> {
        match kind % 3 {
            0 => Some(Outcome::Win {
                winners: SeatSet::single(Seat(winner % 2)),
            }),
            1 => Some(Outcome::Draw),
            _ => None,
        }
    }

    proptest! {
        #[test]
        fn every_match_is_counted_once(results in prop::collection::vec((0u8..3, 0u8..2), 0..20)) {
            let mut s = Summary::default();
            for (i, (kind, winner)) in results.iter().enumerate() {
                s.record(room(i), Seat(0), outcome(*kind, *winner));
            }
            prop_assert_eq!(s.games as usize, results.len());
            prop_assert_eq!(s.wins + s.losses + s.draws + s.aborted, s.games);
            prop_assert_eq!(s.rooms.len(), results.len());
            let wins = results.iter().filter(|(k, w)| k % 3 == 0 && w % 2 == 0).count();
            prop_assert_eq!(s.wins as usize, wins);
        }
    }
}
