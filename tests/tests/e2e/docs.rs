//! The README and the documents beside it stay true to the repository:
//! the README's bot is the program CI plays (`examples/readme_bot.py`,
//! run by `.ci/python-bot`), and every relative link of README.md,
//! docs/ (its subdirectories too: the protocol reference is
//! docs/protocol/) and protocol/README.md names a file that exists and,
//! with an anchor, a heading of it (or an `<a id>` in it).

// Test helpers fail the test by panicking.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
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
fn markdown_under(dir: &Path) -> Vec<PathBuf> {
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

/// The long flags `--help` lists for `args` of the built server.
fn flags(args: &[&str]) -> Vec<String> {
    let out = std::process::Command::new(crate::moderation::server_bin())
        .args(args)
        .arg("--help")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success(), "{args:?} --help failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix("-h, ")
                .or_else(|| l.strip_prefix("-V, "))
                .unwrap_or(l);
            let flag: String = l
                .strip_prefix("--")?
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
                .collect();
            (!flag.is_empty() && flag != "help").then(|| format!("--{flag}"))
        })
        .collect()
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

#[test]
fn every_flag_of_the_server_and_its_commands_is_documented() {
    let mut docs = read(&root().join("README.md"));
    for path in markdown_under(&root().join("docs")) {
        docs.push_str(&read(&path));
    }
    let mut checked = 0;
    for args in [
        &[][..],
        &["backup"],
        &["accounts", "role"],
        &["export"],
        &["import"],
    ] {
        for flag in flags(args) {
            assert!(
                names(&docs, &flag),
                "parlor-server {args:?} has {flag}, which neither README.md nor docs/ names"
            );
            checked += 1;
        }
    }
    assert!(checked > 25, "only {checked} flags found");
}
