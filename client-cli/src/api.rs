//! GETs of the server's public, read-only JSON API (ratings ledger,
//! leaderboards, player pages, match logs): a small HTTP/1.1 client over
//! plain TCP or TLS, one request per connection. The server URL may be
//! the one `parlor play` takes (`ws://`, `wss://`) or `http(s)://`.

use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long one request may take, connection to last byte: the largest
/// answers (a ledger page of a thousand lines, a long match's log) are a
/// few MB, seconds even on a slow link; beyond this the server is stuck.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Largest head (status line and headers) read: the server's are a few
/// hundred bytes.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// Times a request turned away for now (`429` or `503` with a
/// `Retry-After`: too many new connections from this address, or a full
/// server) is tried again. A verifier makes a request per rated match;
/// past the server's burst it is paced to the per-address rate (16 a
/// second by default), and a minute of refusals in a row means something
/// else is wrong.
const MAX_RETRIES: u32 = 60;

/// Longest wait before trying again, whatever `Retry-After` says.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(10);

/// A server's address as a URL gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Whether to speak TLS.
    pub tls: bool,
    /// The host name or address (without brackets for IPv6).
    pub host: String,
    /// The port.
    pub port: u16,
}

impl Origin {
    /// The origin of `url`: `ws://`, `http://` (port 80 by default),
    /// `wss://` or `https://` (port 443), with any path ignored.
    pub fn parse(url: &str) -> Result<Origin, String> {
        let (tls, rest) = if let Some(r) = url.strip_prefix("ws://") {
            (false, r)
        } else if let Some(r) = url.strip_prefix("http://") {
            (false, r)
        } else if let Some(r) = url.strip_prefix("wss://") {
            (true, r)
        } else if let Some(r) = url.strip_prefix("https://") {
            (true, r)
        } else {
            return Err(format!(
                "{url:?} is not a server URL (ws://, wss://, http:// or https://)"
            ));
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        let default_port = if tls { 443 } else { 80 };
        let bad = || format!("{url:?} has no usable host and port");
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (host, after) = v6.split_once(']').ok_or_else(bad)?;
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().map_err(|_| bad())?,
                None if after.is_empty() => default_port,
                None => return Err(bad()),
            };
            (host, port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, p.parse().map_err(|_| bad())?),
                None => (authority, default_port),
            }
        };
        if host.is_empty() {
            return Err(bad());
        }
        Ok(Origin {
            tls,
            host: host.to_owned(),
            port,
        })
    }

    /// `host:port` for the Host header.
    fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// An answer: its status and body (de-chunked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
    /// `Retry-After`, in seconds, when the answer has one.
    pub retry_after: Option<u64>,
}

impl Answer {
    /// The server's refusal as a message (`code: message` when the body
    /// is the API's error object).
    pub fn refusal(&self) -> String {
        let v: serde_json::Value = serde_json::from_slice(&self.body).unwrap_or_default();
        match (v["code"].as_str(), v["message"].as_str()) {
            (Some(code), Some(message)) => format!("{code}: {message}"),
            _ => format!("the server answered {}", self.status),
        }
    }
}

/// GETs `path` (with its query) from the server at `url`, reading at most
/// `max_body` bytes of body. A request turned away for now is tried again
/// after the `Retry-After` the server gives.
pub async fn get(url: &str, path: &str, max_body: usize) -> Result<Answer, String> {
    let origin = Origin::parse(url)?;
    let mut tries = 0;
    loop {
        let answer = tokio::time::timeout(REQUEST_TIMEOUT, exchange(&origin, path, max_body))
            .await
            .map_err(|_| format!("{url}: no answer within {} s", REQUEST_TIMEOUT.as_secs()))?
            .map_err(|e| format!("{url}: {e}"))?;
        match answer.retry_after {
            Some(secs) if matches!(answer.status, 429 | 503) && tries < MAX_RETRIES => {
                tries += 1;
                tokio::time::sleep(Duration::from_secs(secs).min(MAX_RETRY_WAIT)).await;
            }
            _ => return Ok(answer),
        }
    }
}

async fn exchange(origin: &Origin, path: &str, max_body: usize) -> Result<Answer, String> {
    let tcp = TcpStream::connect((origin.host.as_str(), origin.port))
        .await
        .map_err(|e| e.to_string())?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json, application/x-ndjson\r\n\
         Connection: close\r\n\r\n",
        origin.authority()
    );
    let raw = if origin.tls {
        let config = crate::tls::config()?;
        let name = ServerName::try_from(origin.host.clone()).map_err(|e| e.to_string())?;
        let stream = tokio_rustls::TlsConnector::from(Arc::clone(&config))
            .connect(name, tcp)
            .await
            .map_err(|e| e.to_string())?;
        send(stream, &request, max_body).await?
    } else {
        send(tcp, &request, max_body).await?
    };
    parse(&raw, max_body)
}

/// Writes the request and reads the whole answer (the server closes the
/// connection after it), refusing one larger than the limits.
async fn send<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    request: &str,
    max_body: usize,
) -> Result<Vec<u8>, String> {
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    // Chunk headers add a little to the body: allow for them.
    let cap = MAX_HEAD_BYTES + max_body + max_body / 8 + 1024;
    let mut all = Vec::new();
    (&mut stream)
        .take(cap as u64 + 1)
        .read_to_end(&mut all)
        .await
        .map_err(|e| e.to_string())?;
    if all.len() > cap {
        return Err(format!("the answer is larger than {max_body} bytes"));
    }
    Ok(all)
}

/// Splits an HTTP/1.1 answer into its status and body.
fn parse(raw: &[u8], max_body: usize) -> Result<Answer, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .filter(|&e| e <= MAX_HEAD_BYTES)
        .ok_or("not an HTTP answer")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .filter(|l| l.starts_with("HTTP/1."))
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("not an HTTP answer")?;
    let mut chunked = false;
    let mut length = None;
    let mut retry_after = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.to_ascii_lowercase().contains("chunked");
        } else if name.eq_ignore_ascii_case("retry-after") {
            retry_after = value.parse().ok();
        } else if name.eq_ignore_ascii_case("content-length") {
            length = Some(
                value
                    .parse::<usize>()
                    .map_err(|_| "the Content-Length is not a number")?,
            );
        }
    }
    let rest = &raw[end + 4..];
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(n) = length {
        rest.get(..n).ok_or("the answer ended early")?.to_vec()
    } else {
        rest.to_vec()
    };
    if body.len() > max_body {
        return Err(format!("the answer is larger than {max_body} bytes"));
    }
    Ok(Answer {
        status,
        body,
        retry_after,
    })
}

/// Joins a chunked body's chunks.
fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let eol = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk's size line is cut off")?;
        let size_text = String::from_utf8_lossy(&rest[..eol]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size =
            usize::from_str_radix(size_text, 16).map_err(|_| "a chunk's size is not a number")?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = rest.get(..size).ok_or("the answer ended early")?;
        body.extend_from_slice(chunk);
        rest = rest.get(size + 2..).ok_or("the answer ended early")?;
    }
}

/// `s` escaped for a URL's path segment or query value (everything but
/// unreserved characters percent-encoded).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_read_from_every_url_form() {
        let o = |u: &str| Origin::parse(u).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(
            o("ws://127.0.0.1:7878"),
            Origin {
                tls: false,
                host: "127.0.0.1".into(),
                port: 7878
            }
        );
        assert_eq!(o("wss://parlor.example/ws").port, 443);
        assert!(o("https://parlor.example").tls);
        assert_eq!(o("http://[::1]:9/x").host, "::1");
        assert_eq!(o("http://[::1]:9/x").authority(), "[::1]:9");
        assert!(Origin::parse("ftp://x").is_err());
        assert!(Origin::parse("ws://:80").is_err());
        assert!(Origin::parse("ws://host:port").is_err());
    }

    #[test]
    fn bodies_are_cut_at_their_length_or_joined_from_chunks() {
        let a = parse(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef", 10)
            .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!((a.status, a.body.as_slice()), (200, &b"abc"[..]));
        assert_eq!(a.retry_after, None);
        let a = parse(
            b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n",
            10,
        )
        .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!((a.status, a.retry_after), (429, Some(2)));
        let a = parse(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
            10,
        )
        .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(a.body, b"abcde");
        assert!(parse(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 10).is_err());
        assert!(parse(b"HTTP/1.1 200 OK\r\n\r\n0123456789ab", 10).is_err());
        assert!(parse(b"garbage\r\n\r\n", 10).is_err());
    }

    #[test]
    fn escaping_keeps_names_and_encodes_the_rest() {
        assert_eq!(escape("alice_B-1"), "alice_B-1");
        assert_eq!(escape("a/b?c d"), "a%2Fb%3Fc%20d");
    }
}
