//! Accepting connections.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::limits::{Limits, MAX_CONCURRENT_ANALYSES};
use crate::lobby::Lobby;
use crate::session::{serve, ws_config};

/// Pause after a failed `accept` (e.g. out of file descriptors) so that the
/// loop does not spin while the condition lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Accepts connections until `shutdown`, each served on its own task.
/// Connections beyond `limits.max_connections` are accepted, told
/// `server/full` and closed, so that clients get an answer, not a hang.
pub async fn accept_loop(
    listener: TcpListener,
    lobby: Arc<Lobby>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    limits: Limits,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let analyses = Arc::new(Semaphore::new(MAX_CONCURRENT_ANALYSES));
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                let permit = Arc::clone(&slots).try_acquire_owned().ok();
                if permit.is_none() {
                    tracing::warn!(%peer, "connection limit reached");
                }
                let lobby = Arc::clone(&lobby);
                let analyses = Arc::clone(&analyses);
                let shutdown = shutdown.clone();
                tracker.spawn(async move {
                    let Some(ws) = handshake(stream, limits.hello_timeout).await else {
                        return;
                    };
                    serve(ws, lobby, permit, analyses, shutdown, limits).await;
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
