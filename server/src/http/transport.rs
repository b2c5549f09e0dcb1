//! The byte stream a WebSocket connection runs on.

use std::io::Cursor;

use tokio::io::{AsyncReadExt, Chain, Join};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

/// A TCP connection whose first bytes (the request head, already read to
/// decide how to answer it) are read again before the socket's own: the
/// WebSocket handshake then sees the request as the client sent it.
pub type Transport = Join<Chain<Cursor<Vec<u8>>, OwnedReadHalf>, OwnedWriteHalf>;

/// `stream` with `read` put back in front of what it will still read.
pub fn rewind(stream: TcpStream, read: Vec<u8>) -> Transport {
    let (rx, tx) = stream.into_split();
    tokio::io::join(Cursor::new(read).chain(rx), tx)
}
