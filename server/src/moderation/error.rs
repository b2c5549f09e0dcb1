//! Why a moderation, report or block request was refused. Domain errors
//! only: `api/error.rs` maps each to an HTTP status and an error code.

use crate::store::StoreError;

/// Why a moderation, report or block request was refused.
#[derive(Debug, thiserror::Error)]
pub enum ModError {
    /// The account may not moderate (or, for granting roles, is no admin).
    #[error("only moderators may do that")]
    Forbidden,
    /// The target is an admin, or a moderator and the actor no admin.
    #[error("a moderator cannot act on an admin, nor on another moderator unless an admin")]
    Protected,
    /// The moderation request is not valid; why.
    #[error("{0}")]
    BadRequest(String),
    /// No account has the name.
    #[error("no account is named {0}")]
    UnknownAccount(String),
    /// No open report has the id.
    #[error("no open report has id {0}")]
    ReportNotFound(i64),
    /// The reporter made as many reports in the last hour as count;
    /// the oldest of them leaves the hour in `wait_ms`.
    #[error("you have made {count} reports in the last hour; try later")]
    TooManyReports {
        /// The reports made in the last hour.
        count: usize,
        /// In how many milliseconds one more may be made.
        wait_ms: u64,
    },
    /// The reporter has an open report about the player already.
    #[error("you have an open report about {0} already")]
    DuplicateReport(String),
    /// The report is not valid; why.
    #[error("{0}")]
    BadReport(String),
    /// The block is not valid; why.
    #[error("{0}")]
    BadBlock(String),
    /// The account is banned from play for now; the message says until
    /// when and why.
    #[error("{message}")]
    PlayBanned {
        /// "you may not play until ...: why".
        message: String,
        /// In how many ms the ban ends (at least one).
        retry_after_ms: u64,
    },
    /// The database failed.
    #[error("the moderation records could not be reached: {0}")]
    Store(#[from] StoreError),
}

impl From<crate::blocks::BlockError> for ModError {
    fn from(e: crate::blocks::BlockError) -> Self {
        match e {
            crate::blocks::BlockError::Refused(why) => ModError::BadBlock(why),
            crate::blocks::BlockError::Store(e) => ModError::Store(e),
        }
    }
}
