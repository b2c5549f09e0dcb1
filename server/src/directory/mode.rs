//! How a node runs, decided once at start-up from its store and its bus:
//! the one place the directory asks "are we in cluster mode".

use std::sync::Arc;

use super::cluster::Cluster;
use crate::store::ClusterStore;

/// The three ways a node runs.
pub(super) enum Mode {
    /// SQLite: the only node; it hosts every unfinished match.
    Single,
    /// A shared database without a bus: the node hosts the rooms it owns
    /// (claiming orphans as other nodes stop or die); a client must reach
    /// the node that hosts its room.
    Shared(ClusterStore),
    /// A shared database and a bus: any node serves any room, forwarding
    /// commands and frames over the bus, and the lobby is the database's.
    Bus(ClusterStore, Arc<Cluster>),
}

impl Mode {
    /// The shared store, in either cluster mode.
    pub fn shared(&self) -> Option<&ClusterStore> {
        match self {
            Mode::Single => None,
            Mode::Shared(store) | Mode::Bus(store, _) => Some(store),
        }
    }

    /// The node's part of the cluster's directory, with a bus.
    pub fn bus(&self) -> Option<&Arc<Cluster>> {
        match self {
            Mode::Bus(_, cluster) => Some(cluster),
            Mode::Single | Mode::Shared(_) => None,
        }
    }
}
