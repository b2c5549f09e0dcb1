//! The export format: JSON lines. The first line names the format and
//! its version (`{"parlor_export":1}`); each line after it is one match,
//! whole: header (with the deal's secret half, as the store keeps it),
//! seats with their resume tokens, every step with the clocks after it,
//! and how it ended. The last line says how many matches came before it
//! (`{"parlor_export_end":N}`), so that an import can tell a complete
//! export from one cut short (an export that failed midway in a pipe).

use std::net::IpAddr;

use parlor_games::{Outcome, Seat};
use parlor_protocol::{Closed, LogEntry, LoggedAction, MatchHeader, RoomId};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::store::{ExportedMatch, ExportedStep, MatchRecord, Origin, StoredSeat};

/// The format's version, in its first line. A reader refuses others.
pub const VERSION: u32 = 1;

/// The first line.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preamble {
    /// [`VERSION`].
    pub parlor_export: u32,
}

/// The last line.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trailer {
    /// How many match lines came before it.
    pub parlor_export_end: usize,
}

/// One match.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchLine {
    room: RoomId,
    header: MatchHeader,
    private: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    creator: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    creator_addr: Option<IpAddr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created_ms: Option<u64>,
    seats: Vec<SeatLine>,
    steps: Vec<StepLine>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    closed: Option<Closed>,
}

/// Who sits in a seat.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum SeatLine {
    Player {
        seat: u8,
        token: Uuid,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seed: Option<String>,
        /// Held by an account (absent in older exports: a guest's).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        account: bool,
    },
    Bot {
        seat: u8,
        strategy: String,
        /// The account it plays as (a ladder's anchor; absent otherwise
        /// and in older exports).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        account: Option<String>,
    },
}

/// One step.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepLine {
    seq: u64,
    seat: u8,
    action: LoggedAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clocks: Option<Vec<u64>>,
}

impl From<ExportedMatch> for MatchLine {
    fn from(m: ExportedMatch) -> MatchLine {
        let MatchRecord {
            room,
            header,
            private,
            origin,
        } = m.record;
        MatchLine {
            room,
            header,
            private,
            creator: origin.creator,
            creator_addr: origin.addr,
            created_ms: origin.created_ms,
            seats: m
                .seats
                .into_iter()
                .map(|(seat, who)| match who {
                    StoredSeat::Player {
                        token,
                        name,
                        client_seed,
                        account,
                    } => SeatLine::Player {
                        seat: seat.0,
                        token,
                        name,
                        client_seed,
                        account,
                    },
                    StoredSeat::Bot { strategy, account } => SeatLine::Bot {
                        seat: seat.0,
                        strategy,
                        account,
                    },
                })
                .collect(),
            steps: m
                .steps
                .into_iter()
                .map(|s| StepLine {
                    seq: s.entry.seq,
                    seat: s.entry.seat.0,
                    action: s.entry.action,
                    clocks: s.clocks,
                })
                .collect(),
            outcome: m.outcome,
            closed: m.closed,
        }
    }
}

impl MatchLine {
    /// Its room.
    pub fn room(&self) -> &RoomId {
        &self.room
    }

    /// The match, checked: seats within the header's, steps numbered
    /// from 0 without a gap, at most one of outcome and closed, and the
    /// steps replay from the header.
    pub fn into_match(self) -> Result<ExportedMatch, String> {
        let seats_in = self.header.seats;
        let mut seats = Vec::with_capacity(self.seats.len());
        for s in self.seats {
            let (seat, who) = match s {
                SeatLine::Player {
                    seat,
                    token,
                    name,
                    client_seed,
                    account,
                } => (
                    seat,
                    StoredSeat::Player {
                        token,
                        name,
                        client_seed,
                        account,
                    },
                ),
                SeatLine::Bot {
                    seat,
                    strategy,
                    account,
                } => (seat, StoredSeat::Bot { strategy, account }),
            };
            if seat >= seats_in || seats.iter().any(|(s, _): &(Seat, _)| s.0 == seat) {
                return Err(format!("seat {seat} is out of range or listed twice"));
            }
            seats.push((Seat(seat), who));
        }
        let mut steps = Vec::with_capacity(self.steps.len());
        for (i, s) in self.steps.into_iter().enumerate() {
            if s.seq != i as u64 {
                return Err(format!(
                    "step {i} has seq {}: steps run from 0 without gaps",
                    s.seq
                ));
            }
            if s.seat >= seats_in {
                return Err(format!("step {i} is by seat {}, out of range", s.seat));
            }
            steps.push(ExportedStep {
                entry: LogEntry {
                    seq: s.seq,
                    seat: Seat(s.seat),
                    action: s.action,
                },
                clocks: s.clocks,
            });
        }
        if self.outcome.is_some() && self.closed.is_some() {
            return Err("a match has an outcome or was closed, not both".into());
        }
        // What a node would do with it: a log that does not replay would
        // only fail there, once claimed.
        let entries: Vec<LogEntry> = steps.iter().map(|s| s.entry.clone()).collect();
        parlor_protocol::replay(&self.header, &entries)
            .map_err(|e| format!("its steps do not replay: {e}"))?;
        Ok(ExportedMatch {
            record: MatchRecord {
                room: self.room,
                header: self.header,
                private: self.private,
                origin: Origin {
                    creator: self.creator,
                    addr: self.creator_addr,
                    created_ms: self.created_ms,
                },
            },
            seats,
            steps,
            outcome: self.outcome,
            closed: self.closed,
        })
    }
}
