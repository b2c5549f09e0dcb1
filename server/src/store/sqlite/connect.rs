//! Where the database lives, and how each of the store's connections to
//! it is opened.
//!
//! `Store::open(None, ..)` (tests, throwaway servers) uses a temporary
//! file rather than an in-memory database: SQLite has no in-memory
//! database that several connections can share in WAL mode. A
//! shared-cache memory database locks whole tables, so a reader in the
//! middle of a read makes the writer's next insert fail ("database table
//! is locked"); the `memdb` VFS has no WAL, so a commit waits for every
//! read. Only WAL on a file lets reads run beside the writer, and a
//! throwaway database takes the same code paths as a real one. Its files
//! are unlinked as soon as every connection has them open (see
//! [`Throwaway::unlink`]), so they vanish with the process however it ends.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use uuid::Uuid;

use super::{schema, StoreError, Sync};

/// Size the write-ahead log is cut back to after a checkpoint, if a burst
/// made it grow beyond: a few seconds of peak load, so it is rarely regrown.
pub(super) const WAL_SIZE_LIMIT_BYTES: i64 = 64 * 1024 * 1024;

/// Page size of new databases. 2 KiB halves the log written per commit
/// against SQLite's 4 KiB default, while rows of up to ~480 bytes (every
/// move of the hosted games but the largest Rummikub rearrangements) still
/// fit in a page of the `WITHOUT ROWID` tables.
const PAGE_SIZE: i64 = 2048;

/// A database file made for one store, in the system's temporary
/// directory. Its names are removed by [`Throwaway::unlink`] or, where
/// open files cannot be removed, when it is dropped (after the store's
/// connections are closed).
#[derive(Debug)]
pub(super) struct Throwaway(PathBuf);

impl Throwaway {
    /// A fresh name; the file is created by the first connection.
    pub(super) fn new() -> Throwaway {
        Throwaway::new_in(&std::env::temp_dir())
    }

    fn new_in(dir: &Path) -> Throwaway {
        Throwaway(dir.join(format!("parlor-throwaway-{}.db", Uuid::new_v4())))
    }

    pub(super) fn path(&self) -> &Path {
        &self.0
    }

    /// Removes the names of the database, its log and its shared memory,
    /// once every connection has read the database (and so holds all
    /// three open). In WAL mode SQLite reads and writes through the open
    /// files alone, and the system frees them when the last connection
    /// closes, even if the process is killed. Where an open file cannot
    /// be removed (Windows), the names stay until the drop.
    pub(super) fn unlink(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut name = self.0.clone().into_os_string();
            name.push(suffix);
            match std::fs::remove_file(&name) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    tracing::debug!(file = ?name, error = %e, "cannot remove a throwaway database")
                }
            }
        }
    }
}

impl Drop for Throwaway {
    fn drop(&mut self) {
        self.unlink();
    }
}

/// Opens the writer's connection, sets it up and brings the database to
/// the current layout. `sync: None`: a throwaway database, never synced
/// (nothing in it outlives the store).
pub(super) fn writer(path: &Path, sync: Option<Sync>) -> Result<Connection, StoreError> {
    create_private(path)?;
    let mut conn = Connection::open(path)?;
    // Set before anything is written (a database keeps the page size
    // it was created with): a commit writes whole pages to the log, and
    // a move's row is a few dozen bytes, so smaller pages mean less
    // log to write, checksum, sync and checkpoint per move.
    conn.pragma_update(None, "page_size", PAGE_SIZE)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", sync_level(sync))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Checkpoints are run by the checkpoint thread (see `checkpoint`).
    conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT_BYTES)?;
    schema::prepare(&mut conn)?;
    Ok(conn)
}

/// The permissions of a database file this server creates: its owner's
/// alone. The file holds every password hash, token hash and resume
/// token; SQLite makes the `-wal` and `-shm` files with the main file's
/// permissions, so they are private too.
#[cfg(unix)]
pub const DB_FILE_MODE: u32 = 0o600;

/// Creates the database file at `path`, empty and readable by its owner
/// alone, unless it exists (SQLite would otherwise create it with the
/// process's default permissions, usually readable by every local user).
/// An existing file keeps its permissions, with a warning if others may
/// read it: the operator chose them.
fn create_private(path: &Path) -> Result<(), StoreError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, DB_FILE_MODE);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(path).map(|m| m.permissions().mode());
                if mode.is_ok_and(|m| m & 0o077 != 0) {
                    tracing::warn!(file = ?path, "the database file may be read by other users; it holds password and token hashes (chmod 600 it)");
                }
            }
            Ok(())
        }
        Err(e) => Err(StoreError::Unavailable(format!(
            "cannot create the database file {}: {e}",
            path.display()
        ))),
    }
}

/// A reader's connection: read-only, so no read job can write, and in WAL
/// mode (which the writer set) it reads committed data while the writer
/// writes. Opened after the writer's, which created the log.
pub(super) fn reader(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    touch(&conn)?;
    Ok(conn)
}

/// The checkpointer's connection, syncing like the writer's (`sync` as
/// in [`writer`]): a checkpoint syncs the log and the database file
/// unless `synchronous` is off.
pub(super) fn checkpointer(path: &Path, sync: Option<Sync>) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    conn.pragma_update(None, "synchronous", sync_level(sync))?;
    touch(&conn)?;
    Ok(conn)
}

/// SQLite's `synchronous` level for `sync` (`None`: a throwaway database).
fn sync_level(sync: Option<Sync>) -> &'static str {
    match sync {
        Some(Sync::Normal) => "NORMAL",
        Some(Sync::Full) => "FULL",
        None => "OFF",
    }
}

/// Reads the database once: SQLite opens a connection's files lazily, and
/// [`Throwaway::unlink`] needs them open. A reader that cannot read also
/// fails here, at start-up, rather than on a client's first request.
fn touch(conn: &Connection) -> Result<(), StoreError> {
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    // Test helpers fail the test by panicking.
    #![allow(clippy::panic)]

    use super::*;

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// What `Throwaway::unlink` relies on: once unlinked, the database
    /// leaves nothing in its directory, yet keeps taking commits that
    /// readers opened before see, across checkpoints that restart the log.
    #[test]
    fn an_unlinked_throwaway_database_keeps_working_and_leaves_no_file() {
        let dir = ok(tempfile::tempdir());
        let t = Throwaway::new_in(dir.path());
        let w = ok(writer(t.path(), None));
        let r = ok(reader(t.path()));
        let c = ok(checkpointer(t.path(), None));
        t.unlink();
        assert_eq!(ok(std::fs::read_dir(dir.path())).count(), 0, "no file left");
        let count = |conn: &Connection| -> i64 {
            ok(conn.query_row("SELECT count(*) FROM matches", [], |row| row.get(0)))
        };
        for i in 0..200 {
            ok(w.execute(
                "INSERT INTO matches (room, game, options, seats, seed, private) VALUES (?1, 'nimrod', '{}', 2, 0, 0)",
                [format!("room{i:08}")],
            ));
            if i % 50 == 49 {
                ok(c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())));
                ok(w.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())));
            }
        }
        assert_eq!(count(&r), 200);
        drop((w, r, c));
        drop(t);
        assert_eq!(ok(std::fs::read_dir(dir.path())).count(), 0);
    }

    /// The database, its log and its shared memory are their owner's
    /// alone, whatever the process's umask lets files be by default.
    #[cfg(unix)]
    #[test]
    fn a_new_database_and_its_log_are_readable_by_their_owner_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("parlor.db");
        let w = ok(writer(&path, Some(Sync::Normal)));
        ok(w.execute_batch("INSERT INTO accounts (name, name_key, kind, password, created_ms) VALUES ('a', 'a', 'human', 'x', 0)"));
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.clone().into_os_string();
            name.push(suffix);
            let mode = ok(std::fs::metadata(&name)).permissions().mode() & 0o777;
            assert_eq!(mode, DB_FILE_MODE, "{suffix}: {mode:o}");
        }
    }
}
