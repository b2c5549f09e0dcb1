//! Every fenced code block of README.md, protocol/README.md and docs/
//! (its subdirectories too) is exercised, by the language its fence names;
//! a block in a language with no check here fails, so a new block is
//! exercised by default.
//!
//! This file finds the blocks (the walk over the documents) and holds that
//! every one is in a checked language; each language is checked in a file
//! of its own:
//!
//! - [`json`]: parses; a message (a `"type"` the protocol knows) decodes.
//! - [`text`]: a transcript's frames decode; a synopsis names a command
//!   and only flags it has.
//! - [`configs`]: `toml` loads through the server's configuration and
//!   reads back; other programs' configuration (`ini`, `nginx`,
//!   `haproxy`, `caddy`) points at the server.
//! - [`python`]: compiles, is the file CI runs, imports what exists; the
//!   fair-dealing functions and the Nimrod bot run.
//! - [`http`]: each request names a documented route, each body is JSON.
//! - `sh`: [`commands`] runs or parses each command against a test
//!   server, after [`shell`] split and expanded it as the shell would;
//!   [`comments`] holds its output against the JSON its comment shows.
//!
//! Beside the blocks, [`error_codes`]: every error code the documents name
//! in backticks is one the protocol has.

// Test helpers fail the test by panicking (the files below too).
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

mod commands;
mod comments;
mod configs;
mod error_codes;
mod http;
mod json;
mod python;
mod shell;
mod text;

use std::time::{Duration, Instant};

use crate::docs::{markdown_under, read, root};

/// How long one command of a block may run: the analysis and verify
/// commands take well under a second; this only turns a hang into a
/// failure.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Fewest blocks the documents hold: fewer means the walk lost them.
const MIN_BLOCKS: usize = 150;

/// One fenced block: where it is, its language (the fence's info string),
/// its text (the fence's indentation removed), and the file a
/// `<!-- FILE -->` line right above it says it is.
#[derive(Debug)]
struct Block {
    file: String,
    line: usize,
    lang: String,
    text: String,
    marker: Option<String>,
}

impl Block {
    fn what(&self) -> String {
        format!("{} line {} ({})", self.file, self.line, self.lang)
    }
}

/// Every fenced block of the documents, in order.
fn blocks() -> Vec<Block> {
    let mut files = vec![
        root().join("README.md"),
        root().join("protocol").join("README.md"),
    ];
    files.extend(markdown_under(&root().join("docs")));
    let mut out = Vec::new();
    for path in files {
        let text = read(&path);
        let file = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let fence = lines[i];
            let Some(lang) = fence.trim_start().strip_prefix("```") else {
                i += 1;
                continue;
            };
            let indent = fence.len() - fence.trim_start().len();
            let marker = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .and_then(|l| l.trim().strip_prefix("<!-- "))
                .and_then(|l| l.strip_suffix(" -->"))
                .map(str::to_owned);
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && lines[end].trim() != "```" {
                end += 1;
            }
            assert!(end < lines.len(), "{file} line {}: unclosed block", i + 1);
            let body: Vec<&str> = lines[start..end]
                .iter()
                .map(|l| {
                    l.get(indent..)
                        .filter(|_| l[..indent].trim().is_empty())
                        .unwrap_or(l)
                })
                .collect();
            out.push(Block {
                file: file.clone(),
                line: i + 1,
                lang: lang.trim().to_owned(),
                text: body.join("\n") + "\n",
                marker,
            });
            i = end + 1;
        }
    }
    assert!(out.len() >= MIN_BLOCKS, "only {} blocks found", out.len());
    out
}

/// The blocks in `lang`, in order.
fn of(lang: &str) -> Vec<Block> {
    blocks().into_iter().filter(|b| b.lang == lang).collect()
}

/// The languages checked here; a block in another fails
/// [`every_block_is_in_a_language_that_is_checked`].
const LANGUAGES: &[&str] = &[
    "sh", "json", "toml", "python", "http", "text", "ini", "nginx", "haproxy", "caddy",
];

#[test]
fn every_block_is_in_a_language_that_is_checked() {
    let unchecked: Vec<String> = blocks()
        .iter()
        .filter(|b| !LANGUAGES.contains(&b.lang.as_str()))
        .map(|b| {
            format!(
                "{}: say its language after the fence ({LANGUAGES:?})",
                b.what()
            )
        })
        .collect();
    assert!(unchecked.is_empty(), "{}", unchecked.join("\n"));
}

/// Waits for `child` at most `limit`, then kills it (its output then says
/// what it had done).
fn wait_within(child: &mut std::process::Child, limit: Duration) {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
