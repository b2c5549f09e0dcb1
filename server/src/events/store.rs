//! Where events are kept: one row per event in the log's database beside
//! the match log (SQLite's file, or the cluster's PostgreSQL schema), its
//! whole state a JSON document with a version number. Every change is a
//! compare-and-set on that version, so two nodes (or two requests) that
//! change an event at once cannot lose either's change: the loser reads
//! again and retries. A lease column says which node runs the event's
//! rounds, as rooms have one.

use rusqlite::{params, OptionalExtension};

use super::doc::EventDoc;
use super::lease::LeasedTable;
use crate::store::{Beside, StoreError};

/// An event as stored: its document and the version to change it from.
#[derive(Clone, Debug)]
pub struct Stored {
    /// The document.
    pub doc: EventDoc,
    /// Its version.
    pub version: i64,
}

/// The events' leases: one per event row.
const EVENTS: LeasedTable = LeasedTable {
    table: "events",
    key: "id",
};

/// The events table; cheap to clone.
#[derive(Clone, Debug)]
pub struct EventStore(Beside);

fn corrupt(e: serde_json::Error) -> StoreError {
    StoreError::Corrupt(format!("an event's document: {e}"))
}

fn encode(doc: &EventDoc) -> Result<String, StoreError> {
    serde_json::to_string(doc).map_err(corrupt)
}

fn decode(text: &str, version: i64) -> Result<Stored, StoreError> {
    Ok(Stored {
        doc: serde_json::from_str(text).map_err(corrupt)?,
        version,
    })
}

impl EventStore {
    /// The table beside the log.
    pub fn new(backend: Beside) -> Self {
        EventStore(backend)
    }

    /// Stores a new event (version 1).
    pub async fn create(&self, doc: &EventDoc) -> Result<(), StoreError> {
        let text = encode(doc)?;
        let (id, status, starts) = (
            doc.id.clone(),
            doc.status.as_str(),
            i64::try_from(doc.starts_at_ms).unwrap_or(i64::MAX),
        );
        let created = i64::try_from(doc.created_ms).unwrap_or(i64::MAX);
        match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        "INSERT INTO events (id, status, starts_at_ms, created_ms, version, doc) \
                         VALUES (?1, ?2, ?3, ?4, 1, ?5)",
                        params![id, status, starts, created, text],
                    )
                })
                .await?;
            }
            Beside::Postgres(pool) => {
                Beside::pg_client(pool)
                    .await?
                    .execute(
                        "INSERT INTO events (id, status, starts_at_ms, created_ms, version, doc) \
                         VALUES ($1, $2, $3, $4, 1, $5)",
                        &[&id, &status, &starts, &created, &text],
                    )
                    .await?;
            }
        }
        Ok(())
    }

    /// The event `id`.
    pub async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        let id = id.to_owned();
        let row: Option<(String, i64)> = match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.query_row(
                        "SELECT doc, version FROM events WHERE id = ?1",
                        params![id],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()
                })
                .await?
            }
            Beside::Postgres(pool) => Beside::pg_client(pool)
                .await?
                .query_opt("SELECT doc, version FROM events WHERE id = $1", &[&id])
                .await?
                .map(|r| Ok::<_, tokio_postgres::Error>((r.try_get(0)?, r.try_get(1)?)))
                .transpose()?,
        };
        row.map(|(text, version)| decode(&text, version))
            .transpose()
    }

    /// Replaces event `stored.doc.id`'s document if it is still at
    /// `stored.version`; whether it was.
    pub async fn update(&self, stored: &Stored) -> Result<bool, StoreError> {
        let text = encode(&stored.doc)?;
        let (id, status, version) = (
            stored.doc.id.clone(),
            stored.doc.status.as_str(),
            stored.version,
        );
        let changed = match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        "UPDATE events SET doc = ?1, status = ?2, version = version + 1 \
                         WHERE id = ?3 AND version = ?4",
                        params![text, status, id, version],
                    )
                })
                .await?
            }
            Beside::Postgres(pool) => {
                let n = Beside::pg_client(pool)
                    .await?
                    .execute(
                        "UPDATE events SET doc = $1, status = $2, version = version + 1 \
                         WHERE id = $3 AND version = $4",
                        &[&text, &status, &id, &version],
                    )
                    .await?;
                usize::try_from(n).unwrap_or(0)
            }
        };
        Ok(changed == 1)
    }

    /// Events, newest start first: those with `status` in `statuses`, at
    /// most `limit`.
    pub async fn list(
        &self,
        statuses: &[&'static str],
        limit: usize,
    ) -> Result<Vec<Stored>, StoreError> {
        let statuses: Vec<String> = statuses.iter().map(|s| (*s).to_owned()).collect();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<(String, i64)> = match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    let marks = vec!["?"; statuses.len()].join(", ");
                    let mut st = c.prepare(&format!(
                        "SELECT doc, version FROM events WHERE status IN ({marks}) \
                         ORDER BY starts_at_ms DESC, id LIMIT {limit}"
                    ))?;
                    let rows = st.query_map(rusqlite::params_from_iter(statuses.iter()), |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?;
                    rows.collect()
                })
                .await?
            }
            Beside::Postgres(pool) => Beside::pg_client(pool)
                .await?
                .query(
                    "SELECT doc, version FROM events WHERE status = ANY($1) \
                     ORDER BY starts_at_ms DESC, id LIMIT $2",
                    &[&statuses, &limit],
                )
                .await?
                .into_iter()
                .map(|r| Ok::<_, tokio_postgres::Error>((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<_, _>>()?,
        };
        rows.iter().map(|(t, v)| decode(t, *v)).collect()
    }

    /// Ids of the events with work to do at `now_ms`: running ones, and
    /// upcoming ones due to start.
    pub async fn due(&self, now_ms: u64) -> Result<Vec<String>, StoreError> {
        let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
        let sql_lite = "SELECT id FROM events WHERE status = 'running' \
                        OR (status = 'upcoming' AND starts_at_ms <= ?1) ORDER BY id";
        let sql_pg = "SELECT id FROM events WHERE status = 'running' \
                      OR (status = 'upcoming' AND starts_at_ms <= $1) ORDER BY id";
        match &self.0 {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    let mut st = c.prepare(sql_lite)?;
                    let rows = st.query_map(params![now], |r| r.get(0))?;
                    rows.collect()
                })
                .await
            }
            Beside::Postgres(pool) => Ok(Beside::pg_client(pool)
                .await?
                .query(sql_pg, &[&now])
                .await?
                .into_iter()
                .map(|r| r.try_get(0))
                .collect::<Result<_, _>>()?),
        }
    }

    /// Takes (or keeps) the lease on event `id` for `node` until
    /// `until_ms`, unless another node holds one past `now_ms`; whether
    /// `node` holds it now.
    pub async fn lease(
        &self,
        id: &str,
        node: &str,
        now_ms: u64,
        until_ms: u64,
    ) -> Result<bool, StoreError> {
        EVENTS.take(&self.0, id, node, now_ms, until_ms).await
    }

    /// Gives up every event lease `node` holds (it is stopping).
    pub async fn release(&self, node: &str) -> Result<(), StoreError> {
        EVENTS.release_all(&self.0, node).await
    }
}
