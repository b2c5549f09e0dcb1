//! The answers in plain form beside the JSON endpoints: a finished
//! match's replay, the health check, the metrics and the OpenAPI
//! document; and the operations listener (`--metrics-bind`), which
//! serves `/healthz` and `/metrics` on an address of their own (one a
//! firewall keeps private, say), apart from the players' port and its
//! caps.

use std::borrow::Cow;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::route::{route, Plain, Route};
use crate::directory::Directory;
use crate::http::{self, read_head, refuse_head, Method, Reply, HEAD_TIMEOUT};
use crate::limits::ACCEPT_BACKOFF;
use crate::metrics::Health;
use crate::slots::Slots;

/// Most requests answered at once on the operations listener: a
/// Prometheus server and a load balancer or two poll it; past this a
/// connection is closed unanswered, so a flood cannot use up the
/// file descriptors players need.
pub const MAX_OPS_CONNECTIONS: usize = 32;

/// The `Content-Type` of Prometheus's text exposition format.
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What answering a plain request may consult.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The rooms (for replays, health and metrics).
    pub directory: &'a Directory,
    /// The connection slots (health says whether newcomers are refused).
    pub slots: &'a Slots,
}

/// Answers `plain` to a `method` request on `stream`, kept alive or
/// closed as `http::answer` says.
pub async fn answer<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    method: Method,
    plain: Plain,
    ctx: Context<'_>,
    keep_alive: bool,
) -> bool {
    let reply = match plain {
        Plain::Wire(route) => return http::answer(stream, method, route, keep_alive).await,
        Plain::Replay(room) => super::replay::reply(ctx.directory, room).await,
        Plain::Health => health(ctx),
        Plain::Metrics => metrics(ctx.directory),
        Plain::OpenApi => super::openapi::reply(),
    };
    http::reply_with(stream, method, reply, keep_alive).await
}

/// Whether the node can serve: 200, or 503 and why.
fn health(ctx: Context<'_>) -> Reply {
    // Players turned away at the door come first: the node may be fine
    // otherwise, but a load balancer must send them elsewhere.
    let health = match ctx.slots.refusing(Instant::now()) {
        Some(why) => Health::NotServing(why),
        None => ctx.directory.health(),
    };
    match health {
        Health::Serving { node } => Reply {
            body: Cow::Owned(match node {
                Some(id) => format!("ok\nnode: {id}\n").into_bytes(),
                None => b"ok\n".to_vec(),
            }),
            ..Reply::text("200 OK", "")
        },
        Health::NotServing(why) => Reply {
            body: Cow::Owned(format!("unavailable: {why}\n").into_bytes()),
            ..Reply::text("503 Service Unavailable", "")
        },
    }
}

/// The node's metrics, as Prometheus text.
fn metrics(directory: &Directory) -> Reply {
    match directory.metrics_text() {
        Some(text) => Reply {
            content_type: PROMETHEUS_TEXT,
            body: Cow::Owned(text.into_bytes()),
            ..Reply::text("200 OK", "")
        },
        None => Reply::text(
            "503 Service Unavailable",
            "metrics are unavailable: another recorder is installed in this process\n",
        ),
    }
}

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
        let mut stream = match accepted {
            Ok((stream, _)) => stream,
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
                    // Only the operations' paths exist here.
                    let ops_path =
                        matches!(route("GET", &head.target), Route::Plain(p) if p.is_ops());
                    let found = match route(&head.method, &head.target) {
                        Route::Plain(plain) if ops_path => plain,
                        _ => Plain::Wire(http::Route::NotFound),
                    };
                    let ctx = Context {
                        directory: &directory,
                        slots: &slots,
                    };
                    answer(&mut stream, method, found, ctx, false).await;
                }
                Err(why) => refuse_head(stream, why).await,
            }
            drop(permit);
        });
    }
}
