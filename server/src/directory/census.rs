//! What this node reports of itself: how many rooms it hosts, by game
//! and state, and its health (for `/metrics` and `/healthz`, which take
//! these values, not the directory).

use parlor_games::GameKind;
use parlor_protocol::RoomStatus;

use super::{lock, Directory};
use crate::metrics::Health;

impl Directory {
    /// The rooms hosted, counted by game and state (pairs with no room
    /// are left out). Private rooms count too.
    pub fn census(&self) -> Vec<(GameKind, RoomStatus, usize)> {
        let mut counts: Vec<(GameKind, RoomStatus, usize)> = Vec::new();
        for entry in lock(&self.rooms).by_id.values() {
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

    /// Whether this node can serve (`/healthz`), known without a round
    /// trip to the database.
    pub fn health(&self) -> Health {
        let node = self.mode.shared().map(|s| s.node_id());
        crate::metrics::health(self.store.health(), node)
    }

    /// The metrics as Prometheus text (`/metrics`), with this node's rooms
    /// and lease; `None` if the recorder could not be installed.
    pub fn metrics_text(&self) -> Option<String> {
        let lease_held = self.mode.shared().map(|s| s.lease_held());
        crate::metrics::render(&self.census(), lease_held)
    }
}
