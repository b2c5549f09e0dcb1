//! The README and the documents beside it stay true to the repository:
//! the README's bot is the program CI plays (`examples/readme_bot.py`,
//! run by `.ci/python-bot`), and every relative link of README.md,
//! docs/ (its subdirectories too: the protocol reference is
//! docs/protocol/) and protocol/README.md names a file that exists and,
//! with an anchor, a heading of it (or an `<a id>` in it); every long flag
//! of every command of `parlor-server` and of `parlor` (found by walking
//! their `--help`) is named in README.md or docs/. The code blocks are
//! exercised in `docs_blocks/`.

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// GitHub's anchor of a heading: lower case, spaces to dashes, other
/// punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `text`: its headings', and those set with `<a id="...">`.
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect();
    let mut rest = text;
    while let Some(at) = rest.find("<a id=\"") {
        rest = &rest[at + 7..];
        if let Some(end) = rest.find('"') {
            out.push(rest[..end].to_owned());
        }
    }
    out
}

/// Every `.md` file under `dir`, its subdirectories included, by path.
pub(crate) fn markdown_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_dir() {
            out.extend(markdown_under(&path));
        } else if path.extension().is_some_and(|x| x == "md") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every `](target)` of `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_owned());
        }
    }
    out
}

#[test]
fn the_readmes_bot_is_the_program_ci_plays() {
    let readme = read(&root().join("README.md"));
    let marker = "<!-- examples/readme_bot.py -->\n```python\n";
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("README.md has no marked bot"))
        + marker.len();
    let end = start
        + readme[start..]
            .find("```")
            .unwrap_or_else(|| panic!("the bot's block is not closed"));
    let program = read(&root().join("examples").join("readme_bot.py"));
    assert_eq!(
        &readme[start..end],
        program,
        "README.md's bot differs from examples/readme_bot.py"
    );
    let lines = program.lines().count();
    assert!(
        lines <= 25,
        "the README promises 25 lines, the bot has {lines}"
    );
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let mut files = vec![
        root().join("README.md"),
        root().join("protocol").join("README.md"),
    ];
    files.extend(markdown_under(&root().join("docs")));
    assert!(
        files.iter().any(|f| f.ends_with("docs/protocol/errors.md")),
        "the protocol reference is not among {files:?}"
    );
    assert!(files.len() > 30, "{files:?}");
    let mut checked = 0;
    for file in &files {
        let text = read(file);
        let dir = file
            .parent()
            .unwrap_or_else(|| panic!("{}", file.display()));
        for target in links(&text) {
            if target.starts_with("http") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            assert!(
                linked.exists(),
                "{} links to {target}, which does not exist",
                file.display()
            );
            if let (Some(fragment), true) =
                (fragment, linked.extension().is_some_and(|x| x == "md"))
            {
                assert!(
                    anchors(&read(&linked)).iter().any(|a| a == fragment),
                    "{} links to {target}, which has no such heading",
                    file.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} links checked");
}

/// The built `parlor` command, beside the test binary's directory (as
/// the server's is).
pub(crate) fn cli_bin() -> PathBuf {
    let bin = crate::moderation::server_bin().with_file_name("parlor");
    assert!(
        bin.exists(),
        "{} is missing: build it (cargo build -p parlor-cli)",
        bin.display()
    );
    bin
}

/// What `bin ARGS --help` prints.
fn help(bin: &Path, args: &[String]) -> String {
    let out = std::process::Command::new(bin)
        .args(args)
        .arg("--help")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{} {args:?} --help failed",
        bin.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A long flag a command's help lists, and whether it takes a value.
#[derive(Debug, Clone)]
pub(crate) struct Flag {
    pub name: String,
    pub takes_value: bool,
}

/// The long flags of a `--help` text (`--help` itself left out).
fn flags_of(help: &str) -> Vec<Flag> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            // A short flag first (`-h, --help`).
            let l = match l.as_bytes() {
                [b'-', c, b',', b' ', ..] if c.is_ascii_alphanumeric() => &l[4..],
                _ => l,
            };
            let rest = l.strip_prefix("--")?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
                .collect();
            let after = &rest[name.len()..];
            (!name.is_empty() && name != "help").then(|| Flag {
                name: format!("--{name}"),
                takes_value: after.starts_with(" <")
                    || after.starts_with("=<")
                    || after.starts_with(" [<"),
            })
        })
        .collect()
}

/// The subcommands a `--help` text lists (its `Commands:` section, up to
/// the blank line; `help` left out).
fn subcommands_of(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("      "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// One command of a binary: its subcommand path (empty for the binary
/// itself) and the long flags its help lists.
#[derive(Debug, Clone)]
pub(crate) struct CommandHelp {
    pub path: Vec<String>,
    pub flags: Vec<Flag>,
}

/// Every command of `bin`, found by walking its help from the top.
pub(crate) fn command_tree(bin: &Path) -> Vec<CommandHelp> {
    let mut out = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let text = help(bin, &path);
        for sub in subcommands_of(&text) {
            let mut deeper = path.clone();
            deeper.push(sub);
            todo.push(deeper);
        }
        out.push(CommandHelp {
            path,
            flags: flags_of(&text),
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Whether `text` names `flag` as a whole word.
fn names(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(at, _)| {
        !text[at + flag.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '-')
    })
}

/// README.md and every document under docs/, as one text.
fn all_docs() -> String {
    let mut docs = read(&root().join("README.md"));
    for path in markdown_under(&root().join("docs")) {
        docs.push_str(&read(&path));
    }
    docs
}

/// Every long flag of every command of `bin` is named in the docs;
/// `known` are commands the walk must find (else it read the help
/// wrong and would pass on nothing). The number of flags checked.
fn every_flag_documented(bin: &Path, known: &[&[&str]]) -> usize {
    let docs = all_docs();
    let tree = command_tree(bin);
    for path in known {
        assert!(
            tree.iter().any(|c| c.path == *path),
            "{} {path:?} was not found in its help: {:?}",
            bin.display(),
            tree.iter().map(|c| &c.path).collect::<Vec<_>>()
        );
    }
    let mut missing = Vec::new();
    let mut checked = 0;
    for command in &tree {
        for flag in &command.flags {
            if !names(&docs, &flag.name) {
                missing.push(format!("{:?} {}", command.path, flag.name));
            }
            checked += 1;
        }
    }
    assert!(
        missing.is_empty(),
        "{} has flags that neither README.md nor docs/ names:\n{}",
        bin.display(),
        missing.join("\n")
    );
    checked
}

#[test]
fn every_flag_of_the_server_and_its_commands_is_documented() {
    let checked = every_flag_documented(
        &crate::moderation::server_bin(),
        &[
            &[],
            &["backup"],
            &["accounts", "role"],
            &["export"],
            &["import"],
        ],
    );
    assert!(checked > 25, "only {checked} flags found");
}

#[test]
fn every_flag_of_the_parlor_command_and_its_subcommands_is_documented() {
    let checked = every_flag_documented(
        &cli_bin(),
        &[
            &["play"],
            &["bot"],
            &["seek"],
            &["verify-ratings"],
            &["tournament", "create"],
            &["token", "create"],
            &["mod", "close"],
            &["analyze"],
        ],
    );
    assert!(checked > 60, "only {checked} flags found");
}
