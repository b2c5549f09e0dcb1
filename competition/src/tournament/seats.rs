//! Who sits first: seat balance for events that do not play duplicate.

use std::collections::HashMap;

use super::record::RoundRecord;

/// Each player's seat history over `rounds`: (games at seat 0 less games
/// at seat 1, the seat of their latest game).
#[derive(Clone, Debug, Default)]
pub struct SeatHistory(HashMap<String, (i32, Option<usize>)>);

impl SeatHistory {
    /// The history of every game in `rounds`, played or pending.
    pub fn of(rounds: &[RoundRecord]) -> Self {
        let mut map: HashMap<String, (i32, Option<usize>)> = HashMap::new();
        for game in rounds.iter().flat_map(|r| &r.games) {
            for (seat, name) in game.seats.iter().enumerate() {
                let entry = map.entry(name.clone()).or_default();
                entry.0 += if seat == 0 { 1 } else { -1 };
                entry.1 = Some(seat);
            }
        }
        SeatHistory(map)
    }

    fn get(&self, name: &str) -> (i32, Option<usize>) {
        self.0.get(name).copied().unwrap_or_default()
    }

    /// The two players by seat, `higher` being the better ranked: the
    /// one who sat first less often goes first; else the one who sat
    /// second last time; else the better ranked in odd rounds and the
    /// other in even ones.
    pub fn arrange(&self, higher: &str, lower: &str, round: u32) -> [String; 2] {
        let (hb, hl) = self.get(higher);
        let (lb, ll) = self.get(lower);
        let higher_first = if hb != lb {
            hb < lb
        } else {
            match (hl, ll) {
                (Some(1), Some(0)) => true,
                (Some(0), Some(1)) => false,
                _ => round % 2 == 1,
            }
        };
        if higher_first {
            [higher.to_owned(), lower.to_owned()]
        } else {
            [lower.to_owned(), higher.to_owned()]
        }
    }
}
