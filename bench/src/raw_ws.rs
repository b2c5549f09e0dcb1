//! A WebSocket client written by hand over a plain TCP socket, for
//! clients that must not read. A WebSocket library reads (and answers
//! pings) whenever it is polled, so a client that "never reads its
//! socket" cannot be built on one: this one does the opening handshake,
//! writes masked frames, and reads only when asked to, parsing the
//! server's frames itself.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::ops::Range;
use std::time::Duration;

use parlor_protocol::MAX_SERVER_FRAME_BYTES;
use rand::Rng;
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{timeout, Instant};

use crate::conn::tcp_from;

/// Opcode of a text frame.
pub const OP_TEXT: u8 = 0x1;
/// Opcode of a close frame.
pub const OP_CLOSE: u8 = 0x8;

/// Longest answer to the opening handshake read: the server's `101` is a
/// few hundred bytes, so more means something else is talking.
const MAX_HANDSHAKE_ANSWER: usize = 16 * 1024;

/// How long the opening handshake may take: the server's own limit for
/// it (`HELLO_TIMEOUT`), so a failure here is the server's doing.
const HANDSHAKE_PATIENCE: Duration = parlor_server::limits::HELLO_TIMEOUT;

/// Bytes asked of the socket per read while draining: a room page is
/// tens of KiB, so a few reads per reply.
const READ_CHUNK: usize = 64 * 1024;

/// Largest frame payload accepted: the server never sends a frame above
/// its frame limit, so a larger length means the stream is out of step.
const MAX_PAYLOAD: u64 = MAX_SERVER_FRAME_BYTES as u64;

/// A WebSocket connection that reads nothing unless told to.
#[derive(Debug)]
pub struct RawWs {
    stream: TcpStream,
    /// Bytes read and not parsed yet (what followed the handshake answer).
    buf: Vec<u8>,
}

/// How a drained connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The server sent a close frame (code, reason).
    Closed(Option<u16>, String),
    /// The TCP stream ended without a close frame.
    Eof,
    /// Reading failed (typically a reset: the server dropped the socket
    /// with requests it never read still in its buffer).
    Failed(String),
    /// Still open: nothing more came within the quiet time.
    Open,
}

/// What draining a connection read.
#[derive(Clone, Debug)]
pub struct Drained {
    /// Text frames read.
    pub texts: u64,
    /// Of those, `rooms` replies.
    pub rooms_replies: u64,
    /// Bytes of every frame payload read.
    pub payload_bytes: u64,
    /// How the connection ended.
    pub end: End,
}

/// Just enough of a server message to tell its kind.
#[derive(Deserialize)]
struct Kind {
    #[serde(rename = "type")]
    kind: String,
}

impl RawWs {
    /// Connects to the loopback `target` from `source` and completes the
    /// WebSocket opening handshake (nothing else is sent).
    pub async fn connect(target: SocketAddrV4, source: Ipv4Addr) -> Result<RawWs, String> {
        let stream = tcp_from(target, source).await?;
        let mut ws = RawWs {
            stream,
            buf: Vec::new(),
        };
        timeout(HANDSHAKE_PATIENCE, ws.handshake(target))
            .await
            .map_err(|_| "handshake timed out".to_owned())??;
        Ok(ws)
    }

    async fn handshake(&mut self, target: SocketAddrV4) -> Result<(), String> {
        let key = tokio_tungstenite::tungstenite::handshake::client::generate_key();
        let request = format!(
            "GET / HTTP/1.1\r\nHost: {target}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        self.stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("handshake write: {e}"))?;
        let mut chunk = [0u8; 1024];
        loop {
            if let Some(end) = header_end(&self.buf) {
                let head = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                if !head.starts_with("HTTP/1.1 101") {
                    let status = head.lines().next().unwrap_or_default().to_owned();
                    return Err(format!("handshake refused: {status}"));
                }
                // Frames the server sent right after its answer stay queued.
                self.buf.drain(..end);
                return Ok(());
            }
            if self.buf.len() > MAX_HANDSHAKE_ANSWER {
                return Err("handshake answer too long".into());
            }
            let n = self
                .stream
                .read(&mut chunk)
                .await
                .map_err(|e| format!("handshake read: {e}"))?;
            if n == 0 {
                return Err("closed during the handshake".into());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// Writes `texts` as text frames in one write (a burst), waiting at
    /// most `patience` for the socket to take them.
    pub async fn send_texts<'a>(
        &mut self,
        texts: impl IntoIterator<Item = &'a str>,
        patience: Duration,
    ) -> Result<(), String> {
        let out: Vec<u8> = {
            let mut rng = rand::thread_rng();
            texts
                .into_iter()
                .flat_map(|t| client_frame(OP_TEXT, t.as_bytes(), rng.gen()))
                .collect()
        };
        timeout(patience, self.stream.write_all(&out))
            .await
            .map_err(|_| "write stalled".to_owned())?
            .map_err(|e| format!("write: {e}"))
    }

    /// Reads and parses everything the server sends until it closes the
    /// connection, reading fails, nothing arrives for `quiet` (still
    /// open), or `deadline` passes (also still open).
    pub async fn drain(&mut self, quiet: Duration, deadline: Instant) -> Drained {
        let mut d = Drained {
            texts: 0,
            rooms_replies: 0,
            payload_bytes: 0,
            end: End::Open,
        };
        let mut chunk = vec![0u8; READ_CHUNK];
        loop {
            loop {
                let (opcode, payload, used) = match parse_frame(&self.buf) {
                    Ok(Some(f)) => f,
                    Ok(None) => break,
                    Err(e) => {
                        d.end = End::Failed(e);
                        return d;
                    }
                };
                let body = &self.buf[payload];
                d.payload_bytes += body.len() as u64;
                match opcode {
                    OP_TEXT => {
                        d.texts += 1;
                        if serde_json::from_slice::<Kind>(body).is_ok_and(|k| k.kind == "rooms") {
                            d.rooms_replies += 1;
                        }
                    }
                    OP_CLOSE => {
                        let (code, reason) = close_payload(body);
                        d.end = End::Closed(code, reason);
                        self.buf.drain(..used);
                        return d;
                    }
                    _ => {}
                }
                self.buf.drain(..used);
            }
            let wait = quiet.min(deadline.saturating_duration_since(Instant::now()));
            match timeout(wait, self.stream.read(&mut chunk)).await {
                Err(_) => return d,
                Ok(Ok(0)) => {
                    d.end = End::Eof;
                    return d;
                }
                Ok(Ok(n)) => self.buf.extend_from_slice(&chunk[..n]),
                Ok(Err(e)) => {
                    d.end = End::Failed(e.kind().to_string());
                    return d;
                }
            }
        }
    }
}

/// Where the HTTP header ends (just past the blank line), if it has.
fn header_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

/// A final client frame: clients must mask every frame (RFC 6455 5.3),
/// and the server refuses unmasked ones.
pub fn client_frame(opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut f = Vec::with_capacity(payload.len() + 14);
    f.push(0x80 | (opcode & 0x0f));
    match payload.len() {
        n @ 0..=125 => f.push(0x80 | n as u8),
        n @ 126..=0xffff => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(0x80 | 127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().zip(mask.iter().cycle()).map(|(b, m)| b ^ m));
    f
}

/// Parses the server frame at the start of `buf`: its opcode, where its
/// payload lies in `buf`, and its whole length; `None` while it is
/// incomplete. Server frames are never masked (RFC 6455 5.1).
pub fn parse_frame(buf: &[u8]) -> Result<Option<(u8, Range<usize>, usize)>, String> {
    let (Some(&b0), Some(&b1)) = (buf.first(), buf.get(1)) else {
        return Ok(None);
    };
    if b1 & 0x80 != 0 {
        return Err("a masked frame from the server".into());
    }
    let (len, head) = match b1 & 0x7f {
        126 => match buf.get(2..4) {
            Some(b) => (u64::from(u16::from_be_bytes([b[0], b[1]])), 4),
            None => return Ok(None),
        },
        127 => match buf.get(2..10).and_then(|b| <[u8; 8]>::try_from(b).ok()) {
            Some(b) => (u64::from_be_bytes(b), 10),
            None => return Ok(None),
        },
        n => (u64::from(n), 2),
    };
    if len > MAX_PAYLOAD {
        return Err(format!("a frame of {len} bytes, over the server's limit"));
    }
    let end = head + len as usize;
    if buf.len() < end {
        return Ok(None);
    }
    Ok(Some((b0 & 0x0f, head..end, end)))
}

/// The code and reason of a close frame's payload.
pub fn close_payload(body: &[u8]) -> (Option<u16>, String) {
    match body {
        [hi, lo, reason @ ..] => (
            Some(u16::from_be_bytes([*hi, *lo])),
            String::from_utf8_lossy(reason).into_owned(),
        ),
        _ => (None, String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_frames_are_masked_as_in_rfc_6455() {
        // RFC 6455 5.7: a masked "Hello".
        let f = client_frame(OP_TEXT, b"Hello", [0x37, 0xfa, 0x21, 0x3d]);
        assert_eq!(
            f,
            [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        );
        let long = client_frame(OP_TEXT, &[b'x'; 300], [0; 4]);
        assert_eq!(&long[..4], &[0x81, 0x80 | 126, 0x01, 0x2c]);
        assert_eq!(long.len(), 4 + 4 + 300);
    }

    #[test]
    fn server_frames_parse_once_complete() {
        // RFC 6455 5.7: an unmasked "Hello", then a close 1008 "slow".
        let mut buf = vec![0x81, 0x05, b'H', b'e', b'l', b'l', b'o'];
        buf.extend([0x88, 0x06, 0x03, 0xf0, b's', b'l', b'o', b'w']);
        let (op, payload, used) = parse_frame(&buf).unwrap().unwrap();
        assert_eq!((op, &buf[payload], used), (OP_TEXT, &b"Hello"[..], 7));
        let (op, payload, used) = parse_frame(&buf[7..]).unwrap().unwrap();
        assert_eq!((op, used), (OP_CLOSE, 8));
        assert_eq!(
            close_payload(&buf[7..][payload]),
            (Some(1008), "slow".to_owned())
        );
        for cut in 0..7 {
            assert_eq!(parse_frame(&buf[..cut]).unwrap(), None);
        }
    }

    #[test]
    fn long_frames_and_bad_frames() {
        let mut buf = vec![0x81, 126, 0x01, 0x00];
        buf.extend([b'a'; 256]);
        let (_, payload, used) = parse_frame(&buf).unwrap().unwrap();
        assert_eq!((payload, used), (4..260, 260));
        let mut huge = vec![0x82, 127];
        huge.extend(u64::MAX.to_be_bytes());
        assert!(parse_frame(&huge).is_err());
        assert!(parse_frame(&[0x81, 0x85, 0, 0, 0, 0]).is_err());
        assert_eq!(close_payload(&[]), (None, String::new()));
    }

    #[test]
    fn the_header_ends_at_the_blank_line() {
        assert_eq!(header_end(b"HTTP/1.1 101 OK\r\nA: b\r\n\r\n\x81"), Some(25));
        assert_eq!(header_end(b"HTTP/1.1 101 OK\r\n"), None);
    }
}
