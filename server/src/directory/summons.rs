//! Seating a session from outside it: a match found for its seek, a
//! challenge accepted, a rematch agreed. The session is told what
//! happened and then joins the room itself, as if it had asked, so that
//! it remembers the room (to detach from it at the end, to move to its
//! shard) exactly as for a `join` it sent.

use std::collections::HashMap;
use std::sync::Mutex;

use parlor_games::Seat;
use parlor_protocol::{RoomId, ServerMsg};
use tokio::sync::mpsc;

use super::{lock, Directory};
use crate::outbox::ConnId;

/// Summonses waiting for one session: a session is summoned a handful of
/// times in a row at most (its seeks are capped); beyond this it is not
/// reading and a summons is refused rather than queued without bound.
pub const SUMMONS_QUEUE: usize = 16;

/// A session asked to take a seat.
#[derive(Debug)]
pub struct Summons {
    /// What to tell the client first (`matched`, `challenge_ended`,
    /// `rematch_started`).
    pub notice: ServerMsg,
    /// The room.
    pub room: RoomId,
    /// The seat to take.
    pub seat: Seat,
    /// Built-in bots the session seats once it sits (a seek that waited
    /// for bots, a rematch with bots): seat and strategy.
    pub bots: Vec<(Seat, String)>,
}

/// The summons queue of every session that may be summoned.
#[derive(Default)]
pub(super) struct Summoning {
    queues: Mutex<HashMap<ConnId, mpsc::Sender<Summons>>>,
}

impl Directory {
    /// Lets connection `conn` be summoned: the receiver its session reads.
    pub fn listen(&self, conn: ConnId) -> mpsc::Receiver<Summons> {
        let (tx, rx) = mpsc::channel(SUMMONS_QUEUE);
        lock(&self.summoning.queues).insert(conn, tx);
        rx
    }

    /// Summons connection `conn` here; false if it cannot be (it closed,
    /// never listened, or does not read its queue). The caller then at
    /// least sends the notice, so that the client can join by itself.
    pub fn summon(&self, conn: ConnId, summons: Summons) -> Result<(), Box<Summons>> {
        let tx = lock(&self.summoning.queues).get(&conn).cloned();
        match tx {
            Some(tx) => tx.try_send(summons).map_err(|e| match e {
                mpsc::error::TrySendError::Full(s) | mpsc::error::TrySendError::Closed(s) => {
                    Box::new(s)
                }
            }),
            None => Err(Box::new(summons)),
        }
    }

    /// Summons `conn`, or failing that sends it the notice (with the room
    /// and seat in it, the client can join by itself).
    pub fn summon_or_tell(&self, conn: ConnId, summons: Summons) {
        if let Err(s) = self.summon(conn, summons) {
            if let Some(out) = self.sessions.outbox(conn) {
                out.send(&s.notice);
            }
        }
    }

    /// Forgets `conn`'s queue (it closed).
    pub(super) fn stop_listening(&self, conn: ConnId) {
        lock(&self.summoning.queues).remove(&conn);
    }
}
