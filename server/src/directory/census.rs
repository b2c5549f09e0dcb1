//! How many rooms this node hosts, by game and state (for `/metrics`).

use parlor_games::GameKind;
use parlor_protocol::RoomStatus;

use super::{lock, Directory};

impl Directory {
    /// The listed rooms hosted, counted by game and state (pairs with no
    /// room are left out). Private rooms are left out too: whoever reads
    /// the metrics must not learn that one was made, started or ended.
    pub fn census(&self) -> Vec<(GameKind, RoomStatus, usize)> {
        let mut counts: Vec<(GameKind, RoomStatus, usize)> = Vec::new();
        for entry in lock(&self.rooms).by_id.values().filter(|e| !e.private) {
            let (game, state) = (entry.summary.game, entry.summary.status);
            match counts
                .iter_mut()
                .find(|(g, s, _)| *g == game && *s == state)
            {
                Some((_, _, n)) => *n += 1,
                None => counts.push((game, state, 1)),
            }
        }
        counts
    }
}
