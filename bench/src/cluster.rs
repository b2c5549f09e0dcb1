//! Figures from every process a run costs: the nodes, the PostgreSQL
//! backends serving them, PostgreSQL's own helper processes and
//! `redis-server` (CPU from `/proc`), the nodes' `/metrics` (bus
//! publishes, moves accepted, store commits) and PostgreSQL's statistics
//! views (rows written), each read at both ends of the measured window.

use std::collections::{HashMap, HashSet};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::conn::{loopback_address, loopback_target, tcp_from};
use crate::metrics::round;
use crate::procfs;

/// Longest wait for one node's `/metrics` or one statistics query: a
/// node that cannot answer in this long leaves its figures out.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Largest `/metrics` reply read (a node's is a few KiB).
const MAX_METRICS_BYTES: u64 = 4 << 20;

/// PostgreSQL's port when its URL names none.
const DEFAULT_PG_PORT: u16 = 5432;

/// Redis's port when its URL names none.
const DEFAULT_REDIS_PORT: u16 = 6379;

/// The schema a Parlor node uses when its URL's `search_path` names none.
const DEFAULT_SCHEMA: &str = "parlor";

/// The TCP state "listening" in `/proc/net/tcp`.
const TCP_LISTEN: u8 = 0x0A;

/// Metrics summed over the nodes (every label set of each).
const NODE_METRICS: [&str; 3] = [
    "parlor_bus_publishes_total",
    "parlor_moves_accepted_total",
    "parlor_store_commit_seconds_count",
];

/// What to watch.
#[derive(Debug, Clone, Default)]
pub struct Probe {
    /// The nodes' processes (empty when they could not be found).
    pub node_pids: Vec<u32>,
    /// The nodes' game ports, which also answer `/metrics`.
    pub node_addrs: Vec<SocketAddrV4>,
    /// The PostgreSQL the nodes use, if any.
    pub postgres: Option<String>,
    /// The port of the Redis the nodes' bus uses, if any.
    pub redis_port: Option<u16>,
}

/// Everything read at one end of the window.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// CPU seconds of each node.
    nodes: HashMap<u32, f64>,
    /// CPU seconds of each PostgreSQL backend serving a node.
    pg_backends: HashMap<u32, f64>,
    /// CPU seconds of each of PostgreSQL's own processes (WAL writer,
    /// checkpointer, autovacuum...): shared by every database user.
    pg_aux: HashMap<u32, f64>,
    /// CPU seconds of `redis-server`.
    redis: HashMap<u32, f64>,
    /// The node metrics, summed over the nodes (absent: not read).
    metrics: HashMap<&'static str, f64>,
    /// Nodes whose `/metrics` answered.
    metrics_nodes: usize,
    /// PostgreSQL's statistics.
    pg: Option<PgStats>,
}

/// PostgreSQL's counters.
#[derive(Debug, Clone, Copy)]
struct PgStats {
    /// `pg_stat_database.xact_commit` of the database (every user's).
    xact_commit: i64,
    /// `pg_stat_database.tup_inserted` of the database (every user's).
    db_tup_inserted: i64,
    /// `pg_stat_database.deadlocks` of the database (every user's).
    deadlocks: i64,
    /// Rows inserted into the nodes' schema (`pg_stat_user_tables`).
    schema_inserted: i64,
    /// Rows updated in the nodes' schema.
    schema_updated: i64,
}

impl Probe {
    /// Reads every figure now.
    pub async fn snapshot(&self) -> Snapshot {
        let mut snap = Snapshot::default();
        for &pid in &self.node_pids {
            if let Some(c) = procfs::cpu_seconds(pid) {
                snap.nodes.insert(pid, c);
            }
        }
        let pg_port = self.postgres.as_deref().map(url_port_or_default);
        let ports = match pg_port {
            Some(p) => client_ports(&self.node_pids, p),
            None => HashSet::new(),
        };
        // PostgreSQL's own processes are the children of the one listening
        // on its port (other clusters on the machine have theirs).
        let postmaster = pg_port.and_then(listener_pid);
        for (pid, cmdline) in processes() {
            let Some(kind) = classify(&cmdline, &ports, self.redis_port) else {
                continue;
            };
            if kind == Kind::PgAux && (postmaster.is_none() || parent(pid) != postmaster) {
                continue;
            }
            let Some(cpu) = procfs::cpu_seconds(pid) else {
                continue;
            };
            match kind {
                Kind::PgBackend => snap.pg_backends.insert(pid, cpu),
                Kind::PgAux => snap.pg_aux.insert(pid, cpu),
                Kind::Redis => snap.redis.insert(pid, cpu),
            };
        }
        for addr in &self.node_addrs {
            if let Ok(Ok(m)) = tokio::time::timeout(PROBE_TIMEOUT, scrape(*addr)).await {
                snap.metrics_nodes += 1;
                for name in NODE_METRICS {
                    *snap.metrics.entry(name).or_default() += m.get(name).copied().unwrap_or(0.0);
                }
            }
        }
        if let Some(url) = &self.postgres {
            snap.pg = match tokio::time::timeout(PROBE_TIMEOUT, pg_stats(url)).await {
                Ok(Ok(s)) => Some(s),
                Ok(Err(e)) => {
                    eprintln!("parlor-bench: PostgreSQL statistics: {e}");
                    None
                }
                Err(_) => None,
            };
        }
        snap
    }
}

/// CPU seconds used between two readings, summed over the processes of
/// the second (one new since the first used all of its time within).
fn used(before: &HashMap<u32, f64>, after: &HashMap<u32, f64>) -> f64 {
    after
        .iter()
        .map(|(pid, b)| b - before.get(pid).copied().unwrap_or(0.0))
        .filter(|d| *d >= 0.0)
        .sum()
}

fn per_move(x: f64, moves: u64) -> Value {
    if moves > 0 {
        round(x * 1e6 / moves as f64)
    } else {
        Value::Null
    }
}

fn ratio(a: f64, b: f64) -> Value {
    if b > 0.0 {
        round(a / b)
    } else {
        Value::Null
    }
}

/// The figures of a window from `a` to `b` (`secs` long, `moves` moves
/// acknowledged to the bots).
pub fn report(a: &Snapshot, b: &Snapshot, moves: u64, secs: f64) -> Value {
    let nodes = used(&a.nodes, &b.nodes);
    let backends = used(&a.pg_backends, &b.pg_backends);
    let aux = used(&a.pg_aux, &b.pg_aux);
    let redis = used(&a.redis, &b.redis);
    let sum = nodes + backends + redis;
    let delta = |name: &str| match (a.metrics.get(name), b.metrics.get(name)) {
        (Some(x), Some(y)) if a.metrics_nodes == b.metrics_nodes => Some(y - x),
        _ => None,
    };
    let publishes = delta("parlor_bus_publishes_total");
    let accepted = delta("parlor_moves_accepted_total");
    let commits = delta("parlor_store_commit_seconds_count");
    let mut out = json!({
        "cpu_us_per_move": {
            "sum": per_move(sum, moves),
            "nodes": per_move(nodes, moves),
            "pg_backends": per_move(backends, moves),
            "redis": per_move(redis, moves),
            "pg_aux_shared": per_move(aux, moves),
            "sum_with_pg_aux": per_move(sum + aux, moves),
        },
        "cpu_cores": {
            "sum": round(sum / secs),
            "nodes": round(nodes / secs),
            "pg_backends": round(backends / secs),
            "redis": round(redis / secs),
            "pg_aux_shared": round(aux / secs),
        },
        "processes": {
            "nodes": b.nodes.len(),
            "pg_backends": b.pg_backends.len(),
            "pg_aux": b.pg_aux.len(),
            "redis": b.redis.len(),
        },
        "metrics_nodes": b.metrics_nodes,
        "node_moves_accepted": accepted.map_or(Value::Null, round),
        "bus_publishes_per_move": match (publishes, accepted) {
            (Some(p), Some(m)) => ratio(p, m),
            _ => Value::Null,
        },
        "store_commits_per_s": commits.map_or(Value::Null, |c| round(c / secs)),
    });
    if let (Some(x), Some(y)) = (a.pg, b.pg) {
        let rows = (y.schema_inserted - x.schema_inserted) as f64;
        let xacts = (y.xact_commit - x.xact_commit) as f64;
        let db_rows = (y.db_tup_inserted - x.db_tup_inserted) as f64;
        out["postgres"] = json!({
            "source": "pg_stat_user_tables (n_tup_ins, n_tup_upd) of the nodes' schema; \
                       commits = the nodes' parlor_store_commit_seconds_count; \
                       pg_stat_database (xact_commit, tup_inserted) for the whole database \
                       (every user's transactions, read-only ones included)",
            "schema_rows_inserted_per_s": round(rows / secs),
            "schema_rows_updated_per_s": round((y.schema_updated - x.schema_updated) as f64 / secs),
            "rows_inserted_per_store_commit": commits.map_or(Value::Null, |c| ratio(rows, c)),
            "db_xact_commits_per_s": round(xacts / secs),
            "db_tup_inserted_per_xact_commit": ratio(db_rows, xacts),
            "db_deadlocks": y.deadlocks - x.deadlocks,
        });
    }
    out
}

/// What a process is to the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    PgBackend,
    PgAux,
    Redis,
}

/// Which of the watched kinds a command line is: a PostgreSQL backend
/// connected from one of `ports` (its title names the client as
/// `HOST(PORT)`), one of PostgreSQL's own processes (a title with no
/// client), or `redis-server` on `redis_port`.
fn classify(cmdline: &str, ports: &HashSet<u16>, redis_port: Option<u16>) -> Option<Kind> {
    if let Some(title) = cmdline.strip_prefix("postgres: ") {
        return match title.find('(') {
            None => Some(Kind::PgAux),
            Some(i) => {
                let port = title[i + 1..].split(')').next()?.parse::<u16>().ok()?;
                ports.contains(&port).then_some(Kind::PgBackend)
            }
        };
    }
    let port = redis_port?;
    let mut words = cmdline.split([' ', '\0']);
    let first = words.next()?;
    (first.ends_with("redis-server") && cmdline.contains(&format!(":{port}")))
        .then_some(Kind::Redis)
}

/// Every process's id and command line (NULs as spaces).
fn processes() -> Vec<(u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let text = String::from_utf8_lossy(&raw).replace('\0', " ");
            Some((pid, text.trim_end().to_owned()))
        })
        .collect()
}

/// The parent of process `pid`.
fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): state, ppid.
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The socket inodes process `pid` holds.
fn socket_inodes(pid: u32) -> HashSet<u64> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return HashSet::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let target = std::fs::read_link(e.path()).ok()?;
            let t = target.to_str()?;
            t.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
        .collect()
}

/// One row of `/proc/net/tcp` or `tcp6`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TcpRow {
    local_port: u16,
    remote_port: u16,
    state: u8,
    inode: u64,
}

/// The port of an address written `HEXADDR:HEXPORT`.
fn hex_port(addr: &str) -> Option<u16> {
    u16::from_str_radix(addr.rsplit(':').next()?, 16).ok()
}

/// The rows of a `/proc/net/tcp` text.
fn parse_tcp(text: &str) -> Vec<TcpRow> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            Some(TcpRow {
                local_port: hex_port(f.get(1)?)?,
                remote_port: hex_port(f.get(2)?)?,
                state: u8::from_str_radix(f.get(3)?, 16).ok()?,
                inode: f.get(9)?.parse().ok()?,
            })
        })
        .collect()
}

fn tcp_rows() -> Vec<TcpRow> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|t| parse_tcp(&t))
        .collect()
}

/// The local ports of the connections `pids` hold to port `remote`.
fn client_ports(pids: &[u32], remote: u16) -> HashSet<u16> {
    let inodes: HashSet<u64> = pids.iter().flat_map(|p| socket_inodes(*p)).collect();
    tcp_rows()
        .into_iter()
        .filter(|r| r.remote_port == remote && inodes.contains(&r.inode))
        .map(|r| r.local_port)
        .collect()
}

/// The process listening on TCP `port` (a running node's), if this user
/// may see it.
pub fn listener_pid(port: u16) -> Option<u32> {
    let inodes: HashSet<u64> = tcp_rows()
        .into_iter()
        .filter(|r| r.state == TCP_LISTEN && r.local_port == port && r.inode != 0)
        .map(|r| r.inode)
        .collect();
    if inodes.is_empty() {
        return None;
    }
    processes()
        .into_iter()
        .map(|(pid, _)| pid)
        .find(|pid| !socket_inodes(*pid).is_disjoint(&inodes))
}

/// The port of a `scheme://[user@]host[:port]/...` URL, or the scheme's
/// default.
pub fn url_port(url: &str) -> Option<u16> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let (_, port) = host_port.rsplit_once(':')?;
    port.parse().ok()
}

fn url_port_or_default(url: &str) -> u16 {
    url_port(url).unwrap_or(DEFAULT_PG_PORT)
}

/// The Redis port of a bus URL.
pub fn redis_port(url: &str) -> u16 {
    url_port(url).unwrap_or(DEFAULT_REDIS_PORT)
}

/// The first schema of the `search_path` set in libpq-style `options`.
fn schema_of(options: &str) -> Option<String> {
    let (_, rest) = options.split_once("search_path=")?;
    let s: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!s.is_empty()).then_some(s)
}

async fn pg_stats(url: &str) -> Result<PgStats, String> {
    let config: tokio_postgres::Config = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let schema = config
        .get_options()
        .and_then(schema_of)
        .unwrap_or_else(|| DEFAULT_SCHEMA.to_owned());
    let (client, connection) = config
        .connect(tokio_postgres::NoTls)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let driver = tokio::spawn(connection);
    let db = client
        .query_one(
            "SELECT xact_commit, tup_inserted, deadlocks FROM pg_stat_database \
             WHERE datname = current_database()",
            &[],
        )
        .await
        .map_err(|e| format!("pg_stat_database: {e}"))?;
    let tables = client
        .query_one(
            "SELECT COALESCE(SUM(n_tup_ins), 0)::bigint, COALESCE(SUM(n_tup_upd), 0)::bigint \
             FROM pg_stat_user_tables WHERE schemaname = $1",
            &[&schema],
        )
        .await
        .map_err(|e| format!("pg_stat_user_tables: {e}"))?;
    drop(client);
    let _ = driver.await;
    let get = |row: &tokio_postgres::Row, i: usize| -> Result<i64, String> {
        row.try_get::<_, i64>(i)
            .map_err(|e| format!("column {i}: {e}"))
    };
    Ok(PgStats {
        xact_commit: get(&db, 0)?,
        db_tup_inserted: get(&db, 1)?,
        deadlocks: get(&db, 2)?,
        schema_inserted: get(&tables, 0)?,
        schema_updated: get(&tables, 1)?,
    })
}

/// Source address of the `/metrics` requests: away from the bots' and
/// every other client's, so that no admission limit mixes them up.
const SCRAPER_NET: u8 = 6;

/// A node's `/metrics`, each metric summed over its label sets.
async fn scrape(addr: SocketAddrV4) -> Result<HashMap<String, f64>, String> {
    let source: Ipv4Addr = if addr.ip().is_loopback() {
        loopback_address(SCRAPER_NET, 0)
    } else {
        Ipv4Addr::UNSPECIFIED
    };
    let mut tcp = tcp_from(addr, source).await?;
    tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        .await
        .map_err(|e| format!("write: {e}"))?;
    let mut body = Vec::new();
    tcp.take(MAX_METRICS_BYTES)
        .read_to_end(&mut body)
        .await
        .map_err(|e| format!("read: {e}"))?;
    let text = String::from_utf8_lossy(&body);
    let (head, payload) = text.split_once("\r\n\r\n").ok_or("no HTTP reply")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!(
            "/metrics: {}",
            head.lines().next().unwrap_or_default()
        ));
    }
    Ok(parse_metrics(payload))
}

/// Prometheus text: each metric's value summed over its label sets.
fn parse_metrics(text: &str) -> HashMap<String, f64> {
    let mut out = HashMap::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let name_end = line.find(['{', ' ']).unwrap_or(line.len());
        let Some(value) = line.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()) else {
            continue;
        };
        *out.entry(line[..name_end].to_owned()).or_default() += value;
    }
    out
}

/// The game address of a node URL, when it is a loopback `ws://` one.
pub fn node_addr(url: &str) -> Option<SocketAddrV4> {
    loopback_target(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_summed_over_labels() {
        let text =
            "# HELP parlor_bus_publishes_total x\n# TYPE parlor_bus_publishes_total counter\n\
                    parlor_bus_publishes_total 12\n\
                    parlor_store_commit_seconds_bucket{store=\"postgres\",le=\"0.001\"} 3\n\
                    parlor_store_commit_seconds_count{store=\"postgres\"} 7\n\
                    parlor_store_commit_seconds_count{store=\"sqlite\"} 2\n";
        let m = parse_metrics(text);
        assert_eq!(m.get("parlor_bus_publishes_total"), Some(&12.0));
        assert_eq!(m.get("parlor_store_commit_seconds_count"), Some(&9.0));
    }

    #[test]
    fn processes_are_told_apart_by_title() {
        let ports: HashSet<u16> = [40001].into_iter().collect();
        let backend = "postgres: 15/main: root test 127.0.0.1(40001) idle";
        let other = "postgres: 15/main: root test 127.0.0.1(40002) idle";
        assert_eq!(classify(backend, &ports, None), Some(Kind::PgBackend));
        assert_eq!(classify(other, &ports, None), None);
        assert_eq!(
            classify("postgres: 15/main: walwriter", &ports, None),
            Some(Kind::PgAux)
        );
        assert_eq!(
            classify("redis-server 127.0.0.1:6379", &ports, Some(6379)),
            Some(Kind::Redis)
        );
        assert_eq!(
            classify("redis-server 127.0.0.1:6380", &ports, Some(6379)),
            None
        );
        assert_eq!(classify("redis-server 127.0.0.1:6379", &ports, None), None);
    }

    #[test]
    fn tcp_rows_and_urls_are_read() {
        let text = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
                    0: 0100007F:9C41 0100007F:1538 01 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 20 4 30 10 -1\n";
        let rows = parse_tcp(text);
        assert_eq!(
            rows,
            vec![TcpRow {
                local_port: 0x9C41,
                remote_port: 5432,
                state: 1,
                inode: 12345
            }]
        );
        assert_eq!(
            url_port("postgres://root@127.0.0.1:5433/test?options=x"),
            Some(5433)
        );
        assert_eq!(url_port("postgres://root@127.0.0.1/test"), None);
        assert_eq!(redis_port("redis://127.0.0.1:6379"), 6379);
        assert_eq!(
            schema_of("-c search_path=bench_1_2 -c x=y"),
            Some("bench_1_2".into())
        );
    }
}
