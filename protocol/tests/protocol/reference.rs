//! The protocol reference, `docs/protocol/`: its chapters, one file each,
//! and the JSON they show (```json blocks and the frames of ```text
//! transcripts), for the tests that check the reference against the code.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

/// Fewest chapters the reference has: fewer means the directory moved or
/// was emptied, and every check below would pass on nothing.
const MIN_CHAPTERS: usize = 15;

/// The reference's directory.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("docs")
        .join("protocol")
}

/// One chapter: its file name (`errors.md`) and text.
#[derive(Debug)]
pub struct Chapter {
    pub name: String,
    pub text: String,
}

/// Every chapter (each `.md` file of the directory, the contents
/// included), by file name.
pub fn chapters() -> Vec<Chapter> {
    let dir = dir();
    let mut out: Vec<Chapter> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("{e}")).path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| Chapter {
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            text: std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display())),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(
        out.len() >= MIN_CHAPTERS,
        "only {} chapters in {}",
        out.len(),
        dir.display()
    );
    out
}

/// The chapter in file `name`.
pub fn chapter(name: &str) -> Chapter {
    chapters()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("docs/protocol/{name} is missing"))
}

/// A piece of JSON the reference shows, and where.
#[derive(Debug)]
pub struct Example {
    /// `docs/protocol/FILE block at line N`, or `docs/protocol/FILE line
    /// N` for a transcript's frame.
    pub what: String,
    pub text: String,
}

/// Every ```json block of `chapter`, in order.
pub fn json_blocks(chapter: &Chapter) -> Vec<Example> {
    let mut out = Vec::new();
    let mut block: Option<(usize, String)> = None;
    for (i, line) in chapter.text.lines().enumerate() {
        match &mut block {
            None if line.trim() == "```json" => block = Some((i + 1, String::new())),
            None => {}
            Some((start, text)) if line.trim() == "```" => {
                out.push(Example {
                    what: format!("docs/protocol/{} block at line {start}", chapter.name),
                    text: std::mem::take(text),
                });
                block = None;
            }
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    assert!(
        block.is_none(),
        "docs/protocol/{} has an unclosed ```json block",
        chapter.name
    );
    out
}

/// Which way a transcript's frame travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `who → {...}`: a client's frame.
    FromClient,
    /// `who ← {...}`: the server's frame.
    FromServer,
}

/// Every frame of the ```text transcripts of `chapter`.
pub fn transcript_frames(chapter: &Chapter) -> Vec<(Direction, Example)> {
    let mut out = Vec::new();
    let mut in_text = false;
    for (i, line) in chapter.text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_text = line.trim() == "```text";
            continue;
        }
        if !in_text {
            continue;
        }
        let frame = if let Some((_, frame)) = line.split_once("→ {") {
            Some((Direction::FromClient, frame))
        } else {
            line.split_once("← {")
                .map(|(_, frame)| (Direction::FromServer, frame))
        };
        if let Some((direction, frame)) = frame {
            out.push((
                direction,
                Example {
                    what: format!("docs/protocol/{} line {}", chapter.name, i + 1),
                    text: format!("{{{frame}"),
                },
            ));
        }
    }
    out
}
