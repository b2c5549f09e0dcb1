//! Plain HTTP on the game port: the web client's files, beside the
//! WebSocket upgrade on the same listener.
//!
//! The listener reads each connection's request head first
//! ([`head::read_head`]). An upgrade to WebSocket goes on to the
//! handshake (the listener's, with any bytes read past the head), once
//! [`check_upgrade`] finds it sound (else it is
//! answered 400 or 426); any other request is answered here from a closed
//! set of [`Route`]s (the client's files, and a finished match's
//! positions for its replay screen, the health check and the metrics),
//! and the connection is kept alive for more (up to
//! [`MAX_REQUESTS_PER_CONNECTION`], [`KEEP_ALIVE_IDLE`] apart). The health
//! check and the metrics can instead be served on a listener of their own
//! ([`serve_ops`]).
//!
//! With native TLS ([`Tls`]) every connection's TLS handshake comes
//! first, and everything above runs inside it. Who a request comes from
//! and whether it is secure is its [`Peer`] (see [`Proxies`] for
//! `--behind-proxy`).

pub mod api;
mod assets;
mod body;
mod head;
pub mod ladder;
mod ops;
mod peer;
mod player;
pub mod ratings;
mod replay;
mod response;
mod route;
mod tls;
pub mod tournaments;
mod transport;
mod upgrade;

pub use assets::{Asset, ContentType, ASSETS};
pub use head::{
    read_head, read_head_after, Head, HeadError, HEAD_TIMEOUT, MAX_HEADERS, MAX_HEAD_BYTES,
};
pub use ops::{serve_ops, MAX_OPS_CONNECTIONS};
pub use peer::{BadNet, Net, Peer, Proxies};
pub use replay::MAX_REPLAY_STEPS;
pub use response::{
    answer, refuse_head, refuse_upgrade, Context, ANSWER_LINGER, KEEP_ALIVE_IDLE,
    MAX_REQUESTS_PER_CONNECTION,
};
pub use route::{is_ops, route, Method, Route, HEALTH_PATH, METRICS_PATH, REPLAY_PREFIX};
pub use tls::{Tls, TlsError};
pub use transport::{Socket, Stream};
pub use upgrade::{check as check_upgrade, BadUpgrade, WEBSOCKET_VERSION};
