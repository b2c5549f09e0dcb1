//! Plain HTTP on the game port: the web client's files, beside the
//! WebSocket upgrade on the same listener.
//!
//! The listener reads each connection's request head first
//! ([`head::read_head`]). An upgrade to WebSocket goes on to the
//! protocol's handshake with the bytes already read put back in front
//! ([`rewind`]); any other request is answered here from a closed set
//! of [`Route`]s (the client's files, and a finished match's positions
//! for its replay screen, the health check and the metrics) and the
//! connection is closed. The health check and the metrics can also be
//! served on a listener of their own ([`serve_ops`]).

mod assets;
mod head;
mod ops;
mod replay;
mod response;
mod route;
mod transport;

pub use assets::{Asset, ContentType, ASSETS};
pub use head::{read_head, Head, HeadError, HEAD_TIMEOUT, MAX_HEADERS, MAX_HEAD_BYTES};
pub use ops::{serve_ops, MAX_OPS_CONNECTIONS};
pub use replay::MAX_REPLAY_STEPS;
pub use response::{answer, refuse_head};
pub use route::{is_ops, route, Method, Route, HEALTH_PATH, METRICS_PATH, REPLAY_PREFIX};
pub use transport::{rewind, Transport};
