//! WebSocket frames as RFC 6455 (section 5) lays them out: the masked
//! frames a client sends and the unmasked ones a server writes. The header
//! is read and written by tungstenite's codec; this module adds the checks
//! a server owes the protocol before it trusts a frame.

use std::io::Cursor;

use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;

/// Longest payload of a control frame (RFC 6455, 5.5).
pub const MAX_CONTROL_PAYLOAD: usize = 125;

/// Longest header a server writes: 2 bytes, 8 of length, no mask.
pub const MAX_SERVER_HEADER: usize = 10;

/// What a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The first frame of a text message.
    Text,
    /// The first frame of a binary message.
    Binary,
    /// A later frame of a fragmented message.
    Continue,
    /// The closing handshake.
    Close,
    /// A ping (to be answered with a pong carrying its payload).
    Ping,
    /// A pong.
    Pong,
}

impl Kind {
    /// Whether it is a control frame (never fragmented, short).
    pub fn is_control(self) -> bool {
        matches!(self, Kind::Close | Kind::Ping | Kind::Pong)
    }

    fn opcode(self) -> OpCode {
        match self {
            Kind::Text => OpCode::Data(Data::Text),
            Kind::Binary => OpCode::Data(Data::Binary),
            Kind::Continue => OpCode::Data(Data::Continue),
            Kind::Close => OpCode::Control(Control::Close),
            Kind::Ping => OpCode::Control(Control::Ping),
            Kind::Pong => OpCode::Control(Control::Pong),
        }
    }
}

/// A client frame's header, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// What the frame carries.
    pub kind: Kind,
    /// Whether it ends its message.
    pub fin: bool,
    /// The key its payload is masked with.
    pub mask: [u8; 4],
    /// Payload bytes.
    pub len: usize,
    /// Header bytes (the payload starts after them).
    pub header_len: usize,
}

/// Why a client's frame is refused. The connection is then closed with
/// [`Refusal::close_code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A reserved bit is set: this server negotiates no extension.
    #[error("a reserved bit is set, and no extension was agreed")]
    ReservedBits,
    /// An opcode RFC 6455 reserves.
    #[error("opcode {0} is reserved")]
    ReservedOpcode(u8),
    /// A client frame without a mask (RFC 6455, 5.1).
    #[error("a client's frames must be masked")]
    Unmasked,
    /// A control frame longer than [`MAX_CONTROL_PAYLOAD`] or fragmented.
    #[error("a control frame must be whole and at most {MAX_CONTROL_PAYLOAD} bytes")]
    BadControl,
    /// A continuation with no message begun, or a new message before the
    /// last one ended.
    #[error("a fragment out of order")]
    Fragment,
    /// A close frame whose body is one byte, a code no endpoint may send,
    /// or a reason that is not UTF-8.
    #[error("a malformed close frame")]
    BadClose,
    /// A message over the limit.
    #[error("a frame of {size} bytes is over the limit of {max} bytes")]
    TooLarge {
        /// The size the client announced (so far, for a fragmented one).
        size: usize,
        /// The limit.
        max: usize,
    },
    /// A text message that is not UTF-8.
    #[error("a text frame must be UTF-8")]
    NotUtf8,
}

impl Refusal {
    /// The close code that says why (RFC 6455, 7.4.1).
    pub fn close_code(self) -> u16 {
        match self {
            Refusal::TooLarge { .. } => 1009,
            Refusal::NotUtf8 => 1007,
            _ => 1002,
        }
    }
}

/// Reads a client frame's header from the front of `bytes`: `None` if
/// more bytes are needed. `max` bounds a data frame's payload (a control
/// frame's is bounded by the protocol).
pub fn parse(bytes: &[u8], max: usize) -> Result<Option<Head>, Refusal> {
    let mut cursor = Cursor::new(bytes);
    let (header, len) = match FrameHeader::parse(&mut cursor) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return Ok(None),
        // The codec's only error on a slice is a reserved opcode.
        Err(_) => {
            return Err(Refusal::ReservedOpcode(
                bytes.first().map_or(0, |b| b & 0x0F),
            ))
        }
    };
    if header.rsv1 || header.rsv2 || header.rsv3 {
        return Err(Refusal::ReservedBits);
    }
    let kind = match header.opcode {
        OpCode::Data(Data::Text) => Kind::Text,
        OpCode::Data(Data::Binary) => Kind::Binary,
        OpCode::Data(Data::Continue) => Kind::Continue,
        OpCode::Control(Control::Close) => Kind::Close,
        OpCode::Control(Control::Ping) => Kind::Ping,
        OpCode::Control(Control::Pong) => Kind::Pong,
        OpCode::Data(Data::Reserved(op)) | OpCode::Control(Control::Reserved(op)) => {
            return Err(Refusal::ReservedOpcode(op))
        }
    };
    let mask = header.mask.ok_or(Refusal::Unmasked)?;
    if kind.is_control() && (!header.is_final || len > MAX_CONTROL_PAYLOAD as u64) {
        return Err(Refusal::BadControl);
    }
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    if len > max {
        return Err(Refusal::TooLarge { size: len, max });
    }
    let header_len = usize::try_from(cursor.position()).unwrap_or(usize::MAX);
    Ok(Some(Head {
        kind,
        fin: header.is_final,
        mask,
        len,
        header_len,
    }))
}

/// Unmasks a payload in place; `offset` is where in the payload `bytes`
/// begins (a payload may arrive in pieces).
pub fn unmask(bytes: &mut [u8], mask: [u8; 4], offset: usize) {
    let mut key = mask;
    key.rotate_left(offset % 4);
    let word = u32::from_ne_bytes(key);
    let mut words = bytes.chunks_exact_mut(4);
    for w in &mut words {
        let x = u32::from_ne_bytes([w[0], w[1], w[2], w[3]]) ^ word;
        w.copy_from_slice(&x.to_ne_bytes());
    }
    for (b, k) in words.into_remainder().iter_mut().zip(key) {
        *b ^= k;
    }
}

/// The header of an unmasked, whole frame of `kind` with `len` payload
/// bytes, and how many of its bytes are used.
pub fn server_header(kind: Kind, len: usize) -> ([u8; MAX_SERVER_HEADER], u8) {
    let header = FrameHeader {
        is_final: true,
        opcode: kind.opcode(),
        ..FrameHeader::default()
    };
    let mut out = [0u8; MAX_SERVER_HEADER];
    let mut cursor = Cursor::new(&mut out[..]);
    // Ten bytes always hold an unmasked header; a failure would leave a
    // frame the client rejects, never a wrong one.
    let _ = header.format(len as u64, &mut cursor);
    let used = u8::try_from(cursor.position()).unwrap_or(0);
    (out, used)
}

/// A close frame's payload: `code` then `reason`, cut to fit a control
/// frame (at a character boundary).
pub fn close_payload(code: u16, reason: &str) -> Vec<u8> {
    let mut cut = reason.len().min(MAX_CONTROL_PAYLOAD - 2);
    while !reason.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut payload = Vec::with_capacity(2 + cut);
    payload.extend_from_slice(&code.to_be_bytes());
    payload.extend_from_slice(&reason.as_bytes()[..cut]);
    payload
}

/// The code of a client's close frame (`None` if it gave none), checked:
/// RFC 6455, 7.4, lets an endpoint send 1000-1003, 1007-1014 and
/// 3000-4999 only.
pub fn close_code(payload: &[u8]) -> Result<Option<u16>, Refusal> {
    match payload {
        [] => Ok(None),
        [_] => Err(Refusal::BadClose),
        [hi, lo, reason @ ..] => {
            let code = u16::from_be_bytes([*hi, *lo]);
            let allowed = matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999);
            if !allowed || std::str::from_utf8(reason).is_err() {
                return Err(Refusal::BadClose);
            }
            Ok(Some(code))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client frame as a browser would send it.
    fn masked(first: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
        let mut out = vec![first];
        match payload.len() {
            n if n < 126 => out.push(0x80 | n as u8),
            n if n <= 0xFFFF => {
                out.push(0x80 | 126);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                out.push(0x80 | 127);
                out.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        out.extend_from_slice(&mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        out
    }

    #[test]
    fn a_masked_text_frame_reads_back_in_any_split() {
        let text = b"{\"type\":\"play\",\"mv\":[1,2]}";
        let frame = masked(0x81, text, [7, 42, 200, 1]);
        for cut in 0..frame.len() {
            // Any prefix shorter than the header asks for more.
            let head = parse(&frame[..cut], 1000);
            if let Ok(Some(h)) = head {
                assert_eq!(h.header_len, 6);
            } else {
                assert_eq!(head, Ok(None), "cut {cut}");
            }
        }
        let Ok(Some(head)) = parse(&frame, 1000) else {
            panic!("a whole frame parses");
        };
        assert_eq!(
            (head.kind, head.fin, head.len),
            (Kind::Text, true, text.len())
        );
        // Unmasked in two uneven pieces, as it may arrive.
        let mut payload = frame[head.header_len..].to_vec();
        let (a, b) = payload.split_at_mut(5);
        unmask(a, head.mask, 0);
        unmask(b, head.mask, 5);
        assert_eq!(payload, text);
    }

    #[test]
    fn long_lengths_use_the_extended_fields() {
        for n in [125usize, 126, 65_535, 65_536] {
            let frame = masked(0x82, &vec![9u8; n], [1, 2, 3, 4]);
            let Ok(Some(head)) = parse(&frame, 1 << 20) else {
                panic!("{n} bytes parse");
            };
            assert_eq!(head.len, n);
            assert_eq!(head.header_len + n, frame.len());
        }
    }

    #[test]
    fn what_a_server_must_refuse_is_refused() {
        let mask = [1, 2, 3, 4];
        // Unmasked.
        assert_eq!(parse(&[0x81, 0x01, b'x'], 100), Err(Refusal::Unmasked));
        // RSV1 without permessage-deflate.
        assert_eq!(
            parse(&masked(0xC1, b"x", mask), 100),
            Err(Refusal::ReservedBits)
        );
        // Reserved opcodes, data and control.
        assert_eq!(
            parse(&masked(0x83, b"", mask), 100),
            Err(Refusal::ReservedOpcode(3))
        );
        assert_eq!(
            parse(&masked(0x8B, b"", mask), 100),
            Err(Refusal::ReservedOpcode(11))
        );
        // A fragmented ping, a long one.
        assert_eq!(
            parse(&masked(0x09, b"", mask), 100),
            Err(Refusal::BadControl)
        );
        assert_eq!(
            parse(&masked(0x89, &[0; 126], mask), 1000),
            Err(Refusal::BadControl)
        );
        // Over the limit, refused from the header alone.
        assert_eq!(
            parse(&masked(0x81, &[b'a'; 300], mask)[..8], 200),
            Err(Refusal::TooLarge {
                size: 300,
                max: 200
            })
        );
    }

    #[test]
    fn server_headers_match_the_codecs_lengths() {
        for (n, used) in [(0usize, 2u8), (125, 2), (126, 4), (65_535, 4), (65_536, 10)] {
            let (bytes, len) = server_header(Kind::Text, n);
            assert_eq!(len, used, "{n}");
            assert_eq!(bytes[0], 0x81);
            // No mask bit.
            assert_eq!(bytes[1] & 0x80, 0);
        }
        assert_eq!(server_header(Kind::Ping, 0).0[..2], [0x89, 0]);
    }

    #[test]
    fn close_bodies_are_checked_and_cut_to_fit() {
        assert_eq!(close_code(&[]), Ok(None));
        assert_eq!(close_code(&[3]), Err(Refusal::BadClose));
        assert_eq!(close_code(&[0x03, 0xE8, b'o', b'k']), Ok(Some(1000)));
        // 1005 and 1006 are never sent on the wire.
        assert_eq!(close_code(&1005u16.to_be_bytes()), Err(Refusal::BadClose));
        assert_eq!(close_code(&[0x03, 0xE8, 0xFF]), Err(Refusal::BadClose));
        let long = "é".repeat(100);
        let body = close_payload(4001, &long);
        assert!(body.len() <= MAX_CONTROL_PAYLOAD);
        assert_eq!(close_code(&body), Ok(Some(4001)));
    }
}
