//! An API request's body, read whole before it is answered (so the
//! connection can be kept alive after it), and the reason phrases of the
//! statuses the API answers with.

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::{timeout_at, Instant};

use super::api::{API_BODY_TIMEOUT, MAX_API_BODY_BYTES};
use super::head::Head;
use crate::accounts::AuthError;

fn bad(code: &'static str, message: &str) -> AuthError {
    AuthError::new(400, code, message)
}

/// The reason phrase of `status`.
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

/// Reads the body `head` announces; `Err` answers the request and closes.
pub async fn read_body<S: AsyncRead + Unpin>(
    stream: &mut S,
    head: &Head,
) -> Result<(Vec<u8>, Vec<u8>), AuthError> {
    if head.count("transfer-encoding") > 0 {
        return Err(AuthError::new(
            411,
            "http/length_required",
            "send the body with a Content-Length",
        ));
    }
    let length = match head.header("content-length") {
        None => 0,
        Some(v) => v
            .trim()
            .parse::<usize>()
            .map_err(|_| bad("http/bad_request", "the Content-Length is not a number"))?,
    };
    if length > MAX_API_BODY_BYTES {
        return Err(AuthError::new(
            413,
            "http/too_large",
            format!("a request body has at most {MAX_API_BODY_BYTES} bytes"),
        ));
    }
    let mut got = head.bytes.get(head.len..).unwrap_or_default().to_vec();
    let deadline = Instant::now() + API_BODY_TIMEOUT;
    let mut chunk = [0u8; 2048];
    while got.len() < length {
        match timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => got.extend_from_slice(&chunk[..n]),
            _ => return Err(bad("http/bad_request", "the body did not arrive whole")),
        }
    }
    let rest = got.split_off(length);
    Ok((got, rest))
}
