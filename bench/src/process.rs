//! Server processes the benchmark starts: Parlor itself or the relay.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// How long a started server may take to write its address.
const START_TIMEOUT: Duration = Duration::from_secs(60);

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
        let run = run_name();
        cmd.args(extra.iter().map(|a| a.replace("{run}", &run)));
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

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A name for one server start, unique on this machine: lower-case
/// letters, digits and `_` (usable as a schema name).
fn run_name() -> String {
    static STARTS: AtomicU32 = AtomicU32::new(0);
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let n = STARTS.fetch_add(1, Ordering::Relaxed);
    format!("{}_{secs}_{n}", std::process::id())
}

/// `parlor-server` next to this binary (both are built into the same
/// target directory).
pub fn default_server_bin() -> Option<PathBuf> {
    let me = std::env::current_exe().ok()?;
    let bin = me.parent()?.join("parlor-server");
    bin.exists().then_some(bin)
}
