//! `parlor-bench`: Parlor's load generator.
//!
//! Starts `parlor-server` as a child process on 127.0.0.1 (port 0, fresh
//! database) or targets `--server URL`, drives rooms of bots through
//! complete Nimrod games over the real protocol, and prints one JSON line:
//! medians over `--reps` of throughput, move latency percentiles, server
//! CPU (from /proc) per move, server memory per connection and per room,
//! errors, and this tool's own CPU. In closed-loop and paced modes each
//! repetition also runs the same bots against a bare WebSocket relay
//! (see `relay`) and reports Parlor's CPU per move relative to it.
//!
//! With `--nodes N` (or `--servers URL,...`) the rooms are played across
//! the nodes of a cluster, each client placed by `--placement`, and the
//! figures add CPU per move over every process a move costs (the nodes,
//! their PostgreSQL backends, `redis-server`), bus publishes per move
//! (the nodes' `/metrics`) and PostgreSQL rows per commit (see
//! `cluster`).
//!
//! `--log-readers` adds, beside the rooms, connections that keep asking
//! for the log of one long finished match (see `log_readers`).
//!
//! The hardening modes (`listing`, `hostile-readers`, `handshakes`)
//! measure what the server's limits are for: the cost of listing many
//! rooms, clients that never read, and connections that never finish
//! their handshake.

mod arena;
mod bot;
mod cli;
mod cluster;
mod conn;
mod flood;
mod handshakes;
mod hostile;
mod listing;
mod log_readers;
mod metrics;
mod pacer;
mod pages;
mod placement;
mod populate;
mod process;
mod procfs;
mod raw_ws;
mod relay;
mod report;
mod rss_trace;
mod seeking;
mod threads;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use serde_json::{json, Value};

use cli::{Args, Helper, Mode};
use cluster::Probe;
use process::ServerProcess;
use report::{Load, Targets};

/// File descriptors needed beyond the client connections (runtime,
/// files, the child processes' pipes).
const SPARE_FDS: u64 = 256;

fn main() -> ExitCode {
    let args = Args::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("parlor-bench: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(Helper::Relay {
        port_file,
        game_len,
    }) = &args.helper
    {
        return match rt.block_on(relay::run(port_file, *game_len)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("parlor-bench relay: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match rt.block_on(bench(args)) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("parlor-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Client connections a run holds open at once.
fn connections_needed(args: &Args) -> u64 {
    (match args.mode {
        Mode::Idle => args.connections,
        Mode::Closed | Mode::Paced => {
            args.rooms * (2 + args.spectators) + args.flooders + args.log_readers
        }
        // The creators, then the one listing client.
        Mode::Listing => populate::CREATORS_AT_ONCE + 1,
        // The creators, then the hostile clients beside one player.
        Mode::HostileReaders => populate::CREATORS_AT_ONCE.max(args.clients + 2),
        Mode::Handshakes => args.connections + handshakes::HELLOLESS + 1,
        Mode::Matchmaking | Mode::Arena => args.connections,
    }) as u64
}

async fn bench(args: Args) -> Result<Value, String> {
    let conns = connections_needed(&args);
    if let Some((soft, _hard)) = procfs::open_files_limit() {
        if soft < conns + SPARE_FDS {
            return Err(format!(
                "{conns} connections need more open files than `ulimit -n` allows ({soft}); raise it"
            ));
        }
    }
    let options: Value =
        serde_json::from_str(&args.options).map_err(|e| format!("--options: {e}"))?;
    if args.log_readers > 0 {
        if !matches!(args.mode, Mode::Closed | Mode::Paced) {
            return Err("--log-readers needs --mode closed or paced".into());
        }
        if args.log_steps == 0 {
            return Err("--log-steps must be at least 1".into());
        }
    }
    let load = Load {
        rooms: args.rooms,
        spectators: args.spectators,
        think: (args.mode == Mode::Paced).then(|| Duration::from_millis(args.think_ms)),
        options,
        seed: args.seed,
        warmup: Duration::from_secs(args.warmup_s),
        measure: Duration::from_secs(args.measure_s.max(1)),
        flooders: args.flooders,
        cpu_also: args.cpu_also.clone(),
        log_reads: None,
    };
    let bin = match &args.server_bin {
        Some(b) => Some(b.clone()),
        None => process::default_server_bin(),
    };
    if matches!(
        args.mode,
        Mode::Listing | Mode::HostileReaders | Mode::Handshakes
    ) {
        return hardening(&args, bin.as_deref(), &load.options).await;
    }
    if args.mode == Mode::Matchmaking {
        return matchmaking(&args, bin.as_deref()).await;
    }
    if args.mode == Mode::Arena {
        return arena_mode(&args, bin.as_deref(), &load.options).await;
    }
    let load_before = procfs::loadavg();
    let mut reps = Vec::new();
    for rep in 0..args.reps.max(1) {
        let r = one_rep(&args, &load, bin.as_deref()).await?;
        eprintln!("rep {rep}: {r}");
        reps.push(r);
    }
    let mut line = json!({
        "tool": "parlor-bench",
        "mode": args.mode.name(),
        "rooms": args.rooms,
        "spectators_per_room": args.spectators,
        "think_ms": (args.mode == Mode::Paced).then_some(args.think_ms),
        "flooders": args.flooders,
        "nodes": if args.servers.is_empty() { args.nodes.max(1) } else { args.servers.len() },
        "placement": args.placement.name(),
        "warmup_s": args.warmup_s,
        "measure_s": args.measure_s,
        "reps": reps.len(),
        "loadavg_1m_before": load_before,
        "loadavg_1m_after": procfs::loadavg(),
        "median": metrics::median_report(&reps),
        "per_rep": reps,
    });
    // Without log readers the line stays as it always was.
    if args.log_readers > 0 {
        line["log_readers"] = json!(args.log_readers);
        line["log_steps"] = json!(args.log_steps);
        line["log_every_ms"] = json!(args.log_every_ms);
    }
    Ok(line)
}

/// Runs a hardening mode `--reps` times, each against a fresh server it
/// starts (these modes read its memory and open files, set its limits
/// and signal it, so `--server` cannot do).
async fn hardening(
    args: &Args,
    bin: Option<&std::path::Path>,
    options: &Value,
) -> Result<Value, String> {
    if args.server.is_some() {
        return Err(format!(
            "--mode {} starts its own server; drop --server",
            args.mode.name()
        ));
    }
    let bin = bin.ok_or("no parlor-server binary: build it or pass --server-bin")?;
    let params = match args.mode {
        Mode::Listing => json!({"rooms": args.rooms, "page_samples": args.page_samples}),
        Mode::HostileReaders => json!({
            "clients": args.clients,
            "requests_per_client": args.requests,
            "send_ms": args.send_ms,
            "background_rooms": args.background_rooms,
        }),
        _ => json!({"connections": args.connections, "helloless": handshakes::HELLOLESS}),
    };
    let load_before = procfs::loadavg();
    let mut reps = Vec::new();
    for rep in 0..args.reps.max(1) {
        let r = match args.mode {
            Mode::Listing => listing::run(args, bin, options).await?,
            Mode::HostileReaders => hostile::run(args, bin, options).await?,
            _ => handshakes::run(bin, args.connections).await?,
        };
        eprintln!("rep {rep}: {r}");
        reps.push(r);
    }
    Ok(json!({
        "tool": "parlor-bench",
        "mode": args.mode.name(),
        "params": params,
        "reps": reps.len(),
        "loadavg_1m_before": load_before,
        "loadavg_1m_after": procfs::loadavg(),
        "median": metrics::median_report(&reps),
        "per_rep": reps,
    }))
}

/// Runs `one` `--reps` times, each against fresh servers (their URLs);
/// the medians and every repetition's figures.
async fn on_fresh_servers<F, Fut>(
    args: &Args,
    bin: Option<&std::path::Path>,
    one: F,
) -> Result<Value, String>
where
    F: Fn(Vec<String>) -> Fut,
    Fut: std::future::Future<Output = Result<Value, String>>,
{
    let load_before = procfs::loadavg();
    let mut reps = Vec::new();
    for rep in 0..args.reps.max(1) {
        let started = start_targets(args, bin)?;
        let r = one(started.targets.urls.clone()).await?;
        drop(started);
        eprintln!("rep {rep}: {r}");
        reps.push(r);
    }
    Ok(json!({
        "tool": "parlor-bench",
        "mode": args.mode.name(),
        "reps": reps.len(),
        "loadavg_1m_before": load_before,
        "loadavg_1m_after": procfs::loadavg(),
        "median": metrics::median_report(&reps),
        "per_rep": reps,
    }))
}

/// Runs `--mode arena` `--reps` times, each against a fresh server.
async fn arena_mode(
    args: &Args,
    bin: Option<&std::path::Path>,
    options: &Value,
) -> Result<Value, String> {
    on_fresh_servers(args, bin, |urls| async move {
        let url = urls.first().ok_or("no server")?;
        arena::run(url, args.connections, args.arena_minutes, options).await
    })
    .await
}

/// Runs `--mode matchmaking` `--reps` times, each against fresh servers.
async fn matchmaking(args: &Args, bin: Option<&std::path::Path>) -> Result<Value, String> {
    on_fresh_servers(args, bin, |urls| async move {
        seeking::run(&urls, args.connections, args.seek_rate).await
    })
    .await
}

/// The servers one repetition plays against: started here (kept
/// running while this lives) or given.
struct Started {
    servers: Vec<ServerProcess>,
    targets: Targets,
}

/// Starts `--nodes` servers (sharing one `{run}`), or finds the given
/// `--servers`, with the probe that reads their figures.
fn start_targets(args: &Args, bin: Option<&std::path::Path>) -> Result<Started, String> {
    if !args.servers.is_empty() {
        let addrs: Vec<_> = args
            .servers
            .iter()
            .filter_map(|u| cluster::node_addr(u))
            .collect();
        let pids: Vec<u32> = addrs
            .iter()
            .filter_map(|a| cluster::listener_pid(a.port()))
            .collect();
        // CPU and memory only when every node's process was found.
        let pids = if pids.len() == args.servers.len() {
            pids
        } else {
            Vec::new()
        };
        let probe = Probe {
            node_pids: pids.clone(),
            node_addrs: addrs,
            postgres: args.postgres.clone(),
            redis_port: args.redis.as_deref().map(cluster::redis_port),
        };
        return Ok(Started {
            servers: Vec::new(),
            targets: Targets {
                urls: args.servers.clone(),
                pids,
                placement: args.placement,
                probe: Some(probe),
            },
        });
    }
    if let Some(url) = &args.server {
        return Ok(Started {
            servers: Vec::new(),
            targets: Targets {
                urls: vec![url.clone()],
                pids: Vec::new(),
                placement: args.placement,
                probe: None,
            },
        });
    }
    let bin = bin.ok_or("no parlor-server binary: build it or pass --server-bin")?;
    let run = process::run_name();
    let cluster_url = process::flag_value(&args.server_arg, "--cluster", &run);
    if args.nodes > 1 && cluster_url.is_none() {
        return Err(
            "--nodes above 1 needs --server-arg=--cluster --server-arg=URL (and --bus)".into(),
        );
    }
    let mut servers = Vec::new();
    // One after the other: the first creates the schema the others use.
    for _ in 0..args.nodes.max(1) {
        servers.push(ServerProcess::node(bin, &args.server_arg, &run)?);
    }
    let urls: Vec<String> = servers.iter().map(|s| s.url.clone()).collect();
    let pids: Vec<u32> = servers.iter().map(|s| s.pid).collect();
    let probe = Probe {
        node_pids: pids.clone(),
        node_addrs: urls.iter().filter_map(|u| cluster::node_addr(u)).collect(),
        postgres: args
            .postgres
            .as_ref()
            .map(|u| u.replace("{run}", &run))
            .or(cluster_url),
        redis_port: args
            .redis
            .clone()
            .or_else(|| process::flag_value(&args.server_arg, "--bus", &run))
            .as_deref()
            .map(cluster::redis_port),
    };
    Ok(Started {
        servers,
        targets: Targets {
            urls,
            pids,
            placement: args.placement,
            probe: Some(probe),
        },
    })
}

async fn one_rep(args: &Args, load: &Load, bin: Option<&std::path::Path>) -> Result<Value, String> {
    let Started { servers, targets } = start_targets(args, bin)?;
    if args.mode == Mode::Idle {
        let url = targets.urls.first().cloned().unwrap_or_default();
        let pid = targets.pids.first().copied();
        let parlor = report::run_idle(&url, pid, args.connections, args.connect_concurrency).await;
        drop(servers);
        return Ok(json!({ "parlor": parlor }));
    }
    let parlor_load = with_log_readers(args, load, &targets).await?;
    let parlor = report::run_load_on(&targets, &parlor_load).await;
    let started_one = servers.len() == 1;
    drop(servers);
    if args.no_baseline || !started_one {
        return Ok(json!({ "parlor": parlor }));
    }
    let game_len = parlor["moves_per_game"]
        .as_f64()
        .map_or(20, |m| m.round().max(1.0) as u64);
    let relay_proc = ServerProcess::relay(game_len)?;
    let baseline_load = Load {
        flooders: 0,
        cpu_also: None,
        log_reads: None,
        ..load.clone()
    };
    let relay = report::run_load(&relay_proc.url, Some(relay_proc.pid), &baseline_load).await;
    drop(relay_proc);
    let ratio = match (
        parlor["server_cpu_us_per_move"].as_f64(),
        relay["server_cpu_us_per_move"].as_f64(),
    ) {
        (Some(p), Some(r)) if r > 0.0 => metrics::round(p / r),
        _ => Value::Null,
    };
    Ok(json!({ "parlor": parlor, "relay": relay, "cpu_per_move_ratio": ratio }))
}

/// `load`, with `--log-readers` readers of a match of `--log-steps` moves
/// played first on the first target (none without `--log-readers`).
async fn with_log_readers(args: &Args, load: &Load, targets: &Targets) -> Result<Load, String> {
    if args.log_readers == 0 {
        return Ok(load.clone());
    }
    let url = targets
        .urls
        .first()
        .ok_or("no server to play the log match on")?;
    let logged = log_readers::play_logged_match(url, args.log_steps).await?;
    eprintln!(
        "log match {}: {} moves in {:.1} s, log reply {} bytes",
        logged.room,
        args.log_steps,
        logged.took.as_secs_f64(),
        logged.reply_bytes
    );
    Ok(Load {
        log_reads: Some(log_readers::LogReads {
            room: logged.room,
            readers: args.log_readers,
            every: Duration::from_millis(args.log_every_ms),
        }),
        ..load.clone()
    })
}
