//! Who is connected under which account: where a challenge, a
//! `your_turn` notice or a match found for an account's seek is sent.
//! Keyed by the account name's key (its lowercase form), so that any
//! spelling finds the account.

use std::collections::HashMap;
use std::sync::Mutex;

use parlor_protocol::ServerMsg;

use super::{lock, Directory};
use crate::outbox::{ConnId, Outbox};

/// The connections of each signed-in account here, and the reverse.
#[derive(Default)]
pub(super) struct Players {
    by_account: Mutex<HashMap<String, Vec<ConnId>>>,
    by_conn: Mutex<HashMap<ConnId, String>>,
}

impl Players {
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

    /// The open connections here of the account `key`.
    pub fn account_outboxes(&self, key: &str) -> Vec<Outbox> {
        self.players
            .conns(key)
            .into_iter()
            .filter_map(|c| self.sessions.outbox(c))
            .collect()
    }

    /// Whether the account `key` has a connection here.
    pub fn signed_in_here(&self, key: &str) -> bool {
        !self.account_outboxes(key).is_empty()
    }

    /// Sends `msg` to every connection of the account `key` here, but
    /// `except` one; how many got it.
    pub fn notify_account(&self, key: &str, msg: &ServerMsg, except: Option<ConnId>) -> usize {
        let outs = self.account_outboxes(key);
        let mut sent = 0;
        for out in outs.iter().filter(|o| Some(o.id()) != except) {
            out.send(msg);
            sent += 1;
        }
        sent
    }

    /// Forgets `conn`'s account (it closed).
    pub(super) fn sign_out(&self, conn: ConnId) {
        self.players.sign_out(conn);
    }
}
