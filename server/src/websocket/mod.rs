//! The WebSocket protocol (RFC 6455) on a connection's stream, as one
//! task drives it: the opening handshake's answer, messages in, batches of
//! frames out.
//!
//! Frame headers are read and written by tungstenite's codec; the
//! buffering is ours, because a server of many idle connections pays for
//! every byte a connection keeps: reads go through a buffer of the thread
//! (`read`), and writes go out from the frames' own payloads (`write`). A
//! connection between messages holds no buffer at all.

pub mod frame;
pub mod read;
pub mod write;

use std::future::poll_fn;
use std::io;

use tokio::io::AsyncWriteExt;

pub use frame::{Kind, Refusal};
pub use read::{Incoming, ReadError, Reader};
pub use write::OutFrame;

use crate::net::Stream;

/// A WebSocket connection, after the handshake.
#[derive(Debug)]
pub struct WebSocket {
    io: Stream,
    reader: Reader,
}

impl WebSocket {
    /// Answers an upgrade request whose `Sec-WebSocket-Key` is `key`
    /// (checked by `http::check_upgrade`) and returns the connection;
    /// `read_ahead` is what the client sent after the request head.
    pub async fn accept(mut io: Stream, key: &str, read_ahead: Vec<u8>) -> io::Result<WebSocket> {
        let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
        let answer = format!(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
        );
        io.write_all(answer.as_bytes()).await?;
        io.flush().await?;
        Ok(WebSocket {
            io,
            reader: Reader::new(read_ahead),
        })
    }

    /// The next message, at most `max` bytes. Cancel-safe.
    pub async fn next(&mut self, max: usize) -> Result<Incoming, ReadError> {
        let WebSocket { io, reader } = self;
        poll_fn(|cx| reader.poll_next(cx, io, max)).await
    }

    /// Writes `frames`, in one vectored write where the socket takes it.
    pub async fn send(&mut self, frames: &[OutFrame]) -> io::Result<()> {
        write::write_all(&mut self.io, frames).await
    }

    /// Ends the sending direction (after a close frame).
    pub async fn shutdown(&mut self) -> io::Result<()> {
        self.io.shutdown().await
    }

    /// Registers the socket with the current runtime (see
    /// [`Stream::rehome`]).
    pub fn rehome(&mut self) -> io::Result<()> {
        self.io.rehome()
    }

    /// Read bytes this connection keeps between messages.
    pub fn held_bytes(&self) -> usize {
        self.reader.held_capacity()
    }
}
