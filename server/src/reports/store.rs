//! The `reports` table: filing a report within the limits, the
//! moderators' queue, resolving one with its moderation-log entry in the
//! same transaction.
//!
//! The limits are counted from the table by the statement that files the
//! report (an `INSERT ... SELECT ... WHERE` the count and the open report
//! allow), so they hold on every node of a cluster and in both databases;
//! on PostgreSQL it runs under a lock on the reporter
//! ([`Beside::fetch_alone`]), so two requests at once cannot both pass.

use serde::Serialize;
use serde_json::json;

use super::filing::Checked;
use super::reason::ReportReason;
use super::resolution::Resolution;
use super::{MAX_REPORTS_PER_HOUR, REPORTS_PAGE, REPORT_WINDOW_MS};
use crate::accounts::name_key;
use crate::moderation::log::append_statement;
use crate::moderation::{ModAction, ModError, ModReason, NewEntry};
use crate::store::{Beside, Row, StoreError};

/// Which reports the queue lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportStatus {
    /// Open ones, oldest first (the queue to work through).
    Open,
    /// All, newest first (the record).
    All,
}

/// A report as moderators read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Its id.
    pub id: i64,
    /// When it was filed (ms since the epoch).
    pub at_ms: i64,
    /// Who filed it.
    pub reporter: String,
    /// Whom it reports.
    pub player: String,
    /// Why.
    pub reason: ReportReason,
    /// The room it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
    /// The reporter's words.
    pub text: String,
    /// How many open reports the player has now (this one included if
    /// open).
    pub player_open: i64,
    /// When it was resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_ms: Option<i64>,
    /// The moderator who resolved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
    /// How.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

/// The reports; cheap to clone.
#[derive(Clone, Debug)]
pub struct Reports(Beside);

/// `SELECT` of a report's columns (read by [`report`]) followed by
/// `$tail`, as one literal.
macro_rules! select_reports {
    ($tail:literal) => {
        concat!(
            "SELECT r.id, r.at_ms, r.reporter, r.player, r.reason, r.room, r.text, ",
            "(SELECT count(*) FROM reports o WHERE o.player_key = r.player_key ",
            "AND o.resolved_ms IS NULL), r.resolved_ms, r.resolved_by, r.resolution ",
            "FROM reports r ",
            $tail
        )
    };
}

impl Reports {
    /// The reports in the database beside the match log.
    pub fn new(beside: Beside) -> Self {
        Reports(beside)
    }

    /// Files a report by `reporter` about `player` (both as their owners
    /// spell them; `player` an existing account) at `now_ms`; its id, or
    /// why the limits refuse it.
    pub async fn file(
        &self,
        reporter: &str,
        player: &str,
        report: Checked,
        now_ms: i64,
    ) -> Result<i64, ModError> {
        let reporter_key = name_key(reporter);
        let player_key = name_key(player);
        let since = now_ms - REPORT_WINDOW_MS;
        let cap = i64::try_from(MAX_REPORTS_PER_HOUR).unwrap_or(i64::MAX);
        let rows = self
            .0
            .fetch_alone(
                &format!("report:{reporter_key}"),
                "INSERT INTO reports (at_ms, reporter_key, reporter, player_key, player, reason, \
                 room, text) \
                 SELECT $1, $2, $3, $4, $5, $6, $7, $8 \
                 WHERE (SELECT count(*) FROM reports WHERE reporter_key = $2 AND at_ms > $9) < $10 \
                 AND NOT EXISTS (SELECT 1 FROM reports WHERE reporter_key = $2 \
                 AND player_key = $4 AND resolved_ms IS NULL) \
                 RETURNING id",
                vec![
                    now_ms.into(),
                    reporter_key.clone().into(),
                    reporter.into(),
                    player_key.into(),
                    player.into(),
                    report.reason.as_str().into(),
                    report.room.map(|r| r.to_string()).into(),
                    report.text.into(),
                    since.into(),
                    cap.into(),
                ],
            )
            .await?;
        if let Some(row) = rows.first() {
            return Ok(row.int(0)?);
        }
        // Refused: say which limit.
        let row = self
            .0
            .fetch_opt(
                "SELECT count(*), min(at_ms) FROM reports WHERE reporter_key = $1 AND at_ms > $2",
                vec![reporter_key.into(), since.into()],
            )
            .await?
            .ok_or_else(|| StoreError::Corrupt("a count returned no row".into()))?;
        let count = usize::try_from(row.int(0)?).unwrap_or(usize::MAX);
        if count >= MAX_REPORTS_PER_HOUR {
            let oldest = row.opt_int(1)?.unwrap_or(now_ms);
            let wait_ms = u64::try_from(oldest + REPORT_WINDOW_MS - now_ms).unwrap_or(0);
            return Err(ModError::TooManyReports { count, wait_ms });
        }
        Err(ModError::DuplicateReport(player.to_owned()))
    }

    /// Up to [`REPORTS_PAGE`] reports: open ones oldest first after
    /// `cursor`, or all newest first before it.
    pub async fn list(
        &self,
        status: ReportStatus,
        cursor: Option<i64>,
    ) -> Result<Vec<Report>, StoreError> {
        let page = i64::try_from(REPORTS_PAGE).unwrap_or(i64::MAX);
        let rows = match status {
            ReportStatus::Open => {
                self.0
                    .fetch(
                        select_reports!(
                            "WHERE r.resolved_ms IS NULL AND r.id > $1 ORDER BY r.id LIMIT $2"
                        ),
                        vec![cursor.unwrap_or(0).into(), page.into()],
                    )
                    .await?
            }
            ReportStatus::All => {
                self.0
                    .fetch(
                        select_reports!("WHERE r.id < $1 ORDER BY r.id DESC LIMIT $2"),
                        vec![cursor.unwrap_or(i64::MAX).into(), page.into()],
                    )
                    .await?
            }
        };
        rows.iter().map(report).collect()
    }

    /// Resolves open report `id` by the moderator `by` at `now_ms`, and
    /// appends its entry to the moderation log in the same transaction;
    /// the entry's account (the reported player).
    pub async fn resolve(
        &self,
        id: i64,
        by: &str,
        (resolution, reason, text): (Resolution, ModReason, String),
        now_ms: i64,
    ) -> Result<String, ModError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT player, room FROM reports WHERE id = $1 AND resolved_ms IS NULL",
                vec![id.into()],
            )
            .await?
            .ok_or(ModError::ReportNotFound(id))?;
        let player = row.text(0)?;
        let entry = NewEntry {
            at_ms: now_ms,
            moderator: by.to_owned(),
            action: ModAction::Resolve,
            account: Some(player.clone()),
            room: row.opt_text(1)?,
            reason,
            text,
            detail: Some(json!({"report": id, "resolution": resolution.as_str()})),
        };
        let done = self
            .0
            .guarded(vec![
                (
                    "UPDATE reports SET resolved_ms = $2, resolved_by = $3, resolution = $4 \
                     WHERE id = $1 AND resolved_ms IS NULL",
                    vec![
                        id.into(),
                        now_ms.into(),
                        by.into(),
                        resolution.as_str().into(),
                    ],
                ),
                append_statement(entry),
            ])
            .await?;
        if done {
            Ok(player)
        } else {
            // Another moderator resolved it meanwhile.
            Err(ModError::ReportNotFound(id))
        }
    }
}

/// A report from its row, as [`select_reports!`] lists them.
fn report(r: &Row) -> Result<Report, StoreError> {
    let reason = r.text(4)?;
    let reason = ReportReason::parse(&reason)
        .ok_or_else(|| StoreError::Corrupt(format!("report reason {reason:?}")))?;
    let resolution = match r.opt_text(10)? {
        Some(s) => Some(
            Resolution::parse(&s)
                .ok_or_else(|| StoreError::Corrupt(format!("report resolution {s:?}")))?,
        ),
        None => None,
    };
    Ok(Report {
        id: r.int(0)?,
        at_ms: r.int(1)?,
        reporter: r.text(2)?,
        player: r.text(3)?,
        reason,
        room: r.opt_text(5)?,
        text: r.text(6)?,
        player_open: r.int(7)?,
        resolved_ms: r.opt_int(8)?,
        resolved_by: r.opt_text(9)?,
        resolution,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moderation::ModLog;
    use crate::store::{Store, StoreTask};

    /// A migrated throwaway database (the task keeps it open).
    fn db() -> (Beside, StoreTask) {
        let (store, task) = Store::throwaway().unwrap_or_else(|e| panic!("{e}"));
        (store.beside(), task)
    }

    fn checked(text: &str) -> Checked {
        Checked {
            reason: ReportReason::Cheat,
            room: None,
            text: text.into(),
        }
    }

    #[tokio::test]
    async fn the_sixth_report_in_an_hour_and_a_second_open_one_are_refused() {
        let (db, _task) = db();
        let reports = Reports::new(db);
        let t = 10 * REPORT_WINDOW_MS;
        let first = reports.file("Al", "P0", checked("a"), t).await;
        assert!(first.is_ok(), "{first:?}");
        assert!(matches!(
            reports.file("al", "p0", checked("again"), t + 1).await,
            Err(ModError::DuplicateReport(_))
        ));
        for i in 1..5 {
            let filed = reports
                .file("Al", &format!("P{i}"), checked(""), t + i)
                .await;
            assert!(filed.is_ok(), "{filed:?}");
        }
        match reports.file("Al", "P9", checked(""), t + 100).await {
            Err(ModError::TooManyReports { count, wait_ms }) => {
                assert_eq!(count, MAX_REPORTS_PER_HOUR);
                assert_eq!(wait_ms, u64::try_from(REPORT_WINDOW_MS - 100).unwrap_or(0));
            }
            other => panic!("{other:?}"),
        }
        // Another reporter is not counted with Al.
        assert!(reports.file("Bo", "P9", checked(""), t + 100).await.is_ok());
        // An hour after the first, one more may be filed.
        assert!(reports
            .file("Al", "P9", checked(""), t + REPORT_WINDOW_MS)
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn resolving_closes_the_report_once_and_logs_it() {
        let (beside, _task) = db();
        let reports = Reports::new(beside.clone());
        let id = reports
            .file("Al", "Cheater", checked("fast"), 1_000)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        reports
            .file("Bo", "Cheater", checked(""), 1_001)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let open = reports
            .list(ReportStatus::Open, None)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(open.len(), 2);
        assert_eq!(open[0].id, id);
        assert_eq!(open[0].player_open, 2);
        let how = (
            Resolution::Dismissed,
            ModReason::Other,
            "no sign".to_owned(),
        );
        let player = reports.resolve(id, "Mod", how.clone(), 2_000).await;
        assert_eq!(player.ok().as_deref(), Some("Cheater"));
        assert!(matches!(
            reports.resolve(id, "Mod", how, 2_001).await,
            Err(ModError::ReportNotFound(n)) if n == id
        ));
        let open = reports
            .list(ReportStatus::Open, None)
            .await
            .unwrap_or_default();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].player_open, 1);
        let all = reports
            .list(ReportStatus::All, None)
            .await
            .unwrap_or_default();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].resolution, Some(Resolution::Dismissed));
        assert_eq!(all[1].resolved_by.as_deref(), Some("Mod"));
        let log = ModLog::new(beside)
            .list(Some("cheater"), None, 10)
            .await
            .unwrap_or_default();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].action, ModAction::Resolve);
        assert_eq!(
            log[0].detail,
            Some(json!({"report": id, "resolution": "dismissed"}))
        );
        // Refiling after resolution is allowed: the old one is closed.
        assert!(reports
            .file("Al", "Cheater", checked(""), 3_000)
            .await
            .is_ok());
    }
}
