//! Writing an answer to an HTTP request: the plain answers (a file, a
//! text, with the page's security headers), the bare head and body any
//! other answer is written as, and the refusals of a head or an upgrade.

use std::borrow::Cow;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::timeout;

use super::head::HeadError;
use super::route::{Method, Route};
use super::upgrade::{BadUpgrade, WEBSOCKET_VERSION};

/// How long an answered connection may take to read the answer and
/// close: the page's largest file is tens of KiB, which a LAN or even a
/// slow phone link carries in well under this, and a client that does
/// not read must not hold its connection slot longer.
pub const ANSWER_LINGER: Duration = Duration::from_secs(10);

/// How long a connection kept alive may sit idle before its next request
/// has arrived whole. A browser asks for a page's files at once and for a
/// replay within seconds; every open connection holds one of the slots
/// players need, so an idle one is let go soon (a browser opens a new one
/// when it needs to, and retries a request the close raced with).
pub const KEEP_ALIVE_IDLE: Duration = Duration::from_secs(5);

/// Most requests answered on one connection. A page load is 16 files and
/// a few reloads fit; past this the connection closes and gives its slot
/// back, so no client keeps one for ever by asking without pause.
pub const MAX_REQUESTS_PER_CONNECTION: usize = 100;

/// Where the page may load anything from, and what it may not do: only
/// this server, no inline scripts or styles, no plugins, no framing.
/// `connect-src 'self'` covers the WebSocket to the same host and port.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A plain answer to send (with the page's security headers).
#[derive(Clone, Debug)]
pub struct Reply {
    /// The status line's status and reason, e.g. `200 OK`.
    pub status: &'static str,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The `Cache-Control`.
    pub cache: &'static str,
    /// Extra header lines, each ending in CRLF.
    pub extra: &'static str,
    /// The body (left out for `HEAD`).
    pub body: Cow<'static, [u8]>,
}

impl Reply {
    /// `text` as plain text with `status`, not to be cached.
    pub fn text(status: &'static str, text: &'static str) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            cache: "no-store",
            extra: "",
            body: Cow::Borrowed(text.as_bytes()),
        }
    }
}

/// Answers `route` to a `method` request on `stream`. With `keep_alive`
/// the connection stays open for the next request (true if the answer
/// was sent); without, it says `Connection: close` and closes (false).
pub async fn answer<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    method: Method,
    route: Route,
    keep_alive: bool,
) -> bool {
    let reply = match route {
        Route::Asset(asset) => Reply {
            status: "200 OK",
            content_type: asset.content_type.mime(),
            // The files change with the server binary; a browser must
            // ask again after an upgrade rather than run a stale client.
            cache: "no-cache",
            extra: "",
            body: Cow::Borrowed(asset.body),
        },
        Route::NotFound => Reply::text("404 Not Found", "not found\n"),
        Route::MethodNotAllowed => Reply {
            extra: "Allow: GET, HEAD\r\n",
            ..Reply::text("405 Method Not Allowed", "method not allowed\n")
        },
    };
    reply_with(stream, method, reply, keep_alive).await
}

/// Sends `reply` to a `method` request on `stream`, kept alive or closed
/// as [`answer`] says.
pub async fn reply_with<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    method: Method,
    reply: Reply,
    keep_alive: bool,
) -> bool {
    let Reply {
        status,
        content_type,
        cache,
        extra,
        body,
    } = reply;
    let length = body.len();
    let connection = connection_header(keep_alive);
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\
         Cache-Control: {cache}\r\nContent-Security-Policy: {CONTENT_SECURITY_POLICY}\r\n\
         X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n{extra}\
         {connection}\r\n"
    );
    let body = if method == Method::Head {
        &[][..]
    } else {
        &body[..]
    };
    deliver(stream, head.as_bytes(), body, keep_alive).await
}

/// The header line saying whether the connection stays open.
pub fn connection_header(keep_alive: bool) -> String {
    if keep_alive {
        format!("Keep-Alive: timeout={}\r\n", KEEP_ALIVE_IDLE.as_secs())
    } else {
        "Connection: close\r\n".to_owned()
    }
}

/// Sends `head` and `body`; with `keep_alive` the connection stays open
/// (true if they were taken in time), else it closes (false).
pub async fn deliver<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    head: &[u8],
    body: &[u8],
    keep_alive: bool,
) -> bool {
    if keep_alive {
        write(stream, head, body).await
    } else {
        send(stream, head, body).await;
        false
    }
}

/// The reason phrase of `status`, for the statuses the API answers with.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

/// Answers a WebSocket upgrade the handshake cannot take (see
/// `upgrade::check`), then closes the connection.
pub async fn refuse_upgrade<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, why: BadUpgrade) {
    let status = why.status();
    let reason = why.reason();
    let version = match why {
        BadUpgrade::WebSocketVersion => format!("Sec-WebSocket-Version: {WEBSOCKET_VERSION}\r\n"),
        _ => String::new(),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\n{version}Content-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        reason.len()
    );
    send(&mut stream, head.as_bytes(), reason.as_bytes()).await;
}

/// Answers a request whose head could not be read, where the client is
/// still there to hear why, then closes the connection.
pub async fn refuse_head<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, why: HeadError) {
    let status = match why {
        HeadError::TooLarge => "431 Request Header Fields Too Large",
        HeadError::Malformed => "400 Bad Request",
        // A client that sent nothing in time, or went away, gets nothing:
        // a silent connection is simply closed, as before a handshake.
        HeadError::Timeout | HeadError::Gone => return,
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: 0\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    );
    send(&mut stream, head.as_bytes(), &[]).await;
}

/// Writes `head` and `body` in one write (the head and a small body
/// leave in one segment); false if the client did not take them within
/// [`ANSWER_LINGER`].
async fn write<S: AsyncWrite + Unpin>(stream: &mut S, head: &[u8], body: &[u8]) -> bool {
    let mut all = Vec::with_capacity(head.len() + body.len());
    all.extend_from_slice(head);
    all.extend_from_slice(body);
    // Flushed: under TLS the answer may still sit in the session's
    // buffer after the write (for plain TCP the flush does nothing).
    matches!(
        timeout(ANSWER_LINGER, async {
            stream.write_all(&all).await?;
            stream.flush().await
        })
        .await,
        Ok(Ok(()))
    )
}

/// Writes `head` and `body`, then closes, reading whatever the client
/// still sends for a moment: closing a socket with unread data resets it,
/// and the client might lose the answer.
async fn send<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S, head: &[u8], body: &[u8]) {
    let _ = timeout(ANSWER_LINGER, async {
        let mut all = Vec::with_capacity(head.len() + body.len());
        all.extend_from_slice(head);
        all.extend_from_slice(body);
        stream.write_all(&all).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}
