//! Reading a client's messages: frames out of the bytes the socket gives,
//! unmasked, checked, and put together when fragmented.
//!
//! An idle connection holds no read buffer. Bytes are read into a buffer
//! of the thread's ([`READ_CHUNK`] bytes, shared by every connection the
//! shard runs), and only what is left of a frame cut short, or frames sent
//! in a row, is kept with the connection until it is used.

use std::cell::RefCell;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

use super::frame::{self, Kind, Refusal};

/// Bytes read from a socket at once: a burst of a few dozen moves, or a
/// large request in a few reads.
pub const READ_CHUNK: usize = 16 * 1024;

thread_local! {
    /// The thread's read buffer (see the module's doc).
    static SCRATCH: RefCell<Vec<u8>> = RefCell::new(vec![0; READ_CHUNK]);
}

/// A message from the client.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A text message.
    Text(String),
    /// A binary message (the protocol has none: only its arrival is kept).
    Binary,
    /// A ping, to be answered with a pong carrying this payload.
    Ping(Vec<u8>),
    /// A pong.
    Pong,
    /// The client's close frame, with its code if it gave one.
    Close(Option<u16>),
}

/// Why no message came.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The client broke the protocol.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The socket failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The client closed the socket without a close frame.
    #[error("the connection was closed")]
    Eof,
}

/// A fragmented message being put together.
#[derive(Debug)]
struct Partial {
    /// Text (kept) or binary (only counted).
    text: bool,
    bytes: Vec<u8>,
    size: usize,
}

/// A connection's reading state.
#[derive(Debug, Default)]
pub struct Reader {
    /// Bytes read and not yet used; empty, with no capacity, between
    /// frames.
    held: Vec<u8>,
    partial: Option<Partial>,
}

impl Reader {
    /// A reader that first uses `read_ahead` (bytes that came with the
    /// upgrade request).
    pub fn new(read_ahead: Vec<u8>) -> Reader {
        Reader {
            held: read_ahead,
            partial: None,
        }
    }

    /// Bytes this connection holds for reading (for tests of idle memory).
    pub fn held_capacity(&self) -> usize {
        self.held.capacity() + self.partial.as_ref().map_or(0, |p| p.bytes.capacity())
    }

    /// The next message, messages at most `max` bytes long.
    /// Cancel-safe: what was read stays with the reader.
    pub fn poll_next<S>(
        &mut self,
        cx: &mut Context<'_>,
        io: &mut S,
        max: usize,
    ) -> Poll<Result<Incoming, ReadError>>
    where
        S: AsyncRead + Unpin,
    {
        loop {
            if !self.held.is_empty() {
                let mut held = std::mem::take(&mut self.held);
                let (used, msg) = self.take(&mut held, max)?;
                held.drain(..used);
                if !held.is_empty() {
                    self.held = held;
                }
                if let Some(msg) = msg {
                    return Poll::Ready(Ok(msg));
                }
                if self.held.is_empty() {
                    continue;
                }
                // A frame cut short: read the rest after it.
                let want = frame_bytes(&self.held, max).max(self.held.len() + 1);
                let start = self.held.len();
                self.held.resize(want.min(start + READ_CHUNK), 0);
                let mut buf = ReadBuf::new(&mut self.held[start..]);
                let read = Pin::new(&mut *io).poll_read(cx, &mut buf);
                let n = buf.filled().len();
                self.held.truncate(start + n);
                match read {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e.into())),
                    Poll::Ready(Ok(())) if n == 0 => return Poll::Ready(Err(ReadError::Eof)),
                    Poll::Ready(Ok(())) => {}
                }
                continue;
            }
            let step = SCRATCH.with(|scratch| {
                let mut scratch = scratch.borrow_mut();
                let mut buf = ReadBuf::new(&mut scratch[..]);
                match Pin::new(&mut *io).poll_read(cx, &mut buf) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(Err(e)) => Poll::Ready(Err(ReadError::Io(e))),
                    Poll::Ready(Ok(())) => {
                        let n = buf.filled().len();
                        if n == 0 {
                            return Poll::Ready(Err(ReadError::Eof));
                        }
                        let (used, msg) = match self.take(&mut scratch[..n], max) {
                            Ok(step) => step,
                            Err(e) => return Poll::Ready(Err(ReadError::Refused(e))),
                        };
                        self.held.extend_from_slice(&scratch[used..n]);
                        Poll::Ready(Ok(msg))
                    }
                }
            });
            match step {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(Some(msg))) => return Poll::Ready(Ok(msg)),
                Poll::Ready(Ok(None)) => {}
            }
        }
    }

    /// Uses the whole frames at the front of `data` up to the first that
    /// completes a message: how many bytes were used, and the message.
    fn take(&mut self, data: &mut [u8], max: usize) -> Result<(usize, Option<Incoming>), Refusal> {
        let mut at = 0;
        loop {
            let Some(head) = frame::parse(&data[at..], max)? else {
                return Ok((at, None));
            };
            let start = at + head.header_len;
            let Some(end) = start.checked_add(head.len).filter(|&e| e <= data.len()) else {
                return Ok((at, None));
            };
            at = end;
            let payload = &mut data[start..end];
            frame::unmask(payload, head.mask, 0);
            if let Some(msg) = self.frame(head, payload, max)? {
                return Ok((at, Some(msg)));
            }
        }
    }

    /// One whole frame: the message it completes, if any.
    fn frame(
        &mut self,
        head: frame::Head,
        payload: &[u8],
        max: usize,
    ) -> Result<Option<Incoming>, Refusal> {
        match head.kind {
            Kind::Ping => Ok(Some(Incoming::Ping(payload.to_vec()))),
            Kind::Pong => Ok(Some(Incoming::Pong)),
            Kind::Close => Ok(Some(Incoming::Close(frame::close_code(payload)?))),
            Kind::Text | Kind::Binary => {
                if self.partial.is_some() {
                    return Err(Refusal::Fragment);
                }
                let text = head.kind == Kind::Text;
                if head.fin {
                    return finish(text, payload.to_vec()).map(Some);
                }
                self.partial = Some(Partial {
                    text,
                    bytes: if text { payload.to_vec() } else { Vec::new() },
                    size: payload.len(),
                });
                Ok(None)
            }
            Kind::Continue => {
                let partial = self.partial.as_mut().ok_or(Refusal::Fragment)?;
                partial.size = partial.size.saturating_add(payload.len());
                if partial.size > max {
                    return Err(Refusal::TooLarge {
                        size: partial.size,
                        max,
                    });
                }
                if partial.text {
                    partial.bytes.extend_from_slice(payload);
                }
                if !head.fin {
                    return Ok(None);
                }
                let done = self.partial.take().ok_or(Refusal::Fragment)?;
                finish(done.text, done.bytes).map(Some)
            }
        }
    }
}

/// A whole message.
fn finish(text: bool, bytes: Vec<u8>) -> Result<Incoming, Refusal> {
    if !text {
        return Ok(Incoming::Binary);
    }
    String::from_utf8(bytes)
        .map(Incoming::Text)
        .map_err(|_| Refusal::NotUtf8)
}

/// How many bytes the frame at the front of `held` takes, header and
/// payload, once its header is there (else a header's worth).
fn frame_bytes(held: &[u8], max: usize) -> usize {
    match frame::parse(held, max) {
        Ok(Some(head)) => head.header_len.saturating_add(head.len),
        _ => 14,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use std::future::poll_fn;

    use tokio::io::AsyncWriteExt;

    use super::*;

    fn masked(first: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [0x11, 0x22, 0x33, 0x44];
        let mut out = vec![first];
        if payload.len() < 126 {
            out.push(0x80 | payload.len() as u8);
        } else {
            out.push(0x80 | 126);
            out.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        }
        out.extend_from_slice(&mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        out
    }

    /// Reads every message out of `bytes`, written to the socket in
    /// pieces of `piece` bytes.
    async fn read_all(bytes: Vec<u8>, piece: usize, max: usize) -> Vec<Result<Incoming, String>> {
        let (mut client, mut server) = tokio::io::duplex(64 * 1024);
        let writer = tokio::spawn(async move {
            for chunk in bytes.chunks(piece.max(1)) {
                if client.write_all(chunk).await.is_err() {
                    return;
                }
                tokio::task::yield_now().await;
            }
        });
        let mut reader = Reader::default();
        let mut got = Vec::new();
        loop {
            match poll_fn(|cx| reader.poll_next(cx, &mut server, max)).await {
                Ok(msg) => got.push(Ok(msg)),
                Err(ReadError::Eof) => {
                    assert_eq!(
                        reader.held_capacity(),
                        0,
                        "nothing is held once all is read"
                    );
                    break;
                }
                Err(e) => {
                    got.push(Err(e.to_string()));
                    break;
                }
            }
        }
        let _ = writer.await;
        got
    }

    #[tokio::test]
    async fn fragments_and_control_frames_in_between_come_out_whole_in_any_cut() {
        let mut bytes = masked(0x01, b"{\"type\":");
        bytes.extend(masked(0x89, b"hi"));
        bytes.extend(masked(0x00, b"\"ping\""));
        bytes.extend(masked(0x80, b"}"));
        bytes.extend(masked(0x81, "ünï".as_bytes()));
        bytes.extend(masked(0x82, &[1, 2, 3]));
        bytes.extend(masked(0x8A, b""));
        bytes.extend(masked(0x88, &[0x03, 0xE8]));
        for piece in [1, 2, 3, 7, 64, 4096] {
            let got = read_all(bytes.clone(), piece, 1000).await;
            assert_eq!(
                got,
                vec![
                    Ok(Incoming::Ping(b"hi".to_vec())),
                    Ok(Incoming::Text("{\"type\":\"ping\"}".into())),
                    Ok(Incoming::Text("ünï".into())),
                    Ok(Incoming::Binary),
                    Ok(Incoming::Pong),
                    Ok(Incoming::Close(Some(1000))),
                ],
                "pieces of {piece}"
            );
        }
    }

    #[tokio::test]
    async fn a_large_frame_arrives_over_several_reads() {
        let text = "x".repeat(60_000);
        let got = read_all(masked(0x81, text.as_bytes()), 5000, 64 * 1024).await;
        assert_eq!(got, vec![Ok(Incoming::Text(text))]);
    }

    #[tokio::test]
    async fn broken_messages_are_refused() {
        let cases: Vec<(Vec<u8>, Refusal)> = vec![
            (masked(0x80, b"x"), Refusal::Fragment),
            (
                [masked(0x01, b"a"), masked(0x81, b"b")].concat(),
                Refusal::Fragment,
            ),
            (masked(0x81, &[0xC3, 0x28]), Refusal::NotUtf8),
            (
                [masked(0x01, &[b'a'; 80]), masked(0x80, &[b'a'; 80])].concat(),
                Refusal::TooLarge {
                    size: 160,
                    max: 100,
                },
            ),
            (masked(0x88, &[3]), Refusal::BadClose),
        ];
        for (bytes, refusal) in cases {
            let got = read_all(bytes, 3, 100).await;
            assert_eq!(got.last(), Some(&Err(refusal.to_string())), "{refusal:?}");
        }
    }
}
