//! Server processes the benchmark starts: Parlor itself or the relay.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// How long a started server may take to write its address.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// How often a signalled server is checked for having exited: fine
/// enough for exits that take a few milliseconds.
const EXIT_POLL: Duration = Duration::from_micros(200);

/// A server running as a child process, killed when dropped.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    /// Its process id, for `/proc`.
    pub pid: u32,
    /// Its WebSocket URL.
    pub url: String,
    _dir: TempDir,
}

impl ServerProcess {
    /// Starts `parlor-server` on 127.0.0.1, port 0, with a fresh SQLite
    /// database, or with `extra` arguments (`{run}` in them replaced by a
    /// name unique to this start) that name another store (`--cluster`).
    pub fn parlor(bin: &Path, extra: &[String]) -> Result<Self, String> {
        Self::node(bin, extra, &run_name())
    }

    /// Like [`ServerProcess::parlor`], with `{run}` replaced by `run`:
    /// the nodes of one cluster share it (and so their schema).
    pub fn node(bin: &Path, extra: &[String], run: &str) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
        let port_file = dir.path().join("addr");
        let mut cmd = Command::new(bin);
        cmd.arg("--bind")
            .arg("127.0.0.1:0")
            .arg("--port-file")
            .arg(&port_file)
            .env("RUST_LOG", "warn");
        if !extra
            .iter()
            .any(|a| a == "--cluster" || a.starts_with("--cluster="))
        {
            cmd.arg("--db").arg(dir.path().join("bench.db"));
        }
        cmd.args(extra.iter().map(|a| a.replace("{run}", run)));
        Self::spawn(cmd, dir, port_file)
    }

    /// Starts the bare relay (this binary's `relay` helper).
    pub fn relay(game_len: u64) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
        let port_file = dir.path().join("addr");
        let me = std::env::current_exe().map_err(|e| format!("own path: {e}"))?;
        let mut cmd = Command::new(me);
        cmd.arg("relay")
            .arg("--port-file")
            .arg(&port_file)
            .arg("--game-len")
            .arg(game_len.to_string());
        Self::spawn(cmd, dir, port_file)
    }

    fn spawn(mut cmd: Command, dir: TempDir, port_file: PathBuf) -> Result<Self, String> {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let pid = child.id();
        let mut proc = ServerProcess {
            child,
            pid,
            url: String::new(),
            _dir: dir,
        };
        let start = Instant::now();
        loop {
            if let Ok(addr) = std::fs::read_to_string(&port_file) {
                proc.url = format!("ws://{}", addr.trim());
                return Ok(proc);
            }
            if let Ok(Some(status)) = proc.child.try_wait() {
                return Err(format!("the server exited at start-up: {status}"));
            }
            if start.elapsed() > START_TIMEOUT {
                return Err("the server did not report its address".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl ServerProcess {
    /// Sends the server SIGTERM and waits, blocking, for it to exit.
    /// Returns the time from just before the signal to the exit, and
    /// whether it exited successfully; after `patience` it is killed and
    /// that is an error. The signal is sent with `kill(1)`: this crate
    /// forbids `unsafe`, and the millisecond `kill` takes to start counts
    /// in every measurement alike.
    pub fn terminate(&mut self, patience: Duration) -> Result<(Duration, bool), String> {
        let start = Instant::now();
        let sent = Command::new("kill")
            .arg("-TERM")
            .arg(self.pid.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run kill: {e}"))?;
        if !sent.success() {
            return Err(format!("kill -TERM {} failed: {sent}", self.pid));
        }
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Ok((start.elapsed(), status.success())),
                Ok(None) if start.elapsed() > patience => {
                    let _ = self.child.kill();
                    return Err(format!(
                        "the server did not exit within {} s of SIGTERM",
                        patience.as_secs()
                    ));
                }
                Ok(None) => std::thread::sleep(EXIT_POLL),
                Err(e) => return Err(format!("waiting for the server: {e}")),
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A name for one server start, unique on this machine: lower-case
/// letters, digits and `_` (usable as a schema name).
pub fn run_name() -> String {
    static STARTS: AtomicU32 = AtomicU32::new(0);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let n = STARTS.fetch_add(1, Ordering::Relaxed);
    format!("{}_{secs}_{n}", std::process::id())
}

/// The value of `flag` among server arguments (`--flag VALUE` or
/// `--flag=VALUE`), with `{run}` replaced by `run`.
pub fn flag_value(args: &[String], flag: &str, run: &str) -> Option<String> {
    let eq = format!("{flag}=");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == flag {
            return it.next().map(|v| v.replace("{run}", run));
        }
        if let Some(v) = a.strip_prefix(&eq) {
            return Some(v.replace("{run}", run));
        }
    }
    None
}

/// `parlor-server` next to this binary (both are built into the same
/// target directory).
pub fn default_server_bin() -> Option<PathBuf> {
    let me = std::env::current_exe().ok()?;
    let bin = me.parent()?.join("parlor-server");
    bin.exists().then_some(bin)
}
