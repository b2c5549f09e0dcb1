//! `--mode hostile-readers`: clients that ask for large replies and never
//! read them. With `--background-rooms` public rooms present, every
//! `list_rooms` answer is a full page of ~200 rooms (tens of KiB).
//! `--clients` raw connections each send `--requests` of them, paced
//! within the server's rate limit, over about `--send-ms`, and read
//! nothing. Meanwhile the server's resident memory is sampled and one
//! well-behaved player plays Nimrod. Afterwards each hostile connection
//! is read with a hand-written frame parser to see how the server ended
//! it.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use parlor_server::limits::{OUTBOX_STALL_TIMEOUT, WRITER_DRAIN_TIMEOUT};
use serde_json::{json, Value};
use tokio::time::{sleep, sleep_until, Instant};

use crate::cli::Args;
use crate::conn::{loopback_address, loopback_target, Conn};
use crate::listing::{server_flags, LIST_BURST, LIST_PER_SECOND};
use crate::metrics::round;
use crate::pacer::{burst_schedule, Pacer};
use crate::pages::fetch;
use crate::populate::create_rooms;
use crate::process::ServerProcess;
use crate::raw_ws::{Drained, End, RawWs};
use crate::report::{run_load, Load};
use crate::rss_trace::RssTrace;

/// Requests a hostile client writes at once: half the server's burst of
/// 100, so that none is dropped as rate-limited (a dropped request costs
/// the server nothing to answer).
const HOSTILE_BURST: usize = 50;

/// Least time between a hostile client's bursts: 50 per 150 ms is 333 a
/// second, within the server's average of 500.
const MIN_BURST_INTERVAL: Duration = Duration::from_millis(150);

/// How often the server's memory is sampled: a queue of replies fills
/// within tens of milliseconds.
const RSS_EVERY: Duration = Duration::from_millis(50);

/// When after the last burst the memory "after" is read.
const AFTER: Duration = Duration::from_secs(2);

/// The well-behaved player's pause before each move: a steady, modest
/// load whose latency is the server's, not the generator's.
const PLAYER_THINK: Duration = Duration::from_millis(20);

/// The player's figures without hostile clients are taken over this
/// long first, to compare with.
const CALM_WINDOW: Duration = Duration::from_secs(3);

/// Time the player has to connect and start playing before the hostile
/// clients connect.
const PLAYER_LEAD: Duration = Duration::from_millis(500);

/// Longest a burst's write may block. The requests are small (50 of them
/// fit in the socket buffers even when the server no longer reads), so a
/// stall means the connection is gone.
const SEND_PATIENCE: Duration = Duration::from_secs(1);

/// Reading a hostile connection stops after this long without a byte:
/// what the server had queued has come, and the connection is open.
const READ_QUIET: Duration = Duration::from_secs(2);

/// Longest time spent reading the hostile connections: past the server's
/// own timers for a client that does not read (the stall, then the
/// writer's drain) with a margin.
const READ_PATIENCE: Duration = OUTBOX_STALL_TIMEOUT
    .saturating_add(WRITER_DRAIN_TIMEOUT)
    .saturating_add(Duration::from_secs(5));

/// Hostile client `i` connects from 127.3.x.y: one address each, apart
/// from the bots' 127.1.0.0/16 and the flooders' 127.2.0.0/16.
const HOSTILE_NET: u8 = 3;

/// The hostile clients' first message (their `welcome` is never read).
const HELLO: &str = r#"{"type":"hello","version":1,"name":"hostile"}"#;

/// The request each hostile client repeats: the first page, full.
const LIST: &str = r#"{"type":"list_rooms"}"#;

/// One repetition: a fresh server, the background rooms, the player's
/// calm window, then the hostile clients beside it.
pub async fn run(args: &Args, bin: &Path, options: &Value) -> Result<Value, String> {
    let server = ServerProcess::parlor_with(bin, &server_flags(args.background_rooms))?;
    let (url, pid) = (server.url.clone(), server.pid);
    let target = loopback_target(&url).ok_or("the server is not on a loopback address")?;
    let made = create_rooms(&url, args.background_rooms, options).await?;
    let page_bytes = {
        let mut c = Conn::open(&url).await?;
        let mut pacer = Pacer::new(LIST_PER_SECOND, LIST_BURST, Instant::now());
        let f = fetch(&mut c, &mut pacer, &json!({"type": "list_rooms"})).await?;
        c.close().await;
        f.bytes
    };
    let trace = RssTrace::start(pid, RSS_EVERY);
    let player = |measure: Duration| Load {
        rooms: 1,
        spectators: 0,
        think: Some(PLAYER_THINK),
        options: options.clone(),
        seed: args.seed,
        warmup: Duration::ZERO,
        measure,
        flooders: 0,
    };
    let calm = run_load(&url, Some(pid), &player(CALM_WINDOW)).await;

    let fds_before = crate::procfs::open_fds(pid);
    let (bursts, every) = burst_schedule(
        args.requests,
        HOSTILE_BURST,
        Duration::from_millis(args.send_ms),
        MIN_BURST_INTERVAL,
    );
    let send_span = every.saturating_mul(u32::try_from(bursts).unwrap_or(u32::MAX));
    let hostile_window = PLAYER_LEAD + send_span + AFTER;
    let during = {
        let (url, load) = (url.clone(), player(hostile_window));
        tokio::spawn(async move { run_load(&url, Some(pid), &load).await })
    };
    sleep(PLAYER_LEAD).await;
    let baseline = trace.now();
    let rss_baseline = crate::procfs::rss_bytes(pid);

    // Connect every hostile client first, so that they all send together.
    let mut conns = Vec::with_capacity(args.clients);
    for i in 0..args.clients {
        let source = loopback_address(HOSTILE_NET, u32::try_from(i).unwrap_or(u32::MAX));
        let mut ws = RawWs::connect(target, source).await?;
        ws.send_texts([HELLO], SEND_PATIENCE).await?;
        conns.push(ws);
    }
    let start = Instant::now();
    let sending_from = trace.now();
    let senders: Vec<_> = conns
        .into_iter()
        .map(|ws| {
            let requests = args.requests;
            tokio::spawn(send_all(ws, requests, bursts, every, start))
        })
        .collect();
    let mut sent = 0;
    let mut send_errors = BTreeMap::<String, u64>::new();
    let mut conns = Vec::with_capacity(args.clients);
    for s in senders {
        let (ws, n, err) = s.await.map_err(|e| format!("hostile sender: {e}"))?;
        sent += n;
        if let Some(e) = err {
            *send_errors.entry(e).or_default() += 1;
        }
        conns.push(ws);
    }
    sleep_until(start + send_span).await;
    let sending_until = trace.now();
    let fds_sending = crate::procfs::open_fds(pid);
    sleep(AFTER).await;
    let rss_after = crate::procfs::rss_bytes(pid);
    let fds_after = crate::procfs::open_fds(pid);

    let read_start = Instant::now();
    let deadline = read_start + READ_PATIENCE;
    let readers: Vec<_> = conns
        .into_iter()
        .map(|mut ws| tokio::spawn(async move { ws.drain(READ_QUIET, deadline).await }))
        .collect();
    let mut drained = Vec::with_capacity(readers.len());
    for r in readers {
        drained.push(r.await.map_err(|e| format!("hostile reader: {e}"))?);
    }
    let read_s = read_start.elapsed().as_secs_f64();
    let hostile = during
        .await
        .map_err(|e| format!("well-behaved player: {e}"))?;
    let samples = trace.finish();
    let rss_end = crate::procfs::rss_bytes(pid);
    let fds_end = crate::procfs::open_fds(pid);
    drop(server);

    let kib = |b: Option<u64>| b.map_or(Value::Null, |b| json!(b / 1024));
    Ok(json!({
        "background_rooms": made.len(),
        "page_bytes": page_bytes,
        "bursts": bursts,
        "burst_interval_ms": every.as_millis(),
        "server_rss_kib": {
            "baseline": kib(rss_baseline),
            "peak_during": kib(samples.peak(baseline, sending_until + AFTER)),
            "peak_while_sending": kib(samples.peak(sending_from, sending_until)),
            "after_2s": kib(rss_after),
            "end": kib(rss_end),
        },
        "server_fds": {
            "before": fds_before,
            "sending_end": fds_sending,
            "after_2s": fds_after,
            "end": fds_end,
        },
        "hostile": {
            "clients": drained.len(),
            "requests_sent": sent,
            "send_errors": send_errors,
            "read_s": round(read_s),
            "ends": ends(&drained),
        },
        "player_calm": player_figures(&calm, CALM_WINDOW),
        "player_hostile": player_figures(&hostile, hostile_window),
    }))
}

/// Sends `requests` list requests in `bursts` bursts `every` apart from
/// `start`; returns the connection, the requests written and why the
/// writing stopped early, if it did.
async fn send_all(
    mut ws: RawWs,
    requests: usize,
    bursts: usize,
    every: Duration,
    start: Instant,
) -> (RawWs, u64, Option<String>) {
    let mut sent = 0;
    for b in 0..bursts {
        sleep_until(start + every.saturating_mul(u32::try_from(b).unwrap_or(u32::MAX))).await;
        let k = HOSTILE_BURST.min(requests - sent);
        if let Err(e) = ws
            .send_texts(std::iter::repeat_n(LIST, k), SEND_PATIENCE)
            .await
        {
            return (ws, sent as u64, Some(e));
        }
        sent += k;
    }
    (ws, sent as u64, None)
}

/// How the hostile connections ended, counted, with what they read.
fn ends(drained: &[Drained]) -> Value {
    let mut by_end = BTreeMap::<String, u64>::new();
    for d in drained {
        let key = match &d.end {
            End::Closed(code, reason) => format!(
                "closed {} {reason}",
                code.map_or("-".into(), |c| c.to_string())
            ),
            End::Eof => "eof without close frame".into(),
            End::Failed(e) => format!("read failed: {e}"),
            End::Open => "still open".into(),
        };
        *by_end.entry(key).or_default() += 1;
    }
    let closed_1008 = drained
        .iter()
        .filter(|d| matches!(d.end, End::Closed(Some(1008), _)))
        .count();
    let still_open = drained.iter().filter(|d| d.end == End::Open).count();
    json!({
        "closed_1008": closed_1008,
        "still_open": still_open,
        "by_end": by_end,
        "rooms_replies_read": drained.iter().map(|d| d.rooms_replies).sum::<u64>(),
        "mib_read": round(drained.iter().map(|d| d.payload_bytes).sum::<u64>() as f64 / (1024.0 * 1024.0)),
    })
}

/// The player's games, moves and move latency from a load report over
/// `window`.
fn player_figures(report: &Value, window: Duration) -> Value {
    let secs = window.as_secs_f64();
    let count = |field: &str| {
        report[field]
            .as_f64()
            .map_or(Value::Null, |per_s| json!((per_s * secs).round() as u64))
    };
    json!({
        "window_s": round(secs),
        "games": count("games_per_s"),
        "moves": count("moves_per_s"),
        "latency_us": {
            "p50": report["latency_us"]["p50"],
            "p99": report["latency_us"]["p99"],
            "max": report["latency_us"]["max"],
        },
        "errors": report["errors"],
    })
}
