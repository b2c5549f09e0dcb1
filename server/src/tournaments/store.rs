//! Where events are kept: one row per event in the log's database beside
//! the match log (SQLite's file, or the cluster's PostgreSQL schema), its
//! whole state a JSON document with a version number. Every change is a
//! compare-and-set on that version, so two nodes (or two requests) that
//! change an event at once cannot lose either's change: the loser reads
//! again and retries. A lease column says which node runs the event's
//! rounds, as rooms have one.

use super::doc::EventDoc;
use crate::schedule::LeasedTable;
use crate::store::{Arg, Beside, Col, Kind, StoreError};

/// An event as stored: its document and the version to change it from.
#[derive(Clone, Debug)]
pub struct Stored {
    /// The document.
    pub doc: EventDoc,
    /// Its version.
    pub version: i64,
}

/// The events' leases: one per event row, taken by the tournaments' tick.
pub(super) const EVENTS: LeasedTable = LeasedTable {
    table: "events",
    key: "id",
};

/// The columns of a stored event as read: its document and version.
const STORED_KINDS: &[Kind] = &[Kind::Text, Kind::Int];

/// The events table (one row per tournament); cheap to clone.
#[derive(Clone, Debug)]
pub struct TournamentStore(Beside);

fn corrupt(e: serde_json::Error) -> StoreError {
    StoreError::Corrupt(format!("an event's document: {e}"))
}

fn encode(doc: &EventDoc) -> Result<String, StoreError> {
    serde_json::to_string(doc).map_err(corrupt)
}

/// A row read as [`STORED_KINDS`].
fn decode(row: &[Col]) -> Result<Stored, StoreError> {
    let (Some(text), Some(version)) = (row.first(), row.get(1)) else {
        return Err(StoreError::Corrupt(
            "an event's row lacks a column".to_owned(),
        ));
    };
    Ok(Stored {
        doc: serde_json::from_str(&text.text()).map_err(corrupt)?,
        version: version.int(),
    })
}

fn ms(n: u64) -> Arg {
    Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

impl TournamentStore {
    /// The table beside the log.
    pub fn new(backend: Beside) -> Self {
        TournamentStore(backend)
    }

    /// Stores a new event (version 1), made by the account whose name's
    /// key is `creator_key` from the address `creator_addr` (its key).
    pub async fn create(
        &self,
        doc: &EventDoc,
        creator_key: &str,
        creator_addr: Option<String>,
    ) -> Result<(), StoreError> {
        self.0
            .exec(
                "INSERT INTO events (id, status, starts_at_ms, created_ms, version, doc, \
                 creator_key, creator_addr) VALUES ($1, $2, $3, $4, 1, $5, $6, $7)",
                vec![
                    Arg::Text(doc.id.clone()),
                    Arg::Text(doc.status.as_str().to_owned()),
                    ms(doc.starts_at_ms),
                    ms(doc.created_ms),
                    Arg::Text(encode(doc)?),
                    Arg::Text(creator_key.to_owned()),
                    Arg::OptText(creator_addr),
                ],
            )
            .await
            .map(|_| ())
    }

    /// How many upcoming events the account `creator_key` made.
    pub async fn upcoming_by(&self, creator_key: &str) -> Result<u64, StoreError> {
        self.count(
            "SELECT COUNT(*) FROM events WHERE creator_key = $1 AND status = 'upcoming'",
            vec![Arg::Text(creator_key.to_owned())],
        )
        .await
    }

    /// How many events were made from the address `addr` (its key) since
    /// `since_ms`.
    pub async fn made_from(&self, addr: &str, since_ms: u64) -> Result<u64, StoreError> {
        self.count(
            "SELECT COUNT(*) FROM events WHERE creator_addr = $1 AND created_ms >= $2",
            vec![Arg::Text(addr.to_owned()), ms(since_ms)],
        )
        .await
    }

    async fn count(&self, sql: &'static str, args: Vec<Arg>) -> Result<u64, StoreError> {
        let rows = self.0.query(sql, args, &[Kind::Int]).await?;
        let n = rows.first().and_then(|r| r.first()).map_or(0, Col::int);
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The event `id`.
    pub async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT doc, version FROM events WHERE id = $1",
                vec![Arg::Text(id.to_owned())],
                STORED_KINDS,
            )
            .await?;
        rows.first().map(|r| decode(r)).transpose()
    }

    /// Replaces event `stored.doc.id`'s document if it is still at
    /// `stored.version`; whether it was.
    pub async fn update(&self, stored: &Stored) -> Result<bool, StoreError> {
        let changed = self
            .0
            .exec(
                "UPDATE events SET doc = $1, status = $2, version = version + 1 \
                 WHERE id = $3 AND version = $4",
                vec![
                    Arg::Text(encode(&stored.doc)?),
                    Arg::Text(stored.doc.status.as_str().to_owned()),
                    Arg::Text(stored.doc.id.clone()),
                    Arg::Int(stored.version),
                ],
            )
            .await?;
        Ok(changed == 1)
    }

    /// Events, newest start first: those with `status` in `statuses`, at
    /// most `limit`.
    pub async fn list(
        &self,
        statuses: &[&'static str],
        limit: usize,
    ) -> Result<Vec<Stored>, StoreError> {
        if statuses.is_empty() {
            return Ok(Vec::new());
        }
        // One placeholder per status (a list both databases read), then
        // the limit's.
        let marks: Vec<String> = (1..=statuses.len()).map(|i| format!("${i}")).collect();
        let limit_mark = statuses.len() + 1;
        let mut args: Vec<Arg> = statuses
            .iter()
            .map(|s| Arg::Text((*s).to_owned()))
            .collect();
        args.push(Arg::Int(i64::try_from(limit).unwrap_or(i64::MAX)));
        let rows = self
            .0
            .query(
                format!(
                    "SELECT doc, version FROM events WHERE status IN ({}) \
                     ORDER BY starts_at_ms DESC, id LIMIT ${limit_mark}",
                    marks.join(", ")
                ),
                args,
                STORED_KINDS,
            )
            .await?;
        rows.iter().map(|r| decode(r)).collect()
    }

    /// Ids of the events with work to do at `now_ms`: running ones, and
    /// upcoming ones due to start.
    pub async fn due(&self, now_ms: u64) -> Result<Vec<String>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT id FROM events WHERE status = 'running' \
                 OR (status = 'upcoming' AND starts_at_ms <= $1) ORDER BY id",
                vec![ms(now_ms)],
                &[Kind::Text],
            )
            .await?;
        Ok(rows
            .iter()
            .filter_map(|r| r.first())
            .map(Col::text)
            .collect())
    }
}
