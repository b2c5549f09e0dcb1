//! Which connections signed in with which credential (an API token or a
//! browser session, by the hash the store keeps), so that when one ends
//! (revoked, logged out, the password changed, the account closed) its
//! connections are told `auth/revoked` and closed at once: here, and
//! through the bus on every other node.
//!
//! A connection is bound before its credential is checked at `hello`: a
//! credential that ends while the check runs then still finds it.

use std::collections::HashMap;
use std::sync::Mutex;

use parlor_protocol::{ErrorCode, ServerMsg};

use super::cluster::Envelope;
use super::{lock, Directory};
use crate::accounts::{EndConnections, TokenHash};
use crate::outbox::{ConnId, CLOSE_REVOKED};

/// The connections of each credential here (by its hash in hex), and the
/// reverse.
#[derive(Default)]
pub(super) struct Bound {
    by_credential: Mutex<HashMap<String, Vec<ConnId>>>,
    by_conn: Mutex<HashMap<ConnId, String>>,
}

impl Bound {
    fn bind(&self, conn: ConnId, hash: String) {
        if let Some(old) = lock(&self.by_conn).insert(conn, hash.clone()) {
            self.forget(conn, &old);
        }
        let mut by = lock(&self.by_credential);
        let conns = by.entry(hash).or_default();
        if !conns.contains(&conn) {
            conns.push(conn);
        }
    }

    pub(super) fn unbind(&self, conn: ConnId) {
        let Some(hash) = lock(&self.by_conn).remove(&conn) else {
            return;
        };
        self.forget(conn, &hash);
    }

    fn forget(&self, conn: ConnId, hash: &str) {
        let mut by = lock(&self.by_credential);
        if let Some(conns) = by.get_mut(hash) {
            conns.retain(|&c| c != conn);
            if conns.is_empty() {
                by.remove(hash);
            }
        }
    }

    fn conns(&self, hash: &str) -> Vec<ConnId> {
        lock(&self.by_credential)
            .get(hash)
            .cloned()
            .unwrap_or_default()
    }
}

impl Directory {
    /// Connection `conn` signs in with the token or session whose hash is
    /// `hash`: it is ended when that ends.
    pub fn bind_credential(&self, conn: ConnId, hash: TokenHash) {
        self.credentials.bind(conn, hash.to_hex());
    }

    /// Tells this node's connections made with any of `ended` (hashes in
    /// hex) `auth/revoked` and closes them (with code 4002).
    pub(super) fn end_credentials_here(&self, ended: &[String]) {
        for hash in ended {
            for conn in self.credentials.conns(hash) {
                let Some(out) = self.sessions.outbox(conn) else {
                    continue;
                };
                tracing::info!(conn = conn.0, "a connection's credential ended: closed");
                out.send(&ServerMsg::error(
                    ErrorCode::AuthRevoked,
                    "the token or session this connection signed in with has ended; sign in again",
                ));
                out.close(CLOSE_REVOKED, ErrorCode::AuthRevoked);
            }
        }
    }
}

impl EndConnections for Directory {
    fn credentials_ended(&self, ended: &[TokenHash]) {
        if ended.is_empty() {
            return;
        }
        let ended: Vec<String> = ended.iter().map(TokenHash::to_hex).collect();
        self.end_credentials_here(&ended);
        if let Some(cluster) = self.mode.bus() {
            cluster.announce(Envelope::CredentialsEnded {
                gw: cluster.me().to_string(),
                hashes: ended,
            });
        }
    }
}
