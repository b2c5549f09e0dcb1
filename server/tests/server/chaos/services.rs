//! The services the cluster runs on, all started by the test: a private
//! PostgreSQL cluster (`initdb`) and `redis-server` on loopback, and the
//! nodes of the real `parlor-server` binary; dropping them stops them all.

use std::ffi::OsString;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{LEASE, NODES};
use crate::common::live::{start_server, OwnedServer};
use parlor_server::testing::missing_service;

/// Where node `i` logs: `PARLOR_CHAOS_LOGS/node{i}.log` if that is set
/// (with `RUST_LOG`, e.g. `info`), else the test's stderr.
pub(crate) fn node_log(i: usize) -> Option<PathBuf> {
    let dir = std::env::var_os("PARLOR_CHAOS_LOGS")?;
    Some(PathBuf::from(dir).join(format!("node{i}.log")))
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The directory holding PostgreSQL's programs (Debian's
/// `/usr/lib/postgresql/VERSION/bin`, the newest), if any.
pub(crate) fn postgres_bin() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, b)| b)
}

pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A private PostgreSQL cluster in a directory of its own.
pub(crate) struct Postgres {
    pub(crate) bin: PathBuf,
    pub(crate) dir: PathBuf,
    pub(crate) port: u16,
    pub(crate) as_postgres: bool,
}

impl Postgres {
    pub(crate) fn tool(&self, name: &str) -> Command {
        let exe = self.bin.join(name);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        }
    }

    /// Makes the cluster in `dir` (owned by the `postgres` user when run
    /// as root: PostgreSQL refuses to run as root).
    pub(crate) fn init(bin: PathBuf, dir: PathBuf) -> Result<Postgres, String> {
        let as_postgres = is_root();
        if as_postgres {
            let id = |flag: &str| -> Result<u32, String> {
                let out = Command::new("id")
                    .args([flag, "postgres"])
                    .output()
                    .map_err(|e| e.to_string())?;
                String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .map_err(|_| "no postgres user to run PostgreSQL as".to_string())
            };
            std::os::unix::fs::chown(&dir, Some(id("-u")?), Some(id("-g")?))
                .map_err(|e| e.to_string())?;
        }
        let pg = Postgres {
            bin,
            dir,
            port: free_port(),
            as_postgres,
        };
        let out = pg
            .tool("initdb")
            .arg("-D")
            .arg(pg.dir.join("data"))
            .args(["-A", "trust", "-U", "parlor", "-E", "UTF8", "--no-sync"])
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        pg.start()?;
        Ok(pg)
    }

    /// Starts the server (fsync on: a stop `immediate` is then a crash it
    /// recovers from honestly).
    pub(crate) fn start(&self) -> Result<(), String> {
        let out = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("postgres.log"))
            .arg("-w")
            .arg("-o")
            .arg(format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=200",
                self.port,
                self.dir.display()
            ))
            .arg("start")
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "pg_ctl start failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    }

    /// Stops the server at once, as a crash would.
    pub(crate) fn stop_immediate(&self) {
        let _ = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    pub(crate) fn url(&self) -> String {
        format!("postgres://parlor@127.0.0.1:{}/postgres", self.port)
    }
}

/// A private `redis-server`, a child of this test.
pub(crate) struct Redis {
    pub(crate) port: u16,
    pub(crate) dir: PathBuf,
    pub(crate) child: Option<Child>,
}

impl Redis {
    pub(crate) fn start(&mut self) -> Result<(), String> {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run redis-server: {e}"))?;
        self.child = Some(child);
        let t0 = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if t0.elapsed() > Duration::from_secs(10) {
                return Err("redis-server did not listen".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    pub(crate) fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Redis {
    /// Also on a panic: an orphaned `redis-server` would hold the test's
    /// output open.
    fn drop(&mut self) {
        self.kill();
    }
}

/// One node of the cluster.
#[derive(Default)]
pub(crate) struct Node {
    pub(crate) child: Option<OwnedServer>,
    pub(crate) url: Option<String>,
    pub(crate) stopped: bool,
    /// How many times it was started.
    pub(crate) generation: usize,
}

/// Everything the test started; dropping it (also on a panic) kills the
/// nodes and stops the services.
pub(crate) struct Services {
    pub(crate) nodes: Vec<Node>,
    pub(crate) redis: Redis,
    pub(crate) pg: Postgres,
    pub(crate) bin: PathBuf,
    pub(crate) args: Vec<OsString>,
    pub(crate) dir: PathBuf,
}

impl Services {
    pub(crate) fn start_node(&mut self, i: usize) {
        let port_file = self.dir.join(format!("node{i}.addr"));
        let (child, url) = start_server(&self.bin, &self.args, &port_file, node_log(i).as_deref());
        let n = &mut self.nodes[i];
        n.child = Some(child);
        n.url = Some(url);
        n.stopped = false;
        n.generation += 1;
    }

    pub(crate) fn signal(&self, i: usize, sig: &str) {
        if let Some(c) = &self.nodes[i].child {
            let ok = Command::new("kill")
                .args([sig, &c.id().to_string()])
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "kill {sig} failed");
        }
    }

    pub(crate) fn kill_node(&mut self, i: usize) {
        let n = &mut self.nodes[i];
        n.url = None;
        // Killed and reaped as it is dropped.
        n.child = None;
    }

    /// The URLs of the nodes a client may connect to now (a paused node
    /// is left out, as a load balancer's health check would).
    pub(crate) fn live(&self) -> Vec<(usize, String)> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.stopped)
            .filter_map(|(i, n)| n.url.clone().map(|u| (i, u)))
            .collect()
    }
}

impl Drop for Services {
    fn drop(&mut self) {
        for i in 0..self.nodes.len() {
            if self.nodes[i].stopped {
                self.signal(i, "-CONT");
            }
            self.kill_node(i);
        }
        self.redis.kill();
        self.pg.stop_immediate();
    }
}

/// Starts the services and the nodes; `None` (after [`missing_service`])
/// if Redis or PostgreSQL is not installed.
pub(crate) fn start_services(dir: &Path) -> Option<Services> {
    let Some(bin) = postgres_bin() else {
        missing_service(
            "PostgreSQL",
            "no /usr/lib/postgresql/*/bin/initdb (Debian's postgresql package)",
        );
        return None;
    };
    if Command::new("redis-server")
        .arg("--version")
        .output()
        .is_err()
    {
        missing_service("Redis", "no redis-server on the PATH");
        return None;
    }
    let pg_dir = dir.join("pg");
    std::fs::create_dir(&pg_dir).unwrap();
    let pg = match Postgres::init(bin, pg_dir) {
        Ok(pg) => pg,
        Err(why) => {
            missing_service("PostgreSQL", &why);
            return None;
        }
    };
    let redis_dir = dir.join("redis");
    std::fs::create_dir(&redis_dir).unwrap();
    let mut redis = Redis {
        port: free_port(),
        dir: redis_dir,
        child: None,
    };
    if let Err(why) = redis.start() {
        pg.stop_immediate();
        missing_service("Redis", &why);
        return None;
    }
    let args: Vec<OsString> = vec![
        "--cluster".into(),
        pg.url().into(),
        "--bus".into(),
        redis.url().into(),
        "--lease-ms".into(),
        LEASE.as_millis().to_string().into(),
        // Every client comes from 127.0.0.1, as behind a proxy.
        "--connects-per-address".into(),
        "0".into(),
        "--rooms-per-address".into(),
        "0".into(),
        // The rated lane plays one pair of accounts again and again: the
        // cap on rated results between two accounts is off (it has a test
        // of its own).
        "--rated-pair-cap".into(),
        "0".into(),
    ];
    let mut s = Services {
        nodes: (0..NODES).map(|_| Node::default()).collect(),
        redis,
        pg,
        // `PARLOR_CHAOS_SERVER` runs a copy of the binary (repeated runs
        // of a build while the tree is rebuilt).
        bin: std::env::var_os("PARLOR_CHAOS_SERVER").map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_parlor-server")),
            PathBuf::from,
        ),
        args,
        dir: dir.to_path_buf(),
    };
    for i in 0..NODES {
        s.start_node(i);
    }
    Some(s)
}
