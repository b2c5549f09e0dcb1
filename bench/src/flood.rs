//! Hostile load: connections that send messages as fast as they can.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use crate::conn::{dial, loopback_address};

/// Messages written between flushes.
const FLUSH_EVERY: usize = 64;

/// What the flooders saw.
#[derive(Debug, Default)]
pub struct FloodStats {
    /// Messages sent.
    pub sent: AtomicU64,
    /// `request/rate_limited` errors received.
    pub throttled: AtomicU64,
    /// Flooding connections the server closed with code 1008 (policy).
    pub closed_1008: AtomicU64,
    /// Milliseconds from the first message to the close, summed.
    pub close_ms_total: AtomicU64,
    /// Reconnections refused before the handshake (HTTP 429).
    pub turned_away: AtomicU64,
}

impl FloodStats {
    /// As JSON.
    pub fn report(&self, flooders: usize) -> Value {
        let closed = self.closed_1008.load(Ordering::Relaxed);
        json!({
            "flooders": flooders,
            "sent": self.sent.load(Ordering::Relaxed),
            "throttled_replies": self.throttled.load(Ordering::Relaxed),
            "disconnected_1008": closed,
            "reconnects_turned_away_429": self.turned_away.load(Ordering::Relaxed),
            "mean_ms_to_disconnect": self
                .close_ms_total
                .load(Ordering::Relaxed)
                .checked_div(closed)
                .unwrap_or(0),
        })
    }
}

/// Floods `url` until `deadline`, reconnecting whenever the server closes
/// the connection (a persistent attacker, not a one-off burst). Flooder
/// `i` always comes from the same address, 127.2.0.(i+1), as one attacking
/// machine does.
pub async fn flood(url: String, i: usize, deadline: Instant, stats: Arc<FloodStats>) {
    let source = loopback_address(2, u32::try_from(i).unwrap_or(u32::MAX));
    while Instant::now() < deadline {
        if !flood_once(&url, source, deadline, &stats).await {
            // Refused outright: wait a little rather than spin.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

/// One flooding connection; false if it could not even connect.
async fn flood_once(
    url: &str,
    source: Ipv4Addr,
    deadline: Instant,
    stats: &Arc<FloodStats>,
) -> bool {
    let ws = match dial(url, source).await {
        Ok(ws) => ws,
        Err(e) => {
            if e.contains("429") {
                stats.turned_away.fetch_add(1, Ordering::Relaxed);
            }
            return false;
        }
    };
    let (mut sink, mut source) = ws.split();
    let hello = r#"{"type":"hello","version":1,"name":"flood"}"#;
    if sink.send(Message::Text(hello.into())).await.is_err() {
        return false;
    }
    let start = Instant::now();
    let writer_stats = Arc::clone(stats);
    let writer = tokio::spawn(async move {
        while Instant::now() < deadline {
            for _ in 0..FLUSH_EVERY {
                if sink
                    .feed(Message::Text(r#"{"type":"ping","id":1}"#.into()))
                    .await
                    .is_err()
                {
                    return;
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
            writer_stats
                .sent
                .fetch_add(FLUSH_EVERY as u64, Ordering::Relaxed);
        }
    });
    loop {
        let next = tokio::time::timeout_at(deadline, source.next()).await;
        match next {
            Err(_) | Ok(None) | Ok(Some(Err(_))) => break,
            Ok(Some(Ok(Message::Text(t)))) => {
                if t.as_str().contains("request/rate_limited") {
                    stats.throttled.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(Some(Ok(Message::Close(f)))) => {
                if f.is_some_and(|f| u16::from(f.code) == 1008) {
                    stats.closed_1008.fetch_add(1, Ordering::Relaxed);
                    let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
                    stats.close_ms_total.fetch_add(ms, Ordering::Relaxed);
                }
                break;
            }
            Ok(Some(Ok(_))) => {}
        }
    }
    writer.abort();
    true
}
