//! Players reporting players to the moderators: any signed-in account
//! files a report (`POST /api/reports`); moderators read the queue of
//! open reports and resolve each, dismissed or actioned, every resolution
//! an entry of the moderation log.
//!
//! - [`reason`]: the closed set of what a report says ([`ReportReason`]).
//! - [`resolution`]: how a moderator closed it ([`Resolution`]).
//! - [`filing`]: what a report must be to be filed, checked before the
//!   database is asked.
//! - [`store`]: the `reports` table: filing within the limits (counted
//!   from the table, so they hold on every node and in both databases),
//!   the queue, resolving.
//!
//! The limits: at most [`MAX_REPORTS_PER_HOUR`] reports by one reporter
//! in any [`REPORT_WINDOW_MS`], and one open report by a reporter about a
//! player at a time.

pub mod filing;
pub mod reason;
pub mod resolution;
pub mod store;

pub use filing::ReportAsk;
pub use reason::ReportReason;
pub use resolution::Resolution;
pub use store::{Report, ReportStatus, Reports};

/// Reports one account may file in any [`REPORT_WINDOW_MS`]: a player
/// who met several cheats in an evening can report each, while a flood
/// of reports (one account burying the queue, or harassing a rival with
/// it) is cut short after a handful.
pub const MAX_REPORTS_PER_HOUR: usize = 5;

/// The window [`MAX_REPORTS_PER_HOUR`] counts in: an hour.
pub const REPORT_WINDOW_MS: i64 = 3_600_000;

/// The most reports one read of the queue returns: a moderator's screen;
/// the rest are read with the cursor (`after` for the open queue,
/// `before` for all).
pub const REPORTS_PAGE: usize = 100;
