//! Writing frames: a batch of queued frames leaves in one vectored write,
//! each frame's payload written from where it already is (a view encoded
//! once for every spectator is not copied per connection).

use std::future::poll_fn;
use std::io::{self, IoSlice};
use std::pin::Pin;

use tokio::io::AsyncWrite;
use tokio_tungstenite::tungstenite::Bytes;

use super::frame::{self, Kind, MAX_SERVER_HEADER};

/// Most slices handed to one `writev` (two per frame): well under the
/// kernel's `IOV_MAX` (1024), and a batch of updates rarely has more.
pub const MAX_SLICES: usize = 64;

/// A frame ready to write: its header and its payload.
#[derive(Debug)]
pub struct OutFrame {
    head: [u8; MAX_SERVER_HEADER],
    head_len: u8,
    payload: Bytes,
}

impl OutFrame {
    /// A whole, unmasked frame of `kind`.
    pub fn new(kind: Kind, payload: Bytes) -> OutFrame {
        let (head, head_len) = frame::server_header(kind, payload.len());
        OutFrame {
            head,
            head_len,
            payload,
        }
    }

    /// A close frame with `code` and `reason`.
    pub fn close(code: u16, reason: &str) -> OutFrame {
        OutFrame::new(Kind::Close, Bytes::from(frame::close_payload(code, reason)))
    }

    fn header(&self) -> &[u8] {
        &self.head[..usize::from(self.head_len)]
    }

    /// Bytes on the wire.
    pub fn len(&self) -> usize {
        usize::from(self.head_len) + self.payload.len()
    }

    /// Whether it is empty on the wire (never: a header has two bytes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Writes `frames` whole, in order, with as few writes as the socket
/// allows.
pub async fn write_all<S>(io: &mut S, frames: &[OutFrame]) -> io::Result<()>
where
    S: AsyncWrite + Unpin,
{
    for group in frames.chunks(MAX_SLICES / 2) {
        let mut slices: Vec<IoSlice<'_>> = Vec::with_capacity(group.len() * 2);
        for f in group {
            slices.push(IoSlice::new(f.header()));
            if !f.payload.is_empty() {
                slices.push(IoSlice::new(&f.payload));
            }
        }
        let mut left: &mut [IoSlice<'_>] = &mut slices;
        while !left.is_empty() {
            let n = poll_fn(|cx| Pin::new(&mut *io).poll_write_vectored(cx, left)).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            IoSlice::advance_slices(&mut left, n);
        }
    }
    poll_fn(|cx| Pin::new(&mut *io).poll_flush(cx)).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn a_batch_reaches_the_client_whole_through_a_narrow_pipe() {
        // A pipe that takes a few bytes at a time: every write is partial.
        let (mut server, mut client) = tokio::io::duplex(7);
        let big = "y".repeat(70_000);
        let frames = vec![
            OutFrame::new(Kind::Text, Bytes::from_static(b"{\"type\":\"a\"}")),
            OutFrame::new(Kind::Ping, Bytes::new()),
            OutFrame::new(Kind::Text, Bytes::from(big.clone())),
            OutFrame::close(1000, "bye"),
        ];
        let total: usize = frames.iter().map(OutFrame::len).sum();
        let reading = tokio::spawn(async move {
            let mut got = Vec::new();
            let _ = client.read_to_end(&mut got).await;
            got
        });
        if let Err(e) = write_all(&mut server, &frames).await {
            panic!("{e}");
        }
        drop(server);
        let got = match reading.await {
            Ok(got) => got,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(got.len(), total);
        assert_eq!(&got[..14], b"\x81\x0c{\"type\":\"a\"}");
        assert_eq!(&got[14..16], b"\x89\x00");
        // 70,000 bytes take the 8-byte length.
        assert_eq!(got[16..18], [0x81, 127]);
        assert_eq!(got[18..26], 70_000u64.to_be_bytes());
        assert_eq!(&got[26..26 + 70_000], big.as_bytes());
        assert_eq!(&got[26 + 70_000..], b"\x88\x05\x03\xe8bye");
    }
}
