//! What a store's writer is asked to do: the jobs every backend's writer
//! takes from its queue, each with the channel its answer goes back on.

use parlor_games::{Outcome, Seat};
use parlor_protocol::Closed;

use super::ratings::RatedEnd;
use super::{MatchKey, MatchRecord, Reply, Step, StoreError, StoredSeat, Turn};

/// A write, and where its answer goes.
pub(super) enum WriteJob {
    Create(Box<MatchRecord>, Reply<MatchKey>),
    Seat(MatchKey, Seat, Option<StoredSeat>, Reply<()>),
    Close(MatchKey, Closed, Reply<()>),
    /// Whose turn it is now (a match starting); steps carry theirs.
    Turn(MatchKey, Turn, Reply<()>),
    Append {
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
        /// Recorded only for rooms that read it back (see [`Turn`]).
        turn: Option<Turn>,
        reply: Reply<()>,
    },
    /// A rated match's final step: stored with its outcome, the ledger's
    /// next line and the players' new ratings, all in one transaction;
    /// answered with the line.
    Rated {
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Outcome,
        end: Box<RatedEnd>,
        reply: Reply<parlor_competition::LedgerLine>,
    },
    /// Voids an account's rated results (up to a batch of them): the
    /// correction lines and corrected ratings in one transaction; answered
    /// with the lines (none: nothing was left to void).
    Void(
        Box<super::VoidJob>,
        Reply<Vec<parlor_competition::LedgerLine>>,
    ),
}

impl WriteJob {
    /// Answers a job that could not run with `err`. A caller that stopped
    /// waiting has nothing to be told.
    pub(super) fn refuse(self, err: StoreError) {
        match self {
            WriteJob::Create(_, r) => drop(r.send(Err(err))),
            WriteJob::Seat(_, _, _, r) => drop(r.send(Err(err))),
            WriteJob::Close(_, _, r) => drop(r.send(Err(err))),
            WriteJob::Turn(_, _, r) => drop(r.send(Err(err))),
            WriteJob::Append { reply, .. } => drop(reply.send(Err(err))),
            WriteJob::Rated { reply, .. } => drop(reply.send(Err(err))),
            WriteJob::Void(_, reply) => drop(reply.send(Err(err))),
        }
    }
}
