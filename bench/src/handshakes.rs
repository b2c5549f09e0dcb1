//! `--mode handshakes`: how long the server takes to stop while it holds
//! connections that never got anywhere. `--connections` raw TCP
//! connections send nothing at all (stuck before the WebSocket
//! handshake) and a few more finish the handshake but never say `hello`;
//! then the server gets SIGTERM and the time until its process exits is
//! measured, against the same server holding no such connections.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use parlor_server::limits::HELLO_TIMEOUT;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::conn::{loopback_address, loopback_target, tcp_from, Conn};
use crate::metrics::round;
use crate::process::ServerProcess;
use crate::procfs::open_fds;
use crate::raw_ws::{End, RawWs};

/// Connections that finish the WebSocket handshake and never send
/// `hello`: "a few", beside the many stuck before it.
pub const HELLOLESS: usize = 8;

/// TCP connections being opened at once: well within the server's listen
/// backlog, so none is refused for arriving together.
const CONNECT_AT_ONCE: usize = 64;

/// Stuck connections come from 127.4.x.y and hello-less ones from
/// 127.5.x.y, one address each: the server limits how fast one address
/// connects.
const STUCK_NET: u8 = 4;
/// See [`STUCK_NET`].
const HELLOLESS_NET: u8 = 5;

/// How long the server may take to exit before it counts as hung (and is
/// killed): far beyond any clean shutdown.
const EXIT_PATIENCE: Duration = Duration::from_secs(30);

/// How long the bench waits for the server to have accepted every
/// connection. It must signal well within the server's handshake and
/// `hello` timeout, after which the server drops these connections by
/// itself and there is nothing left to measure.
const ACCEPT_PATIENCE: Duration = Duration::from_secs(5);

/// How often the server's open files are counted while waiting.
const ACCEPT_POLL: Duration = Duration::from_millis(10);

/// Pause after the probe connection closes, so that the server has let
/// go of it before its open files are counted.
const PROBE_SETTLE: Duration = Duration::from_millis(200);

/// Reading a hello-less connection after the exit: the process is gone,
/// so at most what it sent and an end are left to read.
const READ_QUIET: Duration = Duration::from_secs(1);

/// One repetition: the baseline server, then one holding the connections.
pub async fn run(bin: &Path, connections: usize) -> Result<Value, String> {
    let baseline = stop_with(bin, 0, 0).await?;
    let loaded = stop_with(bin, connections, HELLOLESS).await?;
    let ratio = match (baseline["exit_ms"].as_f64(), loaded["exit_ms"].as_f64()) {
        (Some(b), Some(l)) if b > 0.0 => round(l / b),
        _ => Value::Null,
    };
    Ok(json!({ "baseline": baseline, "loaded": loaded, "exit_ms_ratio": ratio }))
}

/// Starts a server, opens `stuck` silent TCP connections and `helloless`
/// WebSocket connections to it, sends SIGTERM and times the exit.
async fn stop_with(bin: &Path, stuck: usize, helloless: usize) -> Result<Value, String> {
    let server = ServerProcess::parlor(bin, &[])?;
    let (url, pid) = (server.url.clone(), server.pid);
    let target = loopback_target(&url).ok_or("the server is not on a loopback address")?;
    // One full round trip: the server is past its start-up and accepting.
    Conn::open(&url).await?.close().await;
    tokio::time::sleep(PROBE_SETTLE).await;
    let fds_idle = open_fds(pid).ok_or("cannot count the server's open files")?;

    let opened_at = Instant::now();
    let gate = Arc::new(Semaphore::new(CONNECT_AT_ONCE));
    let dialers: Vec<_> = (0..stuck)
        .map(|i| {
            let gate = Arc::clone(&gate);
            let source = loopback_address(STUCK_NET, u32::try_from(i).unwrap_or(u32::MAX));
            tokio::spawn(async move {
                let _permit = gate.acquire_owned().await.ok()?;
                tcp_from(target, source).await.ok()
            })
        })
        .collect();
    let mut silent: Vec<TcpStream> = Vec::with_capacity(stuck);
    for d in dialers {
        if let Ok(Some(s)) = d.await {
            silent.push(s);
        }
    }
    let mut quiet = Vec::with_capacity(helloless);
    for i in 0..helloless {
        let source = loopback_address(HELLOLESS_NET, u32::try_from(i).unwrap_or(u32::MAX));
        quiet.push(RawWs::connect(target, source).await?);
    }
    let opened = opened_at.elapsed();
    let want = fds_idle + silent.len() + quiet.len();
    let mut fds = fds_idle;
    while opened_at.elapsed() < ACCEPT_PATIENCE {
        fds = open_fds(pid).unwrap_or(fds);
        if fds >= want {
            break;
        }
        tokio::time::sleep(ACCEPT_POLL).await;
    }
    let held = opened_at.elapsed();
    if stuck + helloless > 0 && held >= HELLO_TIMEOUT {
        return Err(format!(
            "opening the connections took {} ms, past the server's handshake timeout",
            held.as_millis()
        ));
    }

    // The wait is a blocking poll of the child: off the async workers.
    let (server, stopped) = tokio::task::spawn_blocking(move || {
        let mut server = server;
        let stopped = server.terminate(EXIT_PATIENCE);
        (server, stopped)
    })
    .await
    .map_err(|e| format!("waiting for the exit: {e}"))?;
    let (exit, exit_ok) = stopped?;
    drop(server);

    let deadline = Instant::now() + READ_QUIET;
    let mut told_1001 = 0;
    for ws in &mut quiet {
        if matches!(
            ws.drain(READ_QUIET, deadline).await.end,
            End::Closed(Some(1001), _)
        ) {
            told_1001 += 1;
        }
    }
    Ok(json!({
        "stuck_requested": stuck,
        "stuck_open": silent.len(),
        "helloless_open": quiet.len(),
        "accepted_by_server": fds.saturating_sub(fds_idle),
        "opening_ms": opened.as_millis(),
        "held_before_signal_ms": held.as_millis(),
        "exit_ms": round(exit.as_secs_f64() * 1e3),
        "exit_ok": exit_ok,
        "helloless_told_1001": told_1001,
    }))
}
