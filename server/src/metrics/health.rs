//! `GET /healthz`: whether this node can serve, from what it already
//! knows (its lease's last renewal, its writer's last commit), so that
//! a load balancer polling it often costs the database nothing.

use std::sync::Arc;

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

/// How a node is doing, from its store's health (why it cannot serve,
/// if it cannot) and, in cluster mode, its node id.
pub fn health(store: Result<(), String>, node: Option<Arc<str>>) -> Health {
    match store {
        Ok(()) => Health::Serving { node },
        Err(why) => Health::NotServing(why),
    }
}
