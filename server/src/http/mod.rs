//! HTTP/1.1 on the game port, the wire only: reading a request's head
//! and body, telling a WebSocket upgrade apart and checking it, writing
//! answers, who a request comes from, and the web client's embedded
//! files.
//!
//! What a request means is not decided here. The listener reads each
//! head ([`head::read_head`]); an upgrade, once [`check_upgrade`] finds
//! it sound (else it is answered 400 or 426), goes on to the WebSocket
//! handshake; any other request goes to the route table of the
//! endpoints, which hands back to [`route`] (the client's files) every
//! path that is not one of its own. Answers are written here
//! ([`answer`], [`reply_with`], [`deliver`]), and the connection is kept
//! alive for more (up to [`MAX_REQUESTS_PER_CONNECTION`],
//! [`KEEP_ALIVE_IDLE`] apart).
//!
//! Who a request comes from and whether it is secure is its [`Peer`]
//! (see [`Proxies`] for `--behind-proxy`). The bytes underneath, plain or
//! under native TLS, are `net`'s.

mod assets;
mod body;
mod head;
mod peer;
mod response;
mod route;
mod upgrade;

pub use assets::{Asset, ContentType, ASSETS};
pub use body::{read_body, BodyError};
pub use head::{
    read_head, read_head_after, Head, HeadError, HEAD_TIMEOUT, MAX_HEADERS, MAX_HEAD_BYTES,
};
pub use peer::{BadNet, Net, Peer, Proxies};
pub use response::{
    answer, connection_header, deliver, reason, refuse_head, refuse_upgrade, reply_with, Reply,
    ANSWER_LINGER, KEEP_ALIVE_IDLE, MAX_REQUESTS_PER_CONNECTION,
};
pub use route::{path_of, route, Method, Route};
pub use upgrade::{check as check_upgrade, BadUpgrade, WEBSOCKET_VERSION};
