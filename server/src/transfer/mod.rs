//! Moving a single-node install into a cluster: `parlor-server export`
//! writes every match of a SQLite file as JSON lines (`format`), and
//! `parlor-server import` writes them into a cluster's PostgreSQL
//! database. They work as a pipe:
//!
//! ```text
//! parlor-server export --db parlor.db | parlor-server import --cluster postgres://...
//! ```
//!
//! An imported match keeps its room id, seats (with their resume
//! tokens), steps and `seq`s, and the deal's secret half; an unfinished
//! one has no owner, so the cluster's nodes claim and host it and its
//! players resume where they were. A room the cluster already has is
//! refused and left as it is, so running an import again changes nothing.

mod format;
mod lines;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use format::{MatchLine, Preamble, Trailer, VERSION};
pub use lines::MAX_LINE_BYTES;

use crate::store::{dump_sqlite, Loaded, Loader, StoreError};

/// Why an export or import stopped.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Reading or writing the stream failed.
    #[error("{0}")]
    Io(String),
    /// The stream is not an export this server reads.
    #[error("{0}")]
    Format(String),
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    /// Matches written.
    pub matches: usize,
    /// Of which unfinished.
    pub unfinished: usize,
}

/// One line of the export, as JSON.
fn line(v: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(format!("cannot encode a match: {e}")))
}

/// Writes every match of the SQLite file `db` to `out`, oldest first.
pub fn export(db: &Path, out: &mut impl Write) -> Result<Exported, TransferError> {
    let io = |e: std::io::Error| TransferError::Io(format!("cannot write the export: {e}"));
    let mut done = Exported::default();
    let mut failed = None;
    // The first line goes out with the first match (or at the end), so
    // that a file that cannot be read writes nothing.
    let mut started = false;
    let mut write = |text: String, out: &mut dyn Write| -> Result<(), std::io::Error> {
        if !started {
            started = true;
            let first = line(&Preamble {
                parlor_export: VERSION,
            })
            .map_err(std::io::Error::other)?;
            out.write_all(first.as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")
    };
    dump_sqlite(db, |m| {
        done.unfinished += usize::from(!m.finished());
        let text = line(&MatchLine::from(m))?;
        write(text, out).map_err(|e| {
            let why = format!("cannot write the export: {e}");
            failed = Some(why.clone());
            StoreError::Unavailable(why)
        })?;
        done.matches += 1;
        Ok(())
    })
    .map_err(|e| match failed.take() {
        Some(why) => TransferError::Io(why),
        None => TransferError::Store(e),
    })?;
    let end = line(&Trailer {
        parlor_export_end: done.matches,
    })?;
    write(end, out).map_err(io)?;
    out.flush().map_err(io)?;
    Ok(done)
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// Matches written.
    pub matches: usize,
    /// Of which unfinished (now orphans for the nodes to claim).
    pub unfinished: usize,
    /// Why each line that was not imported was not, naming the line.
    pub refused: Vec<String>,
}

/// Reads an export from `input` into the cluster database at `url`:
/// each match on its own, so that one refused (its room exists, its line
/// is malformed) leaves the rest to go on. `Err` only if the stream is
/// not an export at all, or the database cannot be reached.
pub async fn import(url: &str, input: impl BufRead) -> Result<Imported, TransferError> {
    let mut lines = lines::Lines::new(input);
    let preamble = match lines.next_line() {
        Some((_, Ok(text))) => serde_json::from_str::<Preamble>(&text).ok(),
        Some((_, Err(e))) => return Err(TransferError::Io(e)),
        None => None,
    };
    match preamble {
        Some(p) if p.parlor_export == VERSION => {}
        Some(p) => {
            return Err(TransferError::Format(format!(
                "line 1: an export of format {}, this server reads {VERSION}",
                p.parlor_export
            )))
        }
        None => {
            return Err(TransferError::Format(format!(
                "line 1: not a Parlor export (it starts with {{\"parlor_export\":{VERSION}}})"
            )))
        }
    }
    let mut loader = Loader::open(url).await?;
    let mut done = Imported::default();
    // Match lines read, and the count the last line gave.
    let (mut seen, mut end) = (0, None);
    while let Some((n, text)) = lines.next_line() {
        let text = match text {
            Ok(t) if t.trim().is_empty() => continue,
            Ok(t) => t,
            Err(e) => {
                seen += 1;
                done.refused.push(format!("line {n}: {e}"));
                continue;
            }
        };
        if let Ok(t) = serde_json::from_str::<Trailer>(&text) {
            end = Some((n, t.parlor_export_end));
            continue;
        }
        seen += 1;
        if let Some((at, _)) = end {
            done.refused.push(format!(
                "line {n}: comes after the export's last line (line {at}); it was not read"
            ));
            continue;
        }
        let parsed = serde_json::from_str::<MatchLine>(&text)
            .map_err(|e| format!("not a match: {e}"))
            .and_then(|line| {
                let room = line.room().clone();
                line.into_match().map_err(|e| format!("room {room}: {e}"))
            });
        let m = match parsed {
            Ok(m) => m,
            Err(why) => {
                done.refused.push(format!("line {n}: {why}"));
                continue;
            }
        };
        let room = m.record.room.clone();
        match loader.load(&m).await {
            Ok(Loaded::Stored) => {
                done.matches += 1;
                done.unfinished += usize::from(!m.finished());
            }
            Ok(Loaded::RoomExists) => done.refused.push(format!(
                "line {n}: room {room} already exists in the cluster; it was left as it is"
            )),
            Err(e) => done
                .refused
                .push(format!("line {n}: room {room} could not be stored: {e}")),
        }
    }
    match end {
        None => done.refused.push(format!(
            "the stream ended after {seen} matches without the export's last line: the export was cut short (did it fail?)"
        )),
        Some((at, count)) if count != seen => done.refused.push(format!(
            "line {at}: the export says it wrote {count} matches, {seen} were read"
        )),
        Some(_) => {}
    }
    Ok(done)
}

/// `parlor-server export` and `import`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Write every match of a single-node install (a SQLite file) as JSON
    /// lines, for `import`: headers, seats with their resume tokens,
    /// every move, and the deals' secrets. The file is only read; stop
    /// the server first all the same, since moves it accepts after the
    /// export are not in it.
    Export {
        /// The SQLite database to read.
        #[arg(long, default_value = "parlor.db")]
        db: PathBuf,
        /// Write here instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Read an export into a cluster's PostgreSQL database. Unfinished
    /// matches are hosted by the cluster's nodes, and their players resume
    /// with their tokens. A room the cluster has already is refused and
    /// left as it is (so an import can be run again); the exit status is
    /// non-zero if anything was refused.
    Import {
        /// The cluster's database, as given to `--cluster`.
        #[arg(long, value_name = "URL")]
        cluster: String,
        /// Read from here instead of standard input.
        #[arg(long = "in", value_name = "FILE")]
        input: Option<PathBuf>,
    },
}

impl Command {
    /// Runs the command, reporting on standard error.
    pub async fn run(self) -> ExitCode {
        match self {
            Command::Export { db, out } => {
                let written = match &out {
                    Some(path) => std::fs::File::create(path)
                        .map_err(|e| {
                            TransferError::Io(format!("cannot create {}: {e}", path.display()))
                        })
                        .and_then(|f| export(&db, &mut std::io::BufWriter::new(f))),
                    None => export(&db, &mut std::io::BufWriter::new(std::io::stdout().lock())),
                };
                match written {
                    Ok(e) => {
                        eprintln!(
                            "parlor-server: exported {} matches ({} unfinished) from {}",
                            e.matches,
                            e.unfinished,
                            db.display()
                        );
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("parlor-server: export failed: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
            Command::Import { cluster, input } => {
                let done = match &input {
                    Some(path) => match std::fs::File::open(path) {
                        Ok(f) => import(&cluster, std::io::BufReader::new(f)).await,
                        Err(e) => Err(TransferError::Io(format!(
                            "cannot open {}: {e}",
                            path.display()
                        ))),
                    },
                    None => import(&cluster, std::io::stdin().lock()).await,
                };
                match done {
                    Ok(done) => {
                        for why in &done.refused {
                            eprintln!("parlor-server: refused: {why}");
                        }
                        eprintln!(
                            "parlor-server: imported {} matches ({} unfinished, now claimable by the nodes); {} refused",
                            done.matches,
                            done.unfinished,
                            done.refused.len()
                        );
                        if done.refused.is_empty() {
                            ExitCode::SUCCESS
                        } else {
                            ExitCode::FAILURE
                        }
                    }
                    Err(e) => {
                        eprintln!("parlor-server: import failed: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
        }
    }
}
