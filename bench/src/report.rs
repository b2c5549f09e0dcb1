//! Runs one measured load against one server and turns it into figures.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{watch, Barrier, Semaphore};
use tokio::time::Instant;

use crate::bot::{run_room, Plan};
use crate::cluster::{self, Probe};
use crate::conn::Conn;
use crate::flood::{flood, FloodStats};
use crate::log_readers::{LogReads, Readers};
use crate::metrics::{latency_summary, round, Counters};
use crate::placement::Placement;
use crate::procfs;
use crate::threads;

/// How often server memory is sampled for its peak.
const RSS_SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// How long after the clients leave the memory is read again.
const SETTLE: Duration = Duration::from_secs(1);

/// Connections opened and closed before an idle run's base memory is
/// read: a fresh server sets up what its first connections need once
/// (each shard's runtime and buffers, the store's caches), some 5 MB read
/// as a base of 9 MB or 14 MB depending on when it landed, which is not a
/// cost of each connection.
const IDLE_WARM_UP: usize = 20;

/// What to run.
#[derive(Debug, Clone)]
pub struct Load {
    /// Rooms.
    pub rooms: usize,
    /// Spectators per room.
    pub spectators: usize,
    /// Paced think time, or closed loop.
    pub think: Option<Duration>,
    /// Room options.
    pub options: Value,
    /// Bot seed.
    pub seed: u64,
    /// Warm-up.
    pub warmup: Duration,
    /// Measured window.
    pub measure: Duration,
    /// Flooding connections.
    pub flooders: usize,
    /// Other processes whose CPU counts (a pattern in their command line).
    pub cpu_also: Option<String>,
    /// Connections reading a big match log meanwhile.
    pub log_reads: Option<LogReads>,
}

/// Where a load is played.
#[derive(Debug, Clone)]
pub struct Targets {
    /// The servers' URLs (one, or the nodes of a cluster).
    pub urls: Vec<String>,
    /// Their processes, when known (for CPU and memory).
    pub pids: Vec<u32>,
    /// Which node each client connects to.
    pub placement: Placement,
    /// Cluster figures to read at both ends of the window.
    pub probe: Option<Probe>,
}

/// The summed resident memory of `pids` (`None` if any is unreadable or
/// there are none).
fn rss_sum(pids: &[u32]) -> Option<u64> {
    if pids.is_empty() {
        return None;
    }
    pids.iter().map(|p| procfs::rss_bytes(*p)).sum()
}

/// The summed CPU seconds of `pids` (`None` as for [`rss_sum`]).
fn cpu_sum(pids: &[u32]) -> Option<f64> {
    if pids.is_empty() {
        return None;
    }
    pids.iter().map(|p| procfs::cpu_seconds(*p)).sum()
}

/// Samples processes' summed resident memory until stopped; keeps the peak.
struct RssPeak {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl RssPeak {
    fn start(pids: &[u32]) -> Self {
        let peak = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        if !pids.is_empty() {
            let (p, s) = (Arc::clone(&peak), Arc::clone(&stop));
            let pids = pids.to_vec();
            tokio::spawn(async move {
                while !s.load(Ordering::Relaxed) {
                    if let Some(rss) = rss_sum(&pids) {
                        p.fetch_max(rss, Ordering::Relaxed);
                    }
                    tokio::time::sleep(RSS_SAMPLE_EVERY).await;
                }
            });
        }
        RssPeak { peak, stop }
    }

    fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.peak.load(Ordering::Relaxed)
    }
}

fn kib(b: Option<u64>) -> Value {
    b.map_or(Value::Null, |b| json!(b / 1024))
}

fn per(total: Option<u64>, base: Option<u64>, n: usize) -> Value {
    match (total, base) {
        (Some(t), Some(b)) if n > 0 => json!(t.saturating_sub(b) / n as u64),
        _ => Value::Null,
    }
}

/// Plays `load` against `url` (a process `pid` when known) and reports.
pub async fn run_load(url: &str, pid: Option<u32>, load: &Load) -> Value {
    let targets = Targets {
        urls: vec![url.to_owned()],
        pids: pid.into_iter().collect(),
        placement: Placement::Owner,
        probe: None,
    };
    run_load_on(&targets, load).await
}

/// Plays `load` against `targets` and reports; with several nodes the
/// server figures are summed over them.
pub async fn run_load_on(targets: &Targets, load: &Load) -> Value {
    let pids = &targets.pids;
    let url = targets.urls.first().cloned().unwrap_or_default();
    let rss_base = rss_sum(pids);
    let peak = RssPeak::start(pids);
    let (go_tx, go_rx) = watch::channel(None);
    let ready = Arc::new(Barrier::new(load.rooms + 1));
    let plan = Arc::new(Plan {
        urls: targets.urls.clone(),
        placement: targets.placement,
        spectators: load.spectators,
        think: load.think,
        options: load.options.clone(),
        seed: load.seed,
        go: go_rx,
        ready: Arc::clone(&ready),
    });
    let tasks: Vec<_> = (0..load.rooms)
        .map(|i| tokio::spawn(run_room(i, Arc::clone(&plan))))
        .collect();
    ready.wait().await;
    let start = Instant::now() + load.warmup;
    let end = start + load.measure;
    let counters = Arc::new(Counters::new(start, end));
    let _ = go_tx.send(Some(Arc::clone(&counters)));
    let flood_stats = Arc::new(FloodStats::default());
    let floods: Vec<_> = (0..load.flooders)
        .map(|i| tokio::spawn(flood(url.to_owned(), i, end, Arc::clone(&flood_stats))))
        .collect();
    let readers = load
        .log_reads
        .as_ref()
        .map(|r| Readers::start(r, &targets.urls, start, end));
    tokio::time::sleep_until(start).await;
    let probe0 = match &targets.probe {
        Some(p) => Some(p.snapshot().await),
        None => None,
    };
    let cpu0 = cpu_sum(pids);
    let threads0 = threads::sample(pids);
    let me0 = procfs::cpu_seconds(0);
    let also0 = load.cpu_also.as_deref().map(procfs::cpu_seconds_matching);
    tokio::time::sleep_until(end).await;
    let cpu1 = cpu_sum(pids);
    let threads1 = threads::sample(pids);
    let me1 = procfs::cpu_seconds(0);
    let also1 = load.cpu_also.as_deref().map(procfs::cpu_seconds_matching);
    let probe1 = match &targets.probe {
        Some(p) => Some(p.snapshot().await),
        None => None,
    };
    let mut latencies = Vec::new();
    for t in tasks {
        if let Ok(l) = t.await {
            latencies.extend(l);
        }
    }
    for f in floods {
        let _ = f.await;
    }
    let log_reads = match readers {
        Some(r) => Some(r.finish(load.measure.as_secs_f64()).await),
        None => None,
    };
    let rss_peak = Some(peak.finish()).filter(|p| *p > 0);
    tokio::time::sleep(SETTLE).await;
    let rss_end = rss_sum(pids);

    let secs = load.measure.as_secs_f64();
    let moves = Counters::get(&counters.moves);
    let games = Counters::get(&counters.games);
    let server_cpu = match (cpu0, cpu1) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let (thread_blocks, thread_groups) =
        threads::figures(threads0.as_deref(), threads1.as_deref(), moves);
    let conns = load.rooms * (2 + load.spectators);
    let mut report = json!({
        "rooms": load.rooms,
        "connections": conns,
        "moves_per_s": round(moves as f64 / secs),
        "deliveries_per_s": round(Counters::get(&counters.deliveries) as f64 / secs),
        "games_per_s": round(games as f64 / secs),
        "moves_per_game": if games > 0 { round(moves as f64 / games as f64) } else { Value::Null },
        "latency_us": latency_summary(latencies),
        "server_cpu_cores": server_cpu.map_or(Value::Null, |c| round(c / secs)),
        "server_cpu_us_per_move": match server_cpu {
            Some(c) if moves > 0 => round(c * 1e6 / moves as f64),
            _ => Value::Null,
        },
        "server_thread_blocks_per_move": thread_blocks,
        "server_threads": thread_groups,
        "server_rss_kib": {"base": kib(rss_base), "peak": kib(rss_peak), "end": kib(rss_end)},
        "mem_per_connection_bytes": {"peak": per(rss_peak, rss_base, conns), "end": per(rss_end, rss_base, conns)},
        "mem_per_room_bytes": {"peak": per(rss_peak, rss_base, load.rooms), "end": per(rss_end, rss_base, load.rooms)},
        "errors": Counters::get(&counters.errors),
        "refused": Counters::get(&counters.refused),
        "abandoned_games": Counters::get(&counters.abandoned),
        "bench_cpu_cores": match (me0, me1) {
            (Some(a), Some(b)) => round((b - a) / secs),
            _ => Value::Null,
        },
    });
    if let (Some(a), Some(b)) = (&probe0, &probe1) {
        report["nodes"] = json!(targets.urls.len());
        report["placement"] = json!(targets.placement.name());
        report["cluster"] = cluster::report(a, b, moves, secs);
    }
    if load.flooders > 0 {
        report["flood"] = flood_stats.report(load.flooders);
    }
    if let Some(r) = log_reads {
        report["log_reads"] = r;
    }
    if let (Some((a, _)), Some((b, procs))) = (also0, also1) {
        let cpu = b - a;
        report["also_processes"] = json!(procs);
        report["also_cpu_cores"] = round(cpu / secs);
        report["also_cpu_us_per_move"] = if moves > 0 {
            round(cpu * 1e6 / moves as f64)
        } else {
            Value::Null
        };
    }
    report
}

/// Opens `n` connections that say hello and then sit; reports the
/// server's memory per idle connection.
pub async fn run_idle(url: &str, pid: Option<u32>, n: usize, concurrency: usize) -> Value {
    let mut warm = Vec::with_capacity(IDLE_WARM_UP);
    for _ in 0..IDLE_WARM_UP {
        if let Ok(c) = Conn::open(url).await {
            warm.push(c);
        }
    }
    drop(warm);
    tokio::time::sleep(SETTLE).await;
    let rss_base = pid.and_then(procfs::rss_bytes);
    let gate = Arc::new(Semaphore::new(concurrency.max(1)));
    let started = Instant::now();
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let gate = Arc::clone(&gate);
            let url = url.to_owned();
            tokio::spawn(async move {
                let _permit = gate.acquire_owned().await.ok()?;
                Conn::open(&url).await.ok()
            })
        })
        .collect();
    let mut conns = Vec::with_capacity(n);
    for t in tasks {
        if let Ok(Some(c)) = t.await {
            conns.push(c);
        }
    }
    let setup_s = started.elapsed().as_secs_f64();
    tokio::time::sleep(SETTLE).await;
    let rss_idle = pid.and_then(procfs::rss_bytes);
    let open = conns.len();
    drop(conns);
    tokio::time::sleep(SETTLE * 2).await;
    let rss_end = pid.and_then(procfs::rss_bytes);
    json!({
        "connections_requested": n,
        "connections_open": open,
        "setup_s": round(setup_s),
        "server_rss_kib": {"base": kib(rss_base), "idle": kib(rss_idle), "after_close": kib(rss_end)},
        "mem_per_idle_connection_bytes": per(rss_idle, rss_base, open),
    })
}
