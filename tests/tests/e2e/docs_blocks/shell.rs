//! The shell of the `sh` blocks, without running it: a block split into
//! lines (continuations joined) and commands (at `;`, `&&`, `||`, `&`, `|`
//! outside quotes and `$(...)`), each with its comment, and a command's
//! words as bash expands them (`printf` of the words: nothing but
//! `$(...)` in them runs). commands.rs then checks each command.

use std::collections::BTreeMap;
use std::process::Command;

/// How a command is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Join {
    /// The first of its line, or after `;`, `&&`, `||` or `&`.
    After,
    /// After `|`: the previous one's output is its input.
    Pipe,
}

/// One line of a shell block (continuations joined): its commands, as
/// source text, and its comment.
#[derive(Debug)]
pub(super) struct Line {
    pub(super) commands: Vec<(Join, String)>,
    pub(super) comment: Option<String>,
}

/// Splits a block into lines of commands, at the operators outside
/// quotes and `$(...)`.
pub(super) fn shell_lines(text: &str) -> Vec<Line> {
    let mut joined = Vec::new();
    let mut current = String::new();
    for raw in text.lines() {
        if let Some(head) = raw.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
        } else {
            current.push_str(raw);
            joined.push(std::mem::take(&mut current));
        }
    }
    let mut out = Vec::new();
    for line in joined {
        let chars: Vec<char> = line.chars().collect();
        let (mut single, mut double, mut depth) = (false, false, 0usize);
        let mut commands = Vec::new();
        let mut word = String::new();
        let mut join = Join::After;
        let mut comment = None;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            if single {
                single = c != '\'';
            } else if double {
                if c == '\\' {
                    word.push(c);
                    i += 1;
                    if let Some(n) = next {
                        word.push(n);
                    }
                    i += 1;
                    continue;
                }
                double = c != '"';
            } else if c == '\'' {
                single = true;
            } else if c == '"' {
                double = true;
            } else if c == '$' && next == Some('(') {
                depth += 1;
            } else if c == ')' && depth > 0 {
                depth -= 1;
            } else if depth == 0 {
                let at_word_start = word.is_empty() || word.ends_with(char::is_whitespace);
                let op = match (c, next) {
                    ('#', _) if at_word_start => {
                        comment = Some(chars[i + 1..].iter().collect::<String>().trim().to_owned());
                        break;
                    }
                    ('|', Some('|')) | ('&', Some('&')) => Some((Join::After, 2)),
                    ('|', _) => Some((Join::Pipe, 1)),
                    (';', _) | ('&', _) => Some((Join::After, 1)),
                    _ => None,
                };
                if let Some((then, width)) = op {
                    commands.push((join, std::mem::take(&mut word)));
                    join = then;
                    i += width;
                    continue;
                }
            }
            word.push(c);
            i += 1;
        }
        commands.push((join, word));
        commands.retain(|(_, c)| !c.trim().is_empty());
        out.push(Line { commands, comment });
    }
    out
}

/// The words bash makes of `source` (quotes removed, `$VAR` and `$(...)`
/// expanded with `vars`), without running it.
pub(super) fn expand(source: &str, vars: &BTreeMap<String, String>) -> Vec<String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("printf '%s\\0' {source}"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(vars)
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"));
    assert!(
        out.status.success(),
        "bash cannot expand {source:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}
