//! `GET /healthz`: whether this node can serve, from what it already
//! knows (its lease's last renewal, its writer's last commit), so that
//! a load balancer polling it often costs the database nothing.

use std::sync::Arc;

use crate::directory::Directory;

/// Whether a node can serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Health {
    /// It can; in cluster mode, under this node id.
    Serving {
        /// Its node id (cluster mode).
        node: Option<Arc<str>>,
    },
    /// It cannot, and why.
    NotServing(String),
}

/// How the node serving `directory` is doing.
pub fn health(directory: &Directory) -> Health {
    let store = directory.store();
    match store.health() {
        Ok(()) => Health::Serving {
            node: store.node_id(),
        },
        Err(why) => Health::NotServing(why),
    }
}
