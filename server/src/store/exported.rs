//! A match whole, as it moves from one store to another (`parlor-server
//! export` / `import`): everything the store keeps of it, the deal's
//! secret half and each step's clocks included.

use parlor_games::{Outcome, Seat};
use parlor_protocol::{Closed, LogEntry};

use super::{MatchRecord, StoredSeat};

/// One match, header to end.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedMatch {
    /// Room, header (with the deal's server seed and salt), privacy and
    /// origin.
    pub record: MatchRecord,
    /// Who sits where.
    pub seats: Vec<(Seat, StoredSeat)>,
    /// Every step, in order.
    pub steps: Vec<ExportedStep>,
    /// How it ended, if it did.
    pub outcome: Option<Outcome>,
    /// Set when it closed without an outcome.
    pub closed: Option<Closed>,
}

impl ExportedMatch {
    /// Whether the match is over (it is not hosted again).
    pub fn finished(&self) -> bool {
        self.outcome.is_some() || self.closed.is_some()
    }
}

/// One step and the clocks after it (ms left per seat), if the match has
/// a clock.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedStep {
    /// The step.
    pub entry: LogEntry,
    /// The clocks after it.
    pub clocks: Option<Vec<u64>>,
}
