//! `text` blocks: a transcript's frames (`→ {...}` a client's, `← {...}`
//! the server's) decode, and a synopsis (`parlor ...`, `parlor-server
//! ...`) names a command and only flags it has (walked from their
//! `--help`); the rest is output shown, not checked.

use parlor_protocol::{decode_client, decode_server};

use super::of;
use crate::docs::{cli_bin, command_tree, CommandHelp};
use crate::moderation::server_bin;

#[test]
fn text_blocks_frames_decode_and_synopses_name_real_commands_and_flags() {
    let server_tree = command_tree(&server_bin());
    let cli_tree = command_tree(&cli_bin());
    let mut problems = Vec::new();
    let mut frames = 0;
    let mut synopses = 0;
    for b in of("text") {
        for (n, line) in b.text.lines().enumerate() {
            let what = format!("{} line {}", b.file, b.line + 1 + n);
            if let Some((_, frame)) = line.split_once("→ {") {
                frames += 1;
                if let Err(e) = decode_client(&format!("{{{frame}")) {
                    problems.push(format!("{what}: not a client message: {e}"));
                }
            } else if let Some((_, frame)) = line.split_once("← {") {
                frames += 1;
                if let Err(e) = decode_server(&format!("{{{frame}")) {
                    problems.push(format!("{what}: not a server message: {e}"));
                }
            } else {
                let words: Vec<&str> = line.split_whitespace().collect();
                let tree = match words.first() {
                    Some(&"parlor") => &cli_tree,
                    Some(&"parlor-server") => &server_tree,
                    _ => continue,
                };
                synopses += 1;
                if let Err(e) = synopsis_fits(tree, &words[1..]) {
                    problems.push(format!("{what}: {e}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        frames > 100 && synopses >= 9,
        "{frames} frames, {synopses} synopses"
    );
}

/// The deepest command of `tree` that `words` start with, and the words
/// after its path.
pub(super) fn command_of<'a, 'w>(
    tree: &'a [CommandHelp],
    words: &'w [&'w str],
) -> (&'a CommandHelp, &'w [&'w str]) {
    let best = tree
        .iter()
        .filter(|c| c.path.len() <= words.len() && c.path.iter().zip(words).all(|(p, w)| p == w))
        .max_by_key(|c| c.path.len())
        .unwrap_or_else(|| panic!("the tree has no root command"));
    (best, &words[best.path.len()..])
}

/// A synopsis (`NAME [--reason R] [--db X | --cluster Y]`): a command of
/// `tree` and only flags it has.
fn synopsis_fits(tree: &[CommandHelp], words: &[&str]) -> Result<(), String> {
    let (command, rest) = command_of(tree, words);
    if command.path.is_empty()
        && rest
            .first()
            .is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
    {
        return Err(format!("{:?} is no command", rest[0]));
    }
    for w in rest {
        let flag = w.trim_start_matches('[').trim_end_matches(']');
        if flag.starts_with("--") && !command.flags.iter().any(|f| f.name == flag) {
            return Err(format!("{:?} has no flag {flag}", command.path));
        }
    }
    Ok(())
}
