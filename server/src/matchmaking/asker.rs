//! Who asks for an opponent: what the matchmaker keeps of a session.

use std::net::IpAddr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::pairing::Seeker;
use crate::outbox::ConnId;

/// A signed-in player's account, as matchmaking needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskerAccount {
    /// The name's key (lowercase): what identifies the account.
    pub key: String,
    /// The name as its owner spelled it.
    pub name: String,
    /// `human` or `bot`.
    pub kind: String,
}

/// A session asking to be matched.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Asker {
    /// Its connection (seeks and challenges end when it closes).
    pub conn: ConnId,
    /// Its resume token.
    pub token: Uuid,
    /// The name it plays under.
    pub name: Arc<str>,
    /// Its account; `None` for a guest.
    pub account: Option<AskerAccount>,
    /// Its address (already reduced to what per-address limits count).
    pub addr: IpAddr,
    /// The node its connection is on (see `Directory::node_name`).
    pub node: Arc<str>,
}

impl Asker {
    /// Who it is to the pairing function: a player never meets themself,
    /// whichever connections they seek from.
    pub fn seeker(&self) -> Seeker {
        match &self.account {
            Some(a) => Seeker::Account(a.key.clone()),
            None => Seeker::Guest(self.conn.0),
        }
    }
}
