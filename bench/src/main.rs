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
//! The hardening modes (`listing`, `hostile-readers`, `handshakes`)
//! measure what the server's limits are for: the cost of listing many
//! rooms, clients that never read, and connections that never finish
//! their handshake.

mod bot;
mod cli;
mod conn;
mod flood;
mod handshakes;
mod hostile;
mod listing;
mod metrics;
mod pacer;
mod pages;
mod populate;
mod process;
mod procfs;
mod raw_ws;
mod relay;
mod report;
mod rss_trace;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use serde_json::{json, Value};

use cli::{Args, Helper, Mode};
use process::ServerProcess;
use report::Load;

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
        Mode::Closed | Mode::Paced => args.rooms * (2 + args.spectators) + args.flooders,
        // The creators, then the one listing client.
        Mode::Listing => populate::CREATORS_AT_ONCE + 1,
        // The creators, then the hostile clients beside one player.
        Mode::HostileReaders => populate::CREATORS_AT_ONCE.max(args.clients + 2),
        Mode::Handshakes => args.connections + handshakes::HELLOLESS + 1,
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
    let load_before = procfs::loadavg();
    let mut reps = Vec::new();
    for rep in 0..args.reps.max(1) {
        let r = one_rep(&args, &load, bin.as_deref()).await?;
        eprintln!("rep {rep}: {r}");
        reps.push(r);
    }
    Ok(json!({
        "tool": "parlor-bench",
        "mode": args.mode.name(),
        "rooms": args.rooms,
        "spectators_per_room": args.spectators,
        "think_ms": (args.mode == Mode::Paced).then_some(args.think_ms),
        "flooders": args.flooders,
        "warmup_s": args.warmup_s,
        "measure_s": args.measure_s,
        "reps": reps.len(),
        "loadavg_1m_before": load_before,
        "loadavg_1m_after": procfs::loadavg(),
        "median": metrics::median_report(&reps),
        "per_rep": reps,
    }))
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

async fn one_rep(args: &Args, load: &Load, bin: Option<&std::path::Path>) -> Result<Value, String> {
    let (server, url, pid) = match &args.server {
        Some(url) => (None, url.clone(), None),
        None => {
            let bin = bin.ok_or("no parlor-server binary: build it or pass --server-bin")?;
            let s = ServerProcess::parlor(bin, &args.server_arg)?;
            let (url, pid) = (s.url.clone(), Some(s.pid));
            (Some(s), url, pid)
        }
    };
    if args.mode == Mode::Idle {
        let parlor = report::run_idle(&url, pid, args.connections, args.connect_concurrency).await;
        drop(server);
        return Ok(json!({ "parlor": parlor }));
    }
    let parlor = report::run_load(&url, pid, load).await;
    drop(server);
    if args.no_baseline || args.server.is_some() {
        return Ok(json!({ "parlor": parlor }));
    }
    let game_len = parlor["moves_per_game"]
        .as_f64()
        .map_or(20, |m| m.round().max(1.0) as u64);
    let relay_proc = ServerProcess::relay(game_len)?;
    let baseline_load = Load {
        flooders: 0,
        cpu_also: None,
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
