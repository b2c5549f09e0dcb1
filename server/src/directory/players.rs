//! Who is connected under which account: where a challenge, a
//! `your_turn` notice or a match found for an account's seek is sent.
//! Keyed by the account name's key (its lowercase form), so that any
//! spelling finds the account.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use parlor_protocol::ServerMsg;

use super::cluster::Envelope;
use super::{lock, Directory, Summons};
use crate::outbox::{ConnId, Outbox};

/// What a node calls itself when it runs alone.
pub const LOCAL_NODE: &str = "local";

/// The connections of each signed-in account here, and the reverse.
#[derive(Default)]
pub(super) struct Players {
    by_account: Mutex<HashMap<String, Vec<ConnId>>>,
    by_conn: Mutex<HashMap<ConnId, String>>,
}

impl Players {
    /// The account connection `conn` is signed in as, if any.
    fn key_of(&self, conn: ConnId) -> Option<String> {
        lock(&self.by_conn).get(&conn).cloned()
    }

    fn sign_in(&self, key: &str, conn: ConnId) {
        lock(&self.by_conn).insert(conn, key.to_owned());
        let mut accounts = lock(&self.by_account);
        let conns = accounts.entry(key.to_owned()).or_default();
        if !conns.contains(&conn) {
            conns.push(conn);
        }
    }

    fn sign_out(&self, conn: ConnId) {
        let Some(key) = lock(&self.by_conn).remove(&conn) else {
            return;
        };
        let mut accounts = lock(&self.by_account);
        if let Some(conns) = accounts.get_mut(&key) {
            conns.retain(|&c| c != conn);
            if conns.is_empty() {
                accounts.remove(&key);
            }
        }
    }

    fn conns(&self, key: &str) -> Vec<ConnId> {
        lock(&self.by_account).get(key).cloned().unwrap_or_default()
    }
}

impl Directory {
    /// Connection `conn` acts as the account whose name's key is `key`.
    pub fn sign_in(&self, key: &str, conn: ConnId) {
        self.players.sign_in(key, conn);
    }

    /// Whether connection `conn` here is signed in as the account `key`:
    /// an account's connections never take each other's place.
    pub fn signed_in_as(&self, conn: ConnId, key: &str) -> bool {
        self.players.key_of(conn).as_deref() == Some(key)
    }

    /// The open connections here of the account `key`.
    pub fn account_outboxes(&self, key: &str) -> Vec<Outbox> {
        self.players
            .conns(key)
            .into_iter()
            .filter_map(|c| self.sessions.outbox(c))
            .collect()
    }

    /// Every connection here acting as an account, with the account's
    /// key.
    pub fn signed_in(&self) -> Vec<(String, ConnId)> {
        lock(&self.players.by_conn)
            .iter()
            .map(|(&c, k)| (k.clone(), c))
            .collect()
    }

    /// Whether the account `key` has a connection here.
    pub fn signed_in_here(&self, key: &str) -> bool {
        !self.account_outboxes(key).is_empty()
    }

    /// Sends `msg` to every connection of the account `key`, on every
    /// node, but `except` one here.
    pub fn notify_account(&self, key: &str, msg: &ServerMsg, except: &[ConnId]) {
        self.notify_account_here(key, msg, except);
        if let Some(cluster) = self.mode.bus() {
            cluster.announce(Envelope::Account {
                gw: cluster.me().to_string(),
                key: key.to_owned(),
                msg: msg.clone(),
            });
        }
    }

    /// [`Directory::notify_account`] for this node's connections only.
    pub(super) fn notify_account_here(&self, key: &str, msg: &ServerMsg, except: &[ConnId]) {
        for out in self.account_outboxes(key) {
            if !except.contains(&out.id()) {
                out.send(msg);
            }
        }
    }

    /// This node's name among the cluster's (`local` alone): where its
    /// connections are found.
    pub fn node_name(&self) -> Arc<str> {
        match self.mode.bus() {
            Some(cluster) => Arc::clone(cluster.me()),
            None => Arc::from(LOCAL_NODE),
        }
    }

    /// Sends `msg` to connection `conn` of node `node`.
    pub fn tell_at(&self, node: &str, conn: ConnId, msg: &ServerMsg) {
        match self.mode.bus() {
            Some(cluster) if **cluster.me() != *node => cluster.announce(Envelope::Tell {
                gw: node.to_owned(),
                conn: conn.0,
                msg: msg.clone(),
            }),
            _ => {
                if let Some(out) = self.sessions.outbox(conn) {
                    out.send(msg);
                }
            }
        }
    }

    /// Summons connection `conn` of node `node` (see
    /// [`Directory::summon_or_tell`]).
    pub fn summon_at(&self, node: &str, conn: ConnId, summons: Summons) {
        match self.mode.bus() {
            Some(cluster) if **cluster.me() != *node => cluster.announce(Envelope::Summon {
                gw: node.to_owned(),
                conn: conn.0,
                notice: summons.notice,
                room: summons.room,
                seat: summons.seat,
                bots: summons.bots,
            }),
            _ => self.summon_or_tell(conn, summons),
        }
    }

    /// Summons the member a room knows by connection `conn`: a local
    /// connection, or a stand-in for another node's (the summons then
    /// goes to that node).
    pub fn summon_member(&self, conn: ConnId, summons: Summons) {
        let remote = self.mode.bus().and_then(|c| c.remote_of(conn));
        match remote {
            Some((gw, remote_conn)) => self.summon_at(&gw, ConnId(remote_conn), summons),
            None => self.summon_or_tell(conn, summons),
        }
    }

    /// Tells every node that seekers were placed (cluster mode).
    pub fn announce_placed(&self) {
        if let Some(cluster) = self.mode.bus() {
            cluster.announce(Envelope::Placed);
        }
    }

    /// Woken when a node announced placed seekers.
    pub fn placed(&self) -> &tokio::sync::Notify {
        &self.placed
    }

    /// The cluster's shared database pool, in cluster mode with a bus
    /// (where matchmaking keeps its books).
    pub fn cluster_pool(&self) -> Option<deadpool_postgres::Pool> {
        self.mode.bus().and(self.store.beside().postgres_pool())
    }

    /// Forgets `conn`'s account (it closed).
    pub(super) fn sign_out(&self, conn: ConnId) {
        self.players.sign_out(conn);
    }
}
