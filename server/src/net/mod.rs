//! The byte streams connections run on, below HTTP and WebSocket alike:
//! a TCP socket that can follow its room to another runtime, and native
//! TLS (`--tls-cert`) over it. A leaf: it knows nothing of what the bytes
//! say, so both `http` and `websocket` build on it.

mod tls;
mod transport;

pub use tls::{Tls, TlsError};
pub use transport::{Socket, Stream};
