//! A request's body, read whole before it is answered (so the connection
//! can be kept alive after it), and why one could not be read.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::{timeout_at, Instant};

use super::head::Head;

/// Why a request's body could not be read. After any of these the
/// connection is answered and closed: where the next request would start
/// is unknown.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// Sent with `Transfer-Encoding` (chunked) rather than a length.
    #[error("send the body with a Content-Length")]
    Chunked,
    /// The `Content-Length` is not a number.
    #[error("the Content-Length is not a number")]
    BadLength,
    /// Longer than the endpoint takes.
    #[error("a request body has at most {max} bytes")]
    TooLarge {
        /// The most bytes a body may have.
        max: usize,
    },
    /// The connection closed, or the time ran out, before the body's end.
    #[error("the body did not arrive whole")]
    Incomplete,
}

/// Reads the body `head` announces, of at most `max` bytes, all of it
/// within `within`: the body, and the bytes read past it.
pub async fn read_body<S: AsyncRead + Unpin>(
    stream: &mut S,
    head: &Head,
    max: usize,
    within: Duration,
) -> Result<(Vec<u8>, Vec<u8>), BodyError> {
    if head.count("transfer-encoding") > 0 {
        return Err(BodyError::Chunked);
    }
    let length = match head.header("content-length") {
        None => 0,
        Some(v) => v
            .trim()
            .parse::<usize>()
            .map_err(|_| BodyError::BadLength)?,
    };
    if length > max {
        return Err(BodyError::TooLarge { max });
    }
    let mut got = head.bytes.get(head.len..).unwrap_or_default().to_vec();
    let deadline = Instant::now() + within;
    let mut chunk = [0u8; 2048];
    while got.len() < length {
        match timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => got.extend_from_slice(&chunk[..n]),
            _ => return Err(BodyError::Incomplete),
        }
    }
    let rest = got.split_off(length);
    Ok((got, rest))
}
