//! A write job as the writer's batch takes it apart: what it writes
//! (`Payload`, encoded into statements by `batch`) and where its answer
//! goes once the batch is committed (`Answer`).

use parlor_games::{Outcome, Seat};
use parlor_protocol::Closed;
use tokio_postgres::Row;

use super::super::job::WriteJob;
use super::super::{MatchKey, MatchRecord, Reply, Step, StoreError, StoredSeat, Turn};

/// What a job writes.
pub(super) enum Payload {
    Create(Box<MatchRecord>),
    Seat(MatchKey, Seat, Option<StoredSeat>),
    Close(MatchKey, Closed),
    Turn(MatchKey, Turn),
    Append {
        key: MatchKey,
        step: Step,
        clocks: Option<Vec<u64>>,
        outcome: Option<Outcome>,
        turn: Option<Turn>,
    },
}

/// Where a job's answer goes.
pub(super) enum Answer {
    Unit(Reply<()>),
    Key(Reply<MatchKey>),
}

/// A job's payload and answer; `Err` gives back a job a batch does not
/// run (a rated end runs as a transaction of its own, see `ratings`).
pub(super) fn split(job: WriteJob) -> Result<(Payload, Answer), Box<WriteJob>> {
    Ok(match job {
        WriteJob::Create(rec, r) => (Payload::Create(rec), Answer::Key(r)),
        WriteJob::Seat(key, seat, who, r) => (Payload::Seat(key, seat, who), Answer::Unit(r)),
        WriteJob::Close(key, why, r) => (Payload::Close(key, why), Answer::Unit(r)),
        WriteJob::Turn(key, turn, r) => (Payload::Turn(key, turn), Answer::Unit(r)),
        WriteJob::Append {
            key,
            step,
            clocks,
            outcome,
            turn,
            reply,
        } => (
            Payload::Append {
                key,
                step,
                clocks,
                outcome,
                turn,
            },
            Answer::Unit(reply),
        ),
        own @ (WriteJob::Rated { .. } | WriteJob::Void(..)) => return Err(Box::new(own)),
    })
}

impl Answer {
    /// Sends a job's result: for a new match, the number in its row.
    pub(super) fn send(self, res: Result<Vec<Row>, StoreError>) {
        // A caller that stopped waiting has nothing to be told.
        match self {
            Answer::Unit(r) => drop(r.send(res.map(|_| ()))),
            Answer::Key(r) => {
                let key = res.and_then(|rows| {
                    let row = rows
                        .first()
                        .ok_or_else(|| StoreError::Corrupt("a new match has no id".into()))?;
                    Ok(MatchKey::new(row.try_get(0)?))
                });
                drop(r.send(key));
            }
        }
    }
}
