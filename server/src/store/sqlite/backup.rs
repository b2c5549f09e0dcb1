//! `parlor-server backup`: a consistent copy of a SQLite database while
//! the server runs, through SQLite's online backup API. The copy is taken
//! from one read snapshot (all pages in one step: in WAL mode a reader
//! never blocks the server's writer, and the snapshot is what the
//! database held at one commit), written to a new file readable by its
//! owner alone (it holds every password and token hash), and checked
//! (`PRAGMA integrity_check`, the layout) before the command says so.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::backup::StepResult;
use rusqlite::{Connection, OpenFlags};

use super::connect::DB_FILE_MODE;
use super::schema::LAYOUT;

/// How long the copy waits for a lock the server holds for a moment (a
/// checkpoint): the server's commits take milliseconds.
pub const BACKUP_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How many times a copy finding the database locked tries again, and how
/// long it waits between: the server holds a lock for milliseconds, so a
/// few seconds in all is ample.
pub const BACKUP_TRIES: u32 = 50;
/// See [`BACKUP_TRIES`].
pub const BACKUP_RETRY_WAIT: Duration = Duration::from_millis(100);

/// What a backup wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupDone {
    /// The copy.
    pub to: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its layout (`PRAGMA user_version`), the server's.
    pub layout: i64,
}

/// Copies the database at `db` to the new file `to` (refused if it
/// exists: a backup never overwrites); why not, for people.
pub fn backup(db: &Path, to: &Path) -> Result<BackupDone, String> {
    if !db.exists() {
        return Err(format!("{} does not exist", db.display()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, DB_FILE_MODE);
    options.open(to).map_err(|e| {
        format!(
            "cannot create {}: {e} (a backup never overwrites)",
            to.display()
        )
    })?;
    let copied = copy(db, to);
    if copied.is_err() {
        // Nothing half-written is left to be mistaken for a backup.
        let _ = std::fs::remove_file(to);
    }
    copied
}

fn copy(db: &Path, to: &Path) -> Result<BackupDone, String> {
    let fail = |what: &str, e: rusqlite::Error| format!("{what}: {e}");
    let src = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| fail(&format!("cannot open {}", db.display()), e))?;
    src.busy_timeout(BACKUP_BUSY_TIMEOUT)
        .map_err(|e| fail("busy timeout", e))?;
    let mut dst = Connection::open(to).map_err(|e| fail("cannot open the copy", e))?;
    {
        let b = rusqlite::backup::Backup::new(&src, &mut dst)
            .map_err(|e| fail("cannot start the copy", e))?;
        // -1: every page in one step, from one snapshot. A step that
        // finds a lock held for a moment is tried again.
        let mut tries = 0;
        loop {
            match b.step(-1).map_err(|e| fail("the copy failed", e))? {
                StepResult::Done => break,
                StepResult::More => continue,
                StepResult::Busy | StepResult::Locked if tries < BACKUP_TRIES => {
                    tries += 1;
                    std::thread::sleep(BACKUP_RETRY_WAIT);
                }
                _ => return Err("the database stayed locked; try again".into()),
            }
        }
    }
    let check: String = dst
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(|e| fail("cannot check the copy", e))?;
    if check != "ok" {
        return Err(format!("the copy does not check out: {check}"));
    }
    let layout: i64 = dst
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| fail("cannot read the copy's layout", e))?;
    if layout != LAYOUT {
        return Err(format!(
            "the database has layout {layout}, this server's is {LAYOUT}: back it up with the server that uses it"
        ));
    }
    drop(dst);
    let bytes = std::fs::metadata(to).map(|m| m.len()).unwrap_or(0);
    Ok(BackupDone {
        to: to.to_owned(),
        bytes,
        layout,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_copy_is_refused_over_an_existing_file_and_for_a_missing_database() {
        let dir = tempfile::tempdir().unwrap();
        let there = dir.path().join("there.db");
        std::fs::write(&there, b"keep me").unwrap();
        let missing = dir.path().join("missing.db");
        assert!(backup(&missing, &dir.path().join("x.db")).is_err());
        let src = dir.path().join("src.db");
        Connection::open(&src).unwrap();
        let err = backup(&src, &there).unwrap_err();
        assert!(err.contains("never overwrites"), "{err}");
        assert_eq!(std::fs::read(&there).unwrap(), b"keep me");
    }
}
