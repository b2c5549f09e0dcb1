//! `--mode matchmaking`: how long a seek waits for `matched` when
//! `--connections` players seek at once (spread over `--nodes` nodes,
//! round robin), each from its own loopback address so that no
//! per-address bound is met. The seeks are sent at `--seek-rate` a
//! second; each player's latency is from its `seek` to its `matched`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::conn::{loopback_address, Conn, FRAME_PATIENCE};
use crate::metrics::{latency_summary, round};

/// Seekers come from 127.6.x.y, one address each.
const SEEKER_NET: u8 = 6;

/// Connections opened at once while setting up.
const CONNECT_AT_ONCE: usize = 64;

/// One repetition against `urls` (already running).
pub async fn run(urls: &[String], seekers: usize, rate: u64) -> Result<Value, String> {
    if urls.is_empty() || seekers < 2 {
        return Err("matchmaking needs a server and at least 2 --connections".into());
    }
    let gate = Arc::new(Semaphore::new(CONNECT_AT_ONCE));
    let mut opening = Vec::with_capacity(seekers);
    for i in 0..seekers {
        let url = urls[i % urls.len()].clone();
        let gate = Arc::clone(&gate);
        opening.push(tokio::spawn(async move {
            let _permit = gate.acquire().await.map_err(|e| e.to_string())?;
            let source = loopback_address(SEEKER_NET, u32::try_from(i).unwrap_or(u32::MAX));
            Conn::open_from(&url, source).await
        }));
    }
    let mut conns = Vec::with_capacity(seekers);
    for o in opening {
        conns.push(o.await.map_err(|e| e.to_string())??);
    }
    let every = Duration::from_nanos(1_000_000_000 / rate.max(1));
    let start = Instant::now() + Duration::from_millis(100);
    let mut waiting = Vec::with_capacity(seekers);
    for (i, mut c) in conns.into_iter().enumerate() {
        let at = start + every * u32::try_from(i).unwrap_or(u32::MAX);
        waiting.push(tokio::spawn(async move {
            tokio::time::sleep_until(at).await;
            let sent = Instant::now();
            c.send(json!({"type": "seek", "game": "nimrod"}).to_string())
                .await?;
            c.until(|f| f.kind == "matched").await?;
            let took = sent.elapsed();
            Ok::<(Duration, Conn), String>((took, c))
        }));
    }
    let mut samples = Vec::with_capacity(seekers);
    let mut keep = Vec::with_capacity(seekers);
    for w in waiting {
        match tokio::time::timeout(FRAME_PATIENCE, w).await {
            Ok(Ok(Ok((took, c)))) => {
                samples.push(u32::try_from(took.as_micros()).unwrap_or(u32::MAX));
                keep.push(c);
            }
            Ok(Ok(Err(e))) => return Err(format!("a seeker failed: {e}")),
            Ok(Err(e)) => return Err(e.to_string()),
            Err(_) => return Err("a seeker was never matched".into()),
        }
    }
    let wall = start.elapsed();
    for c in keep {
        c.close().await;
    }
    Ok(json!({
        "seekers": seekers,
        "nodes": urls.len(),
        "seek_rate": rate,
        "matched": samples.len(),
        "wall_s": round(wall.as_secs_f64()),
        "seek_to_matched_us": latency_summary(samples),
    }))
}
