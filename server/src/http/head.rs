//! Reading a request head, bounded in size and time.

use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
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
    /// Whether the client asks to upgrade to WebSocket.
    pub upgrade: bool,
    /// Every byte read so far: the head and whatever followed it (a
    /// WebSocket client may send its first frame right behind it).
    pub bytes: Vec<u8>,
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
pub async fn read_head(stream: &mut TcpStream, deadline: Instant) -> Result<Head, HeadError> {
    let mut bytes = Vec::with_capacity(READ_CHUNK);
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
        Ok(httparse::Status::Complete(_)) => {
            let upgrade = req.headers.iter().any(|h| {
                h.name.eq_ignore_ascii_case("upgrade")
                    && String::from_utf8_lossy(h.value)
                        .split(',')
                        .any(|p| p.trim().eq_ignore_ascii_case("websocket"))
            });
            Ok(Some(Head {
                method: req.method.unwrap_or_default().to_owned(),
                target: req.path.unwrap_or_default().to_owned(),
                upgrade,
                bytes: bytes.to_vec(),
            }))
        }
        Err(httparse::Error::TooManyHeaders) => Err(HeadError::TooLarge),
        Err(_) => Err(HeadError::Malformed),
    }
}

#[cfg(test)]
mod tests {
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
