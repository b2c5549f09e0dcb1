//! `--mode hostile-readers`: clients that ask for large replies and never
//! read them. With `--background-rooms` public rooms present, every
//! `list_rooms` answer is a full page of ~200 rooms (tens of KiB).
//! `--clients` raw connections each send `--requests` of them, paced
//! within the server's rate limit, over about `--send-ms`, and read
//! nothing. Meanwhile the server's resident memory is sampled and one
//! well-behaved player plays Nimrod. Afterwards (by default once the
//! server's timers for such clients have run out) each hostile
//! connection is read with a hand-written frame parser to see how the
//! server ended it.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use parlor_protocol::ErrorCode;
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
use crate::procfs;
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

/// How often the server's memory and open files are sampled: a queue of
/// replies fills within tens of milliseconds.
const RSS_EVERY: Duration = Duration::from_millis(50);

/// When after the sending phase the memory "after" is read.
const AFTER: Duration = Duration::from_secs(2);

/// By default the hostile clients start reading once the server's own
/// timers for them have surely run out, counted from their last burst:
/// the stall (a client whose queue stays full is ended), then the
/// writer's drain (its writer is aborted and the socket dropped), then
/// this margin. A client reading earlier changes what the server does (it
/// goes on with the requests it had stopped reading); `--read-after-ms`
/// measures that.
const VERDICT_MARGIN: Duration = Duration::from_secs(2);

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
    let server = ServerProcess::parlor(bin, &server_flags(args.background_rooms))?;
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
        cpu_also: None,
        log_reads: None,
    };
    let calm = run_load(&url, Some(pid), &player(CALM_WINDOW)).await;

    let (bursts, every) = burst_schedule(
        args.requests,
        HOSTILE_BURST,
        Duration::from_millis(args.send_ms),
        MIN_BURST_INTERVAL,
    );
    let at = |n: usize| every.saturating_mul(u32::try_from(n).unwrap_or(u32::MAX));
    let send_span = at(bursts);
    let read_after = args.read_after_ms.map_or(
        OUTBOX_STALL_TIMEOUT + WRITER_DRAIN_TIMEOUT + VERDICT_MARGIN,
        Duration::from_millis,
    );
    // From the first burst: when the 2 s figures are read, and when the
    // hostile clients start reading.
    let after_at = send_span + AFTER;
    let last_burst = at(bursts.saturating_sub(1));
    let read_at = after_at.max(last_burst + read_after);
    let hostile_window = PLAYER_LEAD + read_at + READ_QUIET;
    let during = {
        let (url, load) = (url.clone(), player(hostile_window));
        tokio::spawn(async move { run_load(&url, Some(pid), &load).await })
    };
    sleep(PLAYER_LEAD).await;
    let baseline = Snapshot::take(pid);
    let from = trace.now();

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
        .map(|ws| tokio::spawn(send_all(ws, args.requests, bursts, every, start)))
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
    let sending_end = Snapshot::take(pid);
    sleep_until(start + after_at).await;
    let after = Snapshot::take(pid);
    sleep_until(start + read_at).await;
    let at_read = Snapshot::take(pid);
    let until = trace.now();

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
    let end = Snapshot::take(pid);
    drop(server);

    Ok(json!({
        "background_rooms": made.len(),
        "page_bytes": page_bytes,
        "bursts": bursts,
        "burst_interval_ms": every.as_millis(),
        "read_after_last_burst_ms": (read_at - last_burst).as_millis(),
        // When the server had let go of every hostile socket (its open
        // files back to the baseline), before the clients read anything.
        "server_let_go_ms_after_last_burst": baseline.fds.and_then(|n| {
            let last = sending_from + last_burst;
            samples
                .fds_down_to(n, last, until)
                .map(|t| (t - last).as_millis())
        }),
        "server_rss_kib": {
            "baseline": baseline.rss_kib(),
            "peak_during": samples.peak(from, until).map_or(Value::Null, |b| json!(b / 1024)),
            "after_2s": after.rss_kib(),
            "at_read": at_read.rss_kib(),
            "end": end.rss_kib(),
        },
        "server_fds": {
            "baseline": baseline.fds,
            "sending_end": sending_end.fds,
            "after_2s": after.fds,
            "at_read": at_read.fds,
            "end": end.fds,
        },
        "kernel_tcp_buffers_kib": {
            "baseline": baseline.tcp_kib(),
            "sending_end": sending_end.tcp_kib(),
            "after_2s": after.tcp_kib(),
            "at_read": at_read.tcp_kib(),
            "end": end.tcp_kib(),
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

/// The server's memory and open files, and the kernel's TCP buffers, at
/// one moment.
#[derive(Clone, Copy, Debug)]
struct Snapshot {
    rss: Option<u64>,
    fds: Option<usize>,
    tcp_buffers: Option<u64>,
}

impl Snapshot {
    fn take(pid: u32) -> Self {
        Snapshot {
            rss: procfs::rss_bytes(pid),
            fds: procfs::open_fds(pid),
            tcp_buffers: procfs::tcp_buffer_bytes(),
        }
    }

    fn rss_kib(&self) -> Value {
        self.rss.map_or(Value::Null, |b| json!(b / 1024))
    }

    fn tcp_kib(&self) -> Value {
        self.tcp_buffers.map_or(Value::Null, |b| json!(b / 1024))
    }
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

/// How the hostile connections ended, counted under fixed names (so that
/// medians over repetitions line up), with what they had read.
fn ends(drained: &[Drained]) -> Value {
    let count = |f: &dyn Fn(&End) -> bool| drained.iter().filter(|d| f(&d.end)).count();
    let slow = ErrorCode::ConnectionSlow.as_str();
    let flood = ErrorCode::RequestRateLimited.as_str();
    json!({
        "closed_1008": count(&|e| matches!(e, End::Closed(Some(1008), _))),
        "closed_1008_slow": count(&|e| matches!(e, End::Closed(Some(1008), r) if r == slow)),
        "closed_1008_rate_limited": count(&|e| matches!(e, End::Closed(Some(1008), r) if r == flood)),
        "closed_other": count(&|e| matches!(e, End::Closed(c, _) if *c != Some(1008))),
        "eof_without_close": count(&|e| *e == End::Eof),
        "read_failed": count(&|e| matches!(e, End::Failed(_))),
        "still_open": count(&|e| *e == End::Open),
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
