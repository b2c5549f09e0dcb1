//! The operations listener (`--metrics-bind`): `/healthz` and `/metrics`
//! on an address of their own (one a firewall keeps private, say), apart
//! from the players' port and its caps.

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::head::{read_head, HEAD_TIMEOUT};
use super::response::{answer, refuse_head};
use super::route::{is_ops, route, Method, Route};
use crate::directory::Directory;
use crate::limits::ACCEPT_BACKOFF;

/// Most requests answered at once on the operations listener: a
/// Prometheus server and a load balancer or two poll it; past this a
/// connection is closed unanswered, so a flood cannot use up the
/// file descriptors players need.
pub const MAX_OPS_CONNECTIONS: usize = 32;

/// Answers `/healthz` and `/metrics` on `listener` (anything else: 404)
/// until `shutdown`, each request on its own task on `tracker`.
pub async fn serve_ops(
    listener: TcpListener,
    directory: Arc<Directory>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(MAX_OPS_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let mut stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed on the metrics listener");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            continue;
        };
        let directory = Arc::clone(&directory);
        tracker.spawn(async move {
            match read_head(&mut stream, Instant::now() + HEAD_TIMEOUT).await {
                Ok(head) => {
                    let method = Method::parse(&head.method);
                    let found = route(method, &head.target);
                    // Only the operations' paths exist here.
                    let found = if is_ops(&route(Method::Get, &head.target)) {
                        found
                    } else {
                        Route::NotFound
                    };
                    answer(stream, method, found, &directory).await;
                }
                Err(why) => refuse_head(stream, why).await,
            }
            drop(permit);
        });
    }
}
