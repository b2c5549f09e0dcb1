//! The connections a player's seat is shown on. A guest's seat has at
//! most one (a second place resuming its token takes it over); an
//! account's seat has one per tab, device or program of that account
//! that opened the room, each seeing the seat's view and free to move in
//! it (a move is applied once: the first to arrive, the rest are stale).

use parlor_protocol::{encode, ServerMsg};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::outbox::{ConnId, Outbox};

/// The connections a seat is shown on, in the order they came.
#[derive(Clone, Debug, Default)]
pub struct Attached(Vec<Outbox>);

impl Attached {
    /// Nobody connected (a seat restored, or held for an absent player).
    pub fn none() -> Self {
        Attached(Vec::new())
    }

    /// Only `out`, if there is one.
    pub fn only(out: Option<Outbox>) -> Self {
        Attached(out.into_iter().collect())
    }

    /// Adds `out` (once: a connection attached again stays one entry).
    pub fn add(&mut self, out: Outbox) {
        if !self.contains(out.id()) {
            self.0.push(out);
        }
    }

    /// Drops connection `conn`; whether it was attached.
    pub fn remove(&mut self, conn: ConnId) -> bool {
        let before = self.0.len();
        self.0.retain(|o| o.id() != conn);
        self.0.len() != before
    }

    /// Whether connection `conn` is attached.
    pub fn contains(&self, conn: ConnId) -> bool {
        self.0.iter().any(|o| o.id() == conn)
    }

    /// Whether no connection is attached.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether any attached connection is still open.
    pub fn connected(&self) -> bool {
        self.0.iter().any(Outbox::is_open)
    }

    /// The attached connections.
    pub fn iter(&self) -> impl Iterator<Item = &Outbox> + '_ {
        self.0.iter()
    }

    /// Queues a pre-encoded frame on every attached connection.
    pub fn send_text(&self, text: &Utf8Bytes) {
        for out in &self.0 {
            out.send_text(text.clone());
        }
    }

    /// Encodes `msg` once and queues it on every attached connection.
    pub fn send(&self, msg: &ServerMsg) {
        if !self.0.is_empty() {
            self.send_text(&Utf8Bytes::from(encode(msg)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_is_attached_once_and_leaves_alone() {
        let (a, mut a_in) = Outbox::new(ConnId(1));
        let (b, b_in) = Outbox::new(ConnId(2));
        let mut seat = Attached::only(Some(a.clone()));
        seat.add(a.clone());
        seat.add(b);
        let ids: Vec<ConnId> = seat.iter().map(Outbox::id).collect();
        assert_eq!(ids, vec![ConnId(1), ConnId(2)]);
        assert!(seat.connected());
        seat.send(&ServerMsg::error(
            parlor_protocol::ErrorCode::RequestMalformed,
            "x",
        ));
        let mut batch = Vec::new();
        a_in.take(10, &mut batch);
        assert_eq!(batch.len(), 1, "one frame for a connection attached twice");
        drop(b_in);
        assert!(seat.remove(ConnId(1)));
        assert!(!seat.remove(ConnId(1)));
        assert!(!seat.connected(), "the one left is closed");
        assert!(!seat.contains(ConnId(1)) && seat.contains(ConnId(2)));
        assert!(seat.remove(ConnId(2)) && seat.is_empty());
    }
}
