//! The byte stream a connection runs on: plain TCP, or TLS over TCP
//! (`--tls-cert`), either of which can move between runtimes.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

/// A TCP socket that can move to another runtime (see `rehome`): a
/// connection follows its room to the room's shard (see `shard`), and a
/// socket is woken by the poller of the runtime it was registered with.
#[derive(Debug)]
pub struct Socket {
    /// `None` only if a move to another runtime failed: the connection
    /// is then over.
    stream: Option<TcpStream>,
}

impl Socket {
    /// `stream`, registered with the current runtime.
    pub fn new(stream: TcpStream) -> Socket {
        Socket {
            stream: Some(stream),
        }
    }

    /// Registers the socket with the current runtime's poller (leaving the
    /// one it was registered with). Must run on the runtime that is to
    /// poll it from now on.
    fn rehome(&mut self) -> io::Result<()> {
        let stream = self.stream.take().ok_or_else(gone)?;
        let std = stream.into_std()?;
        self.stream = Some(TcpStream::from_std(std)?);
        Ok(())
    }

    /// Sets `TCP_NODELAY` (frames are small and must leave at once).
    pub fn set_nodelay(&self, on: bool) -> io::Result<()> {
        self.stream.as_ref().ok_or_else(gone)?.set_nodelay(on)
    }

    fn stream(&mut self) -> io::Result<Pin<&mut TcpStream>> {
        self.stream.as_mut().map(Pin::new).ok_or_else(gone)
    }
}

/// A connection's bytes, in clear or under TLS. An enum rather than a
/// boxed trait object, so that the plain path costs what it always did
/// (no allocation, no dynamic call); the TLS state (rustls's buffers,
/// about a kilobyte) is boxed so that it does not make every plain
/// connection larger.
#[derive(Debug)]
pub enum Stream {
    /// Plain TCP.
    Plain(Socket),
    /// TLS over TCP.
    Tls(Box<TlsStream<Socket>>),
}

impl Stream {
    /// Whether the bytes travel under TLS.
    pub fn is_tls(&self) -> bool {
        matches!(self, Stream::Tls(_))
    }

    /// Registers the socket with the current runtime's poller (leaving
    /// the one it was registered with; see [`Socket`]). Must run on the
    /// runtime that is to poll it from now on.
    pub fn rehome(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.rehome(),
            Stream::Tls(t) => t.get_mut().0.rehome(),
        }
    }

    /// Sets `TCP_NODELAY` on the socket underneath.
    pub fn set_nodelay(&self, on: bool) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.set_nodelay(on),
            Stream::Tls(t) => t.get_ref().0.set_nodelay(on),
        }
    }
}

fn gone() -> io::Error {
    io::Error::new(
        io::ErrorKind::NotConnected,
        "the connection could not move to its shard",
    )
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(t) => Pin::new(t.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(t) => Pin::new(t.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(t) => Pin::new(t.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(t) => t.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(t) => Pin::new(t.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(t) => Pin::new(t.as_mut()).poll_shutdown(cx),
        }
    }
}

impl AsyncRead for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_read(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_write(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_write_vectored(cx, bufs),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.is_write_vectored())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_flush(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(s) => s.poll_shutdown(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn the_socket_keeps_working_on_another_runtime() {
        let first = ok(tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build());
        let (mut transport, client) = first.block_on(async {
            let listener = ok(TcpListener::bind("127.0.0.1:0").await);
            let addr = ok(listener.local_addr());
            let client = ok(TcpStream::connect(addr).await);
            let (server, _) = ok(listener.accept().await);
            (Stream::Plain(Socket::new(server)), client)
        });
        let second = ok(std::thread::spawn(move || {
            let rt = ok(tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build());
            rt.block_on(async move {
                ok(transport.rehome());
                // The first runtime no longer runs: the client moves too.
                let mut client = ok(TcpStream::from_std(ok(client.into_std())));
                ok(client.write_all(b"HTTP").await);
                let mut got = [0u8; 4];
                ok(transport.read_exact(&mut got).await);
                ok(transport.write_all(b"pong").await);
                let mut back = [0u8; 4];
                ok(client.read_exact(&mut back).await);
                (got, back)
            })
        })
        .join());
        drop(first);
        assert_eq!(&second.0, b"HTTP");
        assert_eq!(&second.1, b"pong");
    }
}
