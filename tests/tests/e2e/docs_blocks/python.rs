//! `python` blocks: each compiles (top-level `await` allowed, for
//! fragments inside a coroutine); a block marked `<!-- FILE -->` is FILE,
//! which CI runs; one importing `parlor_client` imports what it exports;
//! the fair-dealing functions deal what the server's generator deals; the
//! Nimrod bot plays a match against a test server. Without `python3` (or
//! the package a test needs) a test is skipped, except in CI: the venv
//! `.ci/python-bot` makes has them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use parlor_tests::start_server_with;
use serde_json::Value;

use super::{of, wait_within, Block, COMMAND_TIMEOUT};
use crate::docs::{read, root};

/// A `python3` that can import `modules`, if there is one: the venv
/// `.ci/python-bot` makes in target/, else the machine's.
fn python_with(modules: &[&str]) -> Option<PathBuf> {
    let venv = root().join("target/python-bot-venv/bin/python");
    [venv, PathBuf::from("python3")].into_iter().find(|python| {
        Command::new(python)
            .arg("-c")
            .arg(format!(
                "import {}",
                if modules.is_empty() {
                    "sys".to_owned()
                } else {
                    modules.join(", ")
                }
            ))
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// A `python3`; without one the test is skipped, except in CI.
pub(super) fn python() -> Option<PathBuf> {
    let found = python_with(&[]);
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 is needed in CI"
        );
        eprintln!("python3 is missing: the Python blocks are not run");
    }
    found
}

/// Runs `python` on `program` with `args`, feeding it `stdin`.
pub(super) fn run_python(
    python: &Path,
    program: &str,
    args: &[&str],
    stdin: &str,
) -> std::process::Output {
    let mut child = Command::new(python)
        .arg("-c")
        .arg(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn python_blocks_compile_and_are_the_files_ci_runs_or_import_what_exists() {
    let Some(python) = python() else { return };
    let exported = read(&root().join("examples/python/src/parlor_client/__init__.py"));
    let mut checked = 0;
    for b in of("python") {
        // Top-level `await` is allowed: a fragment may show calls inside a
        // coroutine.
        let out = run_python(
            &python,
            "import ast, sys; compile(sys.stdin.read(), 'block', 'exec', flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)",
            &[],
            &b.text,
        );
        assert!(
            out.status.success(),
            "{} does not compile: {}",
            b.what(),
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(file) = &b.marker {
            assert_eq!(
                b.text,
                read(&root().join(file)),
                "{} differs from {file}",
                b.what()
            );
        }
        for line in b.text.lines() {
            let Some(names) = line.strip_prefix("from parlor_client import ") else {
                continue;
            };
            let names = names.split('#').next().unwrap_or("");
            for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                assert!(
                    exported.contains(&format!("\"{name}\"")),
                    "{} imports {name}, which parlor_client does not export",
                    b.what()
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} Python blocks");
}

/// The block of docs/protocol/fair-dealing.md with the stream and the
/// shuffle.
fn fair_dealing_block() -> Block {
    of("python")
        .into_iter()
        .find(|b| b.file.ends_with("fair-dealing.md") && b.text.contains("def shuffle("))
        .unwrap_or_else(|| panic!("docs/protocol/fair-dealing.md has no Python shuffle"))
}

#[test]
fn the_fair_dealing_python_deals_what_the_server_deals() {
    if python().is_none() {
        return;
    }
    let Some(python) = python_with(&["cryptography"]) else {
        eprintln!("the cryptography package is missing: the fair-dealing block is not run");
        return;
    };
    let secret = parlor_games::deal::DealSecret::new([7; 32], [9; 16]);
    let seeds = [Some("alice's own words"), None, Some("")];
    let mut rng = parlor_games::GameRng::from_key(parlor_games::deal::deal_key(&secret, &seeds));
    let mut deck: Vec<u64> = (0..52).collect();
    rng.shuffle(&mut deck);
    let piles = rng.range_inclusive(3, 20);
    let deal = serde_json::json!({
        "server_seed": secret.seed_hex(),
        "salt": secret.salt_hex(),
        "commitment": secret.commitment(),
        "client_seeds": seeds,
    });
    let program = format!(
        "{}\nimport json, sys\nwords = stream(json.load(sys.stdin))\ndeck = list(range(52))\n\
         shuffle(words, deck)\nprint(json.dumps([deck, 3 + below(words, 20 - 3 + 1)]))\n",
        fair_dealing_block().text
    );
    let out = run_python(&python, &program, &[], &deal.to_string());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        got,
        serde_json::json!([deck, piles]),
        "the document's Python deals otherwise"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nimrod_chapters_python_bot_plays_a_match() {
    if python().is_none() {
        return;
    }
    let Some(python) = python_with(&["websockets"]) else {
        eprintln!("the websockets package is missing (.ci/python-bot installs it): the Nimrod bot is not run");
        return;
    };
    let bot = of("python")
        .into_iter()
        .find(|b| b.file.ends_with("nimrod.md") && b.text.contains("websockets.connect"))
        .unwrap_or_else(|| panic!("docs/protocol/nimrod.md has no Python bot"));
    let server = start_server_with(parlor_server::Config::default()).await;
    let url = server.url();
    let out = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(python)
            .arg("-c")
            .arg(&bot.text)
            .arg(url)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_within(&mut child, COMMAND_TIMEOUT);
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("winners:"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.stop().await.unwrap();
}
