//! Reading every match out of a SQLite file, for `parlor-server export`:
//! on a connection of its own that only reads, so that the file is not
//! changed (and may be read while the server runs, in WAL mode).

use std::path::Path;

use parlor_games::Seat;
use parlor_protocol::{LogEntry, LoggedAction};
use rusqlite::params;

use super::super::exported::{ExportedMatch, ExportedStep};
use super::super::rows::from_json;
use super::queries::{header_from_row, seats, HEADER_COLUMNS};
use super::{connect, schema, StoreError};

/// Reads every match of the database at `path`, oldest first, handing
/// each to `each`; how many there were. The file must exist and have
/// this server's layout.
pub fn dump(
    path: &Path,
    mut each: impl FnMut(ExportedMatch) -> Result<(), StoreError>,
) -> Result<usize, StoreError> {
    if !path.is_file() {
        return Err(StoreError::Settings(format!(
            "{} is not a file",
            path.display()
        )));
    }
    let conn = connect::reader(path)?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version != schema::LAYOUT {
        return Err(StoreError::Settings(format!(
            "{} has layout {version}, this server reads {}: start this server once on it to bring it up to date",
            path.display(),
            schema::LAYOUT
        )));
    }
    // One read transaction: a consistent copy while a server writes.
    conn.execute_batch("BEGIN")?;
    let mut headers = conn.prepare(&format!("SELECT {HEADER_COLUMNS} FROM matches ORDER BY id"))?;
    let mut steps = conn
        .prepare("SELECT seq, seat, action, clocks FROM moves WHERE match_id = ?1 ORDER BY seq")?;
    let rows = headers.query_map([], header_from_row)?;
    let mut n = 0;
    for row in rows {
        let header = row?.decode()?;
        let seated = seats(&conn, header.key)?;
        let mut record = header.record;
        super::super::rows::fill_client_seeds(&mut record.header, &seated);
        let mut exported = Vec::new();
        let found = steps.query_map(params![header.key.id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, u8>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?;
        for step in found {
            let (seq, seat, action, clocks) = step?;
            exported.push(ExportedStep {
                entry: LogEntry {
                    seq: u64::try_from(seq)
                        .map_err(|_| StoreError::Corrupt(format!("seq {seq}")))?,
                    seat: Seat(seat),
                    action: from_json::<LoggedAction>(&action)?,
                },
                clocks: clocks.as_deref().map(from_json::<Vec<u64>>).transpose()?,
            });
        }
        each(ExportedMatch {
            record,
            seats: seated,
            steps: exported,
            outcome: header.outcome,
            closed: header.closed,
        })?;
        n += 1;
    }
    Ok(n)
}
