//! Reading a request head, bounded in size and time.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::{timeout_at, Instant};

/// Largest request head accepted, request line and headers together.
/// Browsers send well under 2 KiB (a WebSocket upgrade is about 500
/// bytes); 8 KiB leaves room for cookies a LAN's other services set on
/// the same host, as common servers do, while capping what one
/// connection makes the server buffer before it is known to be a player.
pub const MAX_HEAD_BYTES: usize = 8 * 1024;

/// Most header lines in a head: a browser sends about 15.
pub const MAX_HEADERS: usize = 64;

/// Most time a client has to send its whole request head after
/// connecting (a browser sends it at once). The head is read before it
/// is known to be a WebSocket upgrade, so this is no shorter than the
/// protocol's promised handshake time (`HELLO_TIMEOUT`, 10 s; the tighter
/// of the two applies); a client trickling its head in is dropped then,
/// as a stalled handshake always was.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// Bytes read from the socket per call while waiting for the head.
const READ_CHUNK: usize = 2048;

/// A request head, and everything read with it.
#[derive(Debug)]
pub struct Head {
    /// The method as sent (`GET`, `POST`, ...).
    pub method: String,
    /// The request target (path and query).
    pub target: String,
    /// The HTTP minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor: u8,
    /// Whether the client asks to upgrade to WebSocket.
    pub upgrade: bool,
    /// The header lines, names as sent (compare them without case).
    pub headers: Vec<(String, String)>,
    /// Every byte read so far: the head and whatever followed it (a
    /// WebSocket client may send its first frame right behind it, and a
    /// client keeping its connection alive its next request).
    pub bytes: Vec<u8>,
    /// How many of `bytes` are the head.
    pub len: usize,
}

impl Head {
    /// The value of the header `name` (the first, if repeated).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// How many times the header `name` was sent.
    pub fn count(&self, name: &str) -> usize {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .count()
    }

    /// Whether the comma-separated header `name` lists `token` (any
    /// case), in any of its lines.
    pub fn lists(&self, name: &str, token: &str) -> bool {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .any(|(_, v)| v.split(',').any(|p| p.trim().eq_ignore_ascii_case(token)))
    }

    /// Whether the client lets the connection stay open for another
    /// request: HTTP/1.1 unless it says `Connection: close`; HTTP/1.0
    /// only if it says `Connection: keep-alive`. A request with a body
    /// closes (no route reads one, and skipping it is not worth it).
    pub fn keeps_alive(&self) -> bool {
        let asked = if self.minor >= 1 {
            !self.lists("connection", "close")
        } else {
            self.lists("connection", "keep-alive")
        };
        let body = self.count("transfer-encoding") > 0
            || self
                .header("content-length")
                .is_some_and(|v| v.trim() != "0");
        asked && !body
    }

    /// What was read after the head (the start of a next request).
    pub fn rest(mut self) -> Vec<u8> {
        self.bytes.drain(..self.len.min(self.bytes.len()));
        self.bytes
    }
}

/// Why no head could be read.
#[derive(Debug, PartialEq, Eq)]
pub enum HeadError {
    /// The client closed, or the socket failed, before the head ended.
    Gone,
    /// The head did not arrive in time.
    Timeout,
    /// The head is longer than [`MAX_HEAD_BYTES`] or has more than
    /// [`MAX_HEADERS`] lines.
    TooLarge,
    /// Not an HTTP/1.x request.
    Malformed,
}

/// Reads from `stream` until a complete request head has arrived, by
/// `deadline`.
pub async fn read_head<S: AsyncRead + Unpin>(
    stream: &mut S,
    deadline: Instant,
) -> Result<Head, HeadError> {
    read_head_after(stream, deadline, Vec::with_capacity(READ_CHUNK)).await
}

/// [`read_head`], starting with `bytes` already read (what followed the
/// previous request on a connection kept alive).
pub async fn read_head_after<S: AsyncRead + Unpin>(
    stream: &mut S,
    deadline: Instant,
    mut bytes: Vec<u8>,
) -> Result<Head, HeadError> {
    let mut chunk = [0u8; READ_CHUNK];
    loop {
        if let Some(head) = parse(&bytes)? {
            return Ok(head);
        }
        if bytes.len() >= MAX_HEAD_BYTES {
            return Err(HeadError::TooLarge);
        }
        let room = (MAX_HEAD_BYTES - bytes.len()).min(READ_CHUNK);
        let n = match timeout_at(deadline, stream.read(&mut chunk[..room])).await {
            Err(_) => return Err(HeadError::Timeout),
            Ok(Err(_)) | Ok(Ok(0)) => return Err(HeadError::Gone),
            Ok(Ok(n)) => n,
        };
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// The head in `bytes`, `None` while it is incomplete.
fn parse(bytes: &[u8]) -> Result<Option<Head>, HeadError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(bytes) {
        Ok(httparse::Status::Partial) => Ok(None),
        Ok(httparse::Status::Complete(len)) => {
            let headers = req
                .headers
                .iter()
                .map(|h| {
                    (
                        h.name.to_owned(),
                        String::from_utf8_lossy(h.value).into_owned(),
                    )
                })
                .collect();
            let mut head = Head {
                method: req.method.unwrap_or_default().to_owned(),
                target: req.path.unwrap_or_default().to_owned(),
                minor: req.version.unwrap_or_default(),
                upgrade: false,
                headers,
                bytes: bytes.to_vec(),
                len,
            };
            head.upgrade = head.lists("upgrade", "websocket");
            Ok(Some(head))
        }
        Err(httparse::Error::TooManyHeaders) => Err(HeadError::TooLarge),
        Err(_) => Err(HeadError::Malformed),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use super::*;

    #[test]
    fn a_partial_head_waits_and_a_complete_one_parses() {
        assert!(matches!(parse(b"GET / HTTP/1.1\r\nHost: x\r\n"), Ok(None)));
        let head = parse(b"GET /app.js?v=1 HTTP/1.1\r\nHost: x\r\n\r\nrest")
            .ok()
            .flatten();
        let head = head.as_ref();
        assert_eq!(head.map(|h| h.method.as_str()), Some("GET"));
        assert_eq!(head.map(|h| h.target.as_str()), Some("/app.js?v=1"));
        assert_eq!(head.map(|h| h.upgrade), Some(false));
        assert_eq!(head.map(|h| h.bytes.ends_with(b"rest")), Some(true));
        assert_eq!(head.map(|h| h.minor), Some(1));
        assert_eq!(head.map(|h| h.header("HOST")), Some(Some("x")));
    }

    fn head(text: &str) -> Head {
        match parse(text.as_bytes()) {
            Ok(Some(head)) => head,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_follows_a_head_is_kept_for_the_next_request() {
        let next = head("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n").rest();
        assert_eq!(next, b"GET /b HTTP/1.1\r\n");
    }

    #[test]
    fn keep_alive_follows_the_version_the_connection_header_and_bodies() {
        assert!(head("GET / HTTP/1.1\r\n\r\n").keeps_alive());
        assert!(!head("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keeps_alive());
        assert!(!head("GET / HTTP/1.0\r\n\r\n").keeps_alive());
        assert!(head("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").keeps_alive());
        assert!(!head("GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\n").keeps_alive());
        assert!(head("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n").keeps_alive());
        assert!(!head("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").keeps_alive());
    }

    #[test]
    fn an_upgrade_is_recognised_in_any_case_and_list() {
        let head = parse(b"GET / HTTP/1.1\r\nUPGRADE: h2c, WebSocket\r\n\r\n")
            .ok()
            .flatten();
        assert_eq!(head.map(|h| h.upgrade), Some(true));
    }

    #[test]
    fn garbage_and_header_floods_are_refused() {
        assert_eq!(
            parse(b"\x16\x03\x01 hello\r\n\r\n").err(),
            Some(HeadError::Malformed)
        );
        let mut flood = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            flood.extend_from_slice(format!("X-{i}: y\r\n").as_bytes());
        }
        flood.extend_from_slice(b"\r\n");
        assert_eq!(parse(&flood).err(), Some(HeadError::TooLarge));
    }
}
