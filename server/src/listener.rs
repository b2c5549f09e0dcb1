//! Accepting connections.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::{timeout, Instant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::admission::{Admission, Turned};
use crate::limits::{Limits, MAX_CONCURRENT_ANALYSES, MAX_TURN_AWAYS, TURN_AWAY_LINGER};
use crate::lobby::Lobby;
use crate::session::{serve, ws_config, Shared};

/// Pause after a failed `accept` (e.g. out of file descriptors) so that the
/// loop does not spin while the condition lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Accepts connections until `shutdown`, each served on its own task.
/// Connections beyond `limits.max_connections` are accepted, told
/// `server/full` and closed, so that clients get an answer, not a hang.
/// An address connecting faster than `limits.admission` allows is turned
/// away before the handshake with HTTP 429.
pub async fn accept_loop(
    listener: TcpListener,
    lobby: Arc<Lobby>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    limits: Limits,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let turn_aways = Arc::new(Semaphore::new(MAX_TURN_AWAYS));
    let shared = Arc::new(Shared {
        lobby,
        analyses: Arc::new(Semaphore::new(MAX_CONCURRENT_ANALYSES)),
        admission: Admission::new(limits.admission),
        shutdown: shutdown.clone(),
        limits,
    });
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                if let Err(why) = shared.admission.admit(peer.ip(), Instant::now()) {
                    tracing::debug!(%peer, ?why, "connection turned away");
                    // Past the cap the socket is simply closed: answering
                    // must not tie up file descriptors players need.
                    if let Ok(permit) = Arc::clone(&turn_aways).try_acquire_owned() {
                        tracker.spawn(async move {
                            turn_away(stream, why).await;
                            drop(permit);
                        });
                    }
                    continue;
                }
                let permit = Arc::clone(&slots).try_acquire_owned().ok();
                if permit.is_none() {
                    tracing::warn!(%peer, "connection limit reached");
                }
                let shared = Arc::clone(&shared);
                tracker.spawn(async move {
                    let Some(ws) = handshake(stream, limits.hello_timeout).await else {
                        return;
                    };
                    serve(ws, peer.ip(), permit, shared).await;
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
            }
        }
    }
}

/// The WebSocket opening handshake, which must finish within `limit`: a
/// client that opens a TCP connection and sends nothing is dropped.
async fn handshake(
    stream: TcpStream,
    limit: Duration,
) -> Option<tokio_tungstenite::WebSocketStream<TcpStream>> {
    let _ = stream.set_nodelay(true);
    match timeout(
        limit,
        tokio_tungstenite::accept_async_with_config(stream, Some(ws_config())),
    )
    .await
    {
        Ok(Ok(ws)) => Some(ws),
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "WebSocket handshake failed");
            None
        }
        Err(_) => None,
    }
}

/// Answers a turned-away connection with `429 Too Many Requests` (a
/// WebSocket client reports the status as its handshake error), then
/// closes it. Whatever the client sent is drained for a moment first:
/// closing a socket with unread data resets it, and the client might never
/// see the answer.
async fn turn_away(mut stream: TcpStream, why: Turned) {
    let (retry, reason) = match why {
        Turned::TooFast => (1, "too many new connections from your address"),
        Turned::CoolingDown(left) => (
            left.as_secs().max(1),
            "your address flooded the server and must wait",
        ),
    };
    let answer = format!(
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: {retry}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reason}",
        reason.len()
    );
    let _ = timeout(TURN_AWAY_LINGER, async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}
