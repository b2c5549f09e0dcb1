//! Reading the export's lines one at a time, each bounded in length and
//! numbered for the messages.

use std::io::BufRead;

/// Longest line read. A match's line is its header and steps: the
/// longest real matches (four-player Cribbage to 121) take a few hundred
/// steps, tens of KiB; this bounds what a corrupt file (one without line
/// ends) makes the import hold in memory.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The lines of an export.
pub(super) struct Lines<R> {
    input: R,
    number: usize,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    pub(super) fn new(input: R) -> Lines<R> {
        Lines {
            input,
            number: 0,
            done: false,
        }
    }

    /// The next line and its number (from 1), or why it could not be
    /// read; `None` at the end. After a line that is too long, the rest
    /// of it is skipped.
    pub(super) fn next_line(&mut self) -> Option<(usize, Result<String, String>)> {
        if self.done {
            return None;
        }
        self.number += 1;
        let mut bytes = Vec::new();
        let mut too_long = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    return Some((self.number, Err(format!("cannot read: {e}"))));
                }
            };
            if chunk.is_empty() {
                self.done = true;
                if bytes.is_empty() && !too_long {
                    return None;
                }
                break;
            }
            let (part, ended) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            if bytes.len() + part.len() > MAX_LINE_BYTES {
                too_long = true;
                bytes.clear();
            } else if !too_long {
                bytes.extend_from_slice(part);
            }
            let used = ended.unwrap_or(chunk.len());
            self.input.consume(used);
            if ended.is_some() {
                break;
            }
        }
        if too_long {
            return Some((
                self.number,
                Err(format!("longer than {MAX_LINE_BYTES} bytes")),
            ));
        }
        Some((
            self.number,
            String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<(usize, Result<String, String>)> {
        let mut lines = Lines::new(input);
        std::iter::from_fn(|| lines.next_line()).collect()
    }

    #[test]
    fn lines_are_numbered_and_bad_ones_named() {
        assert_eq!(
            all(b"a\n\nb\xff\nc"),
            vec![
                (1, Ok("a".into())),
                (2, Ok(String::new())),
                (3, Err("not UTF-8 text".into())),
                (4, Ok("c".into())),
            ]
        );
        assert_eq!(all(b""), vec![]);
        assert_eq!(all(b"x\n"), vec![(1, Ok("x".into()))]);
    }

    #[test]
    fn a_line_too_long_is_refused_and_the_next_one_read() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 1];
        input.extend_from_slice(b"\nnext\n");
        let got = all(&input);
        assert_eq!(got.len(), 2);
        assert!(got[0].1.is_err());
        assert_eq!(got[1], (2, Ok("next".into())));
    }
}
