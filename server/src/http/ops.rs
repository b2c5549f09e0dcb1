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
use super::response::{answer, refuse_head, Context};
use super::route::{is_ops, route, Method, Route};
use crate::directory::Directory;
use crate::limits::ACCEPT_BACKOFF;
use crate::slots::Slots;

/// Most requests answered at once on the operations listener: a
/// Prometheus server and a load balancer or two poll it; past this a
/// connection is closed unanswered, so a flood cannot use up the
/// file descriptors players need.
pub const MAX_OPS_CONNECTIONS: usize = 32;

/// Answers `/healthz` and `/metrics` on `listener` (anything else: 404)
/// until `shutdown`, each request on its own task on `tracker`; `slots`
/// are the game port's, which the health check reports on.
pub async fn serve_ops(
    listener: TcpListener,
    directory: Arc<Directory>,
    slots: Arc<Slots>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
) {
    let places = Arc::new(Semaphore::new(MAX_OPS_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let (mut stream, from) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed on the metrics listener");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&places).try_acquire_owned() else {
            continue;
        };
        let directory = Arc::clone(&directory);
        let slots = Arc::clone(&slots);
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
                    let ctx = Context {
                        directory: &directory,
                        slots: &slots,
                        // Always plain, and never behind the game
                        // port's proxy.
                        peer: super::Peer {
                            addr: from.ip(),
                            secure: false,
                        },
                    };
                    answer(&mut stream, method, found, ctx, false).await;
                }
                Err(why) => refuse_head(stream, why).await,
            }
            drop(permit);
        });
    }
}
