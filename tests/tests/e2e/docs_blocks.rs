//! Every fenced code block of README.md, protocol/README.md and docs/
//! (its subdirectories too) is exercised, by the language its fence names;
//! a block in a language with no check here fails, so a new block is
//! exercised by default.
//!
//! - `sh`: each command, as the shell would split and expand it (bash
//!   expands the words; nothing but `$(...)` in them runs):
//!   - `parlor GAME TOOL ...` (analysis, no server) runs, its output
//!     against the JSON in the comment beside it;
//!   - `parlor` commands that only read a server run against a test
//!     server (its address in place of the example's host, a finished
//!     match for `ROOM`); the other `parlor` commands (they prompt, play
//!     or wait) are parsed: `--help` after the words, which clap reads
//!     only once every flag and value before it was accepted;
//!   - `parlor-server` runs with `--print-config` (a configuration file
//!     the docs show in a `toml` block stands in for its path), and each
//!     flag's value must be read back; its subcommands are parsed;
//!   - `curl` is made as the HTTP request it describes, against the test
//!     server: a 2xx answer in JSON, with the keys of the comment's JSON;
//!   - `cargo run` names a package (and example) of the workspace, its
//!     arguments checked as the binary's; a few other programs are listed
//!     below with where they are exercised or why they cannot be.
//! - `json`: parses; a message (a `"type"` the protocol knows) decodes.
//! - `toml`: loads through the server's configuration loader and reads
//!   back the same values.
//! - `python`: compiles; a block marked `<!-- FILE -->` is FILE, which CI
//!   runs; one importing `parlor_client` imports what it exports; the
//!   fair-dealing functions deal what the server's generator deals; the
//!   Nimrod bot plays a match (where `websockets` is installed: in CI,
//!   the venv `.ci/python-bot` makes).
//! - `http`: each request line names a documented route and method (and
//!   status), each body is JSON.
//! - `text`: a transcript's frames decode; a synopsis (`parlor ...`,
//!   `parlor-server ...`) names a command and only flags it has; the rest
//!   is output shown.
//! - Other programs' configuration (`ini`, `nginx`, `haproxy`, `caddy`)
//!   is not ours to run: the proxies must point at the server's port.
//!
//! Beside the blocks: every error code the documents name in backticks
//! is one the protocol has.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use parlor_games::GameKind;
use parlor_protocol::{decode_client, decode_server, ErrorCode};
use parlor_tests::http::{account_with_token, basic, register, request};
use parlor_tests::{nimrod_pair, play_out_nimrod, start_server_with, TestServer};
use serde_json::Value;

use crate::docs::{cli_bin, command_tree, markdown_under, read, root, CommandHelp};
use crate::moderation::server_bin;

/// How long one command of a block may run: the analysis and verify
/// commands take well under a second; this only turns a hang into a
/// failure.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Fewest blocks the documents hold: fewer means the walk lost them.
const MIN_BLOCKS: usize = 150;

/// Fewest shell commands checked: fewer means the splitting lost them.
const MIN_COMMANDS: usize = 90;

/// The port the server listens on by default, which the docs' proxy
/// configurations must point at.
const DEFAULT_PORT: &str = "7878";

/// Programs of the shell blocks that this test does not run, and why.
const OTHER_PROGRAMS: &[(&str, &str)] = &[
    (
        "dpkg",
        "installs the Debian package: .ci/package builds, installs and purges it",
    ),
    (
        "systemctl",
        "the installed unit: .ci/package runs its ExecStart as systemd would",
    ),
    ("journalctl", "reads the unit's log: nothing of ours to run"),
    ("editor", "the reader's editor"),
    ("less", "a pager: what it pages is checked"),
    (
        "openapi-generator-cli",
        "a third-party generator: the document it reads is checked in openapi.rs",
    ),
    (
        "npx",
        "a third-party generator: the document it reads is checked in openapi.rs",
    ),
];

/// `cargo` commands other than `cargo run`, and where they are exercised.
const OTHER_CARGO: &[(&str, &str)] = &[
    (
        "test",
        ".ci/run runs the README's test command as it is written",
    ),
    (
        "install",
        ".ci/package installs cargo-deb (pinned) and builds the package with it",
    ),
];

/// `parlor` commands that only read from a server and end by themselves:
/// run for real against the test server.
const READS_A_SERVER: &[&str] = &[
    "rooms",
    "tournaments",
    "leaderboard",
    "player",
    "ladder",
    "replay",
    "verify",
    "verify-ratings",
];

/// Flags that need a match the test does not make (`--predict`: a
/// finished Rummikub match under the specification's ending): such a
/// command is parsed only.
const NEEDS_ANOTHER_MATCH: &[&str] = &["--predict"];

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

// ---------------------------------------------------------------- json

/// Whether `v` is a protocol message, decoded (and so checked) if so.
fn decodes_as_message(what: &str, text: &str) -> Result<(), String> {
    match (decode_client(text), decode_server(text)) {
        (Ok(_), _) | (_, Ok(_)) => Ok(()),
        (Err(c), Err(s)) => Err(format!(
            "{what} has a \"type\" but is no message: as a client's, {c}; as the server's, {s}"
        )),
    }
}

#[test]
fn json_blocks_parse_and_messages_decode() {
    let mut problems = Vec::new();
    let mut messages = 0;
    let all = of("json");
    for b in &all {
        match serde_json::from_str::<Value>(&b.text) {
            Err(e) => problems.push(format!("{} is not JSON: {e}", b.what())),
            Ok(v) if v.get("type").is_some_and(Value::is_string) => {
                messages += 1;
                if let Err(e) = decodes_as_message(&b.what(), &b.text) {
                    problems.push(e);
                }
            }
            Ok(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        all.len() > 90 && messages > 30,
        "{} blocks, {messages} messages",
        all.len()
    );
}

// ---------------------------------------------------------------- text

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
fn command_of<'a, 'w>(
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

// ---------------------------------------------------------------- other programs' configuration

#[test]
fn proxy_configurations_point_at_the_servers_port_and_the_unit_snippet_is_the_units() {
    let unit = read(&root().join("server/debian/parlor-server.service"));
    let printed = print_config(&[], &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        printed.contains(&format!(":{DEFAULT_PORT}\"")),
        "the default bind is not port {DEFAULT_PORT}:\n{printed}"
    );
    let mut checked = 0;
    for b in blocks() {
        match b.lang.as_str() {
            "nginx" | "haproxy" | "caddy" => {
                assert!(
                    b.text.contains(&format!(":{DEFAULT_PORT}")),
                    "{} does not point at port {DEFAULT_PORT}",
                    b.what()
                );
            }
            // A drop-in for the packaged unit: its sections are the unit's.
            "ini" => {
                for section in b.text.lines().map(str::trim).filter(|l| l.starts_with('[')) {
                    assert!(
                        unit.lines().any(|l| l.trim() == section),
                        "{}: the unit has no {section}",
                        b.what()
                    );
                }
            }
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} configuration blocks");
}

// ---------------------------------------------------------------- toml

/// `parlor-server --print-config ARGS` with `env`: what it printed, or why
/// it failed.
fn print_config(args: &[String], env: &[(String, String)]) -> Result<String, String> {
    let mut command = Command::new(server_bin());
    for key in parlor_server::options::keys::keys() {
        command.env_remove(key.env);
    }
    command.env_remove("PARLOR_CONFIG");
    command.args(args);
    // A command of the docs may ask for it itself.
    if !args.iter().any(|a| a == "--print-config") {
        command.arg("--print-config");
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap_or_else(|e| panic!("{e}"));
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "parlor-server {args:?} --print-config failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The value `--print-config` shows for `key`: set (`key = v`) or at its
/// default (`# key = v`).
fn printed_value(printed: &str, key: &str) -> Option<toml::Value> {
    printed.lines().find_map(|l| {
        let l = l.strip_prefix("# ").unwrap_or(l);
        let rest = l.strip_prefix(key)?.trim_start().strip_prefix('=')?;
        let table: toml::Table = format!("v = {rest}").parse().ok()?;
        table.get("v").cloned()
    })
}

/// Whether `value`, as the command line gave it, is `printed`.
fn same_value(given: &str, printed: &toml::Value) -> bool {
    match printed {
        // An address is printed as its one-address network.
        toml::Value::String(s) => {
            s == given || [s.strip_suffix("/32"), s.strip_suffix("/128")].contains(&Some(given))
        }
        toml::Value::Integer(n) => given.parse() == Ok(*n),
        toml::Value::Boolean(b) => given.parse() == Ok(*b),
        toml::Value::Array(items) => items.iter().any(|i| same_value(given, i)),
        other => other.to_string() == given,
    }
}

/// The configuration files the docs show (a `toml` block whose first line
/// is `# PATH`), by path, written into `dir`.
fn shown_config_files(dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for (i, b) in of("toml").iter().enumerate() {
        if let Some(path) = b.text.lines().next().and_then(|l| l.strip_prefix("# /")) {
            let file = dir.join(format!("shown-{i}.toml"));
            std::fs::write(&file, &b.text).unwrap();
            out.insert(format!("/{path}"), file);
        }
    }
    out
}

#[test]
fn toml_blocks_load_through_the_servers_configuration_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for b in of("toml") {
        let file = dir.path().join("block.toml");
        std::fs::write(&file, &b.text).unwrap();
        let printed = print_config(&["--config".into(), file.display().to_string()], &[])
            .unwrap_or_else(|e| panic!("{}: {e}", b.what()));
        let shown: toml::Table = b
            .text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", b.what()));
        for (key, value) in &shown {
            assert_eq!(
                printed_value(&printed, key).as_ref(),
                Some(value),
                "{}: {key} does not read back\n{printed}",
                b.what()
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} settings checked");
}

// ---------------------------------------------------------------- python

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
fn python() -> Option<PathBuf> {
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
fn run_python(python: &Path, program: &str, args: &[&str], stdin: &str) -> std::process::Output {
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

// ---------------------------------------------------------------- http

#[test]
fn http_blocks_name_documented_routes_and_json_bodies() {
    let api: Value = serde_json::from_str(&read(&root().join("docs/api/openapi.json"))).unwrap();
    let paths = api["paths"].as_object().unwrap();
    let mut problems = Vec::new();
    let mut requests = 0;
    for b in of("http") {
        for (n, line) in b.text.lines().enumerate() {
            let what = format!("{} line {}", b.file, b.line + 1 + n);
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let first = words.next().unwrap_or("");
            if !["GET", "POST", "PUT", "DELETE", "PATCH"].contains(&first) {
                if let Err(e) = serde_json::from_str::<Value>(line) {
                    problems.push(format!("{what}: a body that is not JSON: {e}"));
                }
                continue;
            }
            requests += 1;
            let path = words.next().unwrap_or("");
            let path = path.split('?').next().unwrap_or(path);
            let Some(op) = paths
                .iter()
                .find(|(template, _)| route_fits(template, path))
                .and_then(|(_, item)| item.get(first.to_lowercase()))
            else {
                problems.push(format!(
                    "{what}: {first} {path} is not in docs/api/openapi.json"
                ));
                continue;
            };
            let rest: Vec<&str> = words.collect();
            if let Some(status) = rest.first().filter(|s| s.parse::<u16>().is_ok()) {
                if op["responses"].get(*status).is_none() {
                    problems.push(format!("{what}: {first} {path} documents no {status}"));
                }
                let body = rest[1..].join(" ");
                if !body.is_empty() {
                    if let Err(e) = serde_json::from_str::<Value>(&body) {
                        problems.push(format!("{what}: an answer that is not JSON: {e}"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(requests >= 7, "only {requests} requests");
}

/// Whether `path` (`/api/blocks/NAME`) is an instance of the OpenAPI
/// `template` (`/api/blocks/{name}`).
fn route_fits(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| t == p || (t.starts_with('{') && t.ends_with('}') && !p.is_empty()))
}

// ---------------------------------------------------------------- error codes

#[test]
fn every_error_code_the_documents_name_exists() {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let areas: Vec<&str> = codes.iter().filter_map(|c| c.split('/').next()).collect();
    let mut files = vec![root().join("README.md")];
    files.extend(markdown_under(&root().join("docs")));
    let mut unknown = Vec::new();
    let mut named = 0;
    for file in files {
        let text = read(&file);
        // Inline code, line by line (a fence's backticks are no span),
        // cut into words: `403 auth/closed` names auth/closed.
        let spans = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("```"))
            .flat_map(|l| l.split('`').skip(1).step_by(2));
        let words = spans.flat_map(|span| {
            // A file name keeps its dot, and so is no code.
            span.split(|c: char| c.is_whitespace() || ",;:()[]{}\"'=<>".contains(c))
        });
        for token in words {
            let Some((area, reason)) = token.split_once('/') else {
                continue;
            };
            let word =
                |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            // `area/reason` is the form itself; a path of the repository
            // (`server/web`) is no code.
            if !word(area)
                || !word(reason)
                || !areas.contains(&area)
                || token == "area/reason"
                || root().join(token).exists()
            {
                continue;
            }
            named += 1;
            if !codes.contains(&token) {
                unknown.push(format!("{}: {token}", file.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "codes that are no ErrorCode:\n{}",
        unknown.join("\n")
    );
    assert!(named > 150, "only {named} codes named");
}

// ---------------------------------------------------------------- sh

/// How a command is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    /// The first of its line, or after `;`, `&&`, `||` or `&`.
    After,
    /// After `|`: the previous one's output is its input.
    Pipe,
}

/// One line of a shell block (continuations joined): its commands, as
/// source text, and its comment.
#[derive(Debug)]
struct Line {
    commands: Vec<(Join, String)>,
    comment: Option<String>,
}

/// Splits a block into lines of commands, at the operators outside
/// quotes and `$(...)`.
fn shell_lines(text: &str) -> Vec<Line> {
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
fn expand(source: &str, vars: &BTreeMap<String, String>) -> Vec<String> {
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

/// How a comment's JSON is held against a command's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The values too (a pure function of the input: analysis).
    Exact,
    /// Its keys only (the server's state differs from the example's).
    Keys,
}

/// The JSON a comment shows (`{"lose":false,"move":{...},...}`), with
/// `"..."` for any value and a trailing `"..."` in a list for "and more",
/// if the comment starts with JSON.
fn shown_json(comment: &str) -> Option<Value> {
    let text = comment.trim();
    if !text.starts_with('{') && !text.starts_with('[') {
        return None;
    }
    // Up to the end of the JSON value: a comment may go on in words.
    let text = text
        .replace("{...}", "\"...\"")
        .replace("[...]", "\"...\"")
        .replace(",...}", "}")
        .replace(", ...}", "}")
        .replace(",...]", ",\"...\"]")
        .replace(", ...]", ",\"...\"]");
    let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    match stream.next() {
        Some(Ok(v)) => Some(v),
        _ => panic!("the comment {comment:?} starts as JSON but is not"),
    }
}

/// Whether `got` fits `shown` (see [`shown_json`]).
fn fits(shown: &Value, got: &Value, expect: Expect) -> bool {
    match (shown, got) {
        (Value::String(s), _) if s == "..." => true,
        (Value::String(s), Value::String(g)) if s.ends_with("...") => {
            g.starts_with(s.trim_end_matches("..."))
        }
        (Value::Object(s), Value::Object(g)) => s.iter().all(|(k, v)| {
            g.get(k)
                .is_some_and(|gv| expect == Expect::Keys || fits(v, gv, expect))
        }),
        (_, _) if expect == Expect::Keys => shown.is_object() == got.is_object(),
        (Value::Array(s), Value::Array(g)) => {
            let more = s.last().is_some_and(|l| l == "...");
            let s = if more { &s[..s.len() - 1] } else { &s[..] };
            (if more {
                g.len() >= s.len()
            } else {
                g.len() == s.len()
            }) && s.iter().zip(g).all(|(s, g)| fits(s, g, expect))
        }
        _ => shown == got,
    }
}

/// What a command printed, and how the comment's JSON is held against it.
#[derive(Debug, Default)]
struct Output {
    text: Option<String>,
    expect: Option<Expect>,
}

/// What the shell blocks run against: a test server with the accounts,
/// the finished match and the token the examples name.
struct Live {
    server: TestServer,
    token: String,
    room: String,
    tournament: Option<String>,
    home: tempfile::TempDir,
    configs: BTreeMap<String, PathBuf>,
    server_tree: Vec<CommandHelp>,
    /// Commands checked, by how: (run, parsed, listed as another's).
    counts: [usize; 3],
}

impl Live {
    async fn new() -> Live {
        let mut config = parlor_server::Config::default();
        // The examples make accounts of their own.
        config.limits.accounts_per_address_hour = 0;
        let server = start_server_with(config).await;
        let url = server.url();
        // A finished match for ROOM (played by guests, before their names
        // are accounts').
        let (a, b, room, start) = nimrod_pair(&url, [2, 3]).await;
        let mut players = [a, b];
        let end = play_out_nimrod(&mut players, &room, start).await;
        assert!(end.outcome.is_some());
        for p in players {
            p.close().await;
        }
        for name in ["alice", "bob"] {
            assert_eq!(register(server.addr(), name, "human").await.status, 201);
        }
        let (token, _) = account_with_token(server.addr(), "docs-bot").await;
        let home = tempfile::tempdir().unwrap();
        let configs = shown_config_files(home.path());
        Live {
            server,
            token,
            room: room.to_string(),
            tournament: None,
            home,
            configs,
            server_tree: command_tree(&server_bin()),
            counts: [0; 3],
        }
    }

    /// The example's placeholders made real: hosts, `ROOM`, `ID`, the
    /// API token, a resume `TOKEN`, the configuration files shown.
    fn real(&self, word: &str) -> String {
        let addr = self.server.addr().to_string();
        let mut w = word.to_owned();
        for host in [
            "HOST:7878",
            "127.0.0.1:7878",
            "localhost:7878",
            "localhost:8080",
        ] {
            w = w.replace(host, &addr);
        }
        if w == "parlor_..." {
            w = self.token.clone();
        }
        // A resume token (from `welcome`) is a UUID.
        if w == "TOKEN" {
            w = uuid::Uuid::new_v4().to_string();
        }
        if let Some(file) = self.configs.get(&w) {
            w = file.display().to_string();
        }
        let segments: Vec<String> = w
            .split('/')
            .map(|s| match s {
                "ROOM" => self.room.clone(),
                "ID" => self.tournament.clone().unwrap_or_else(|| s.to_owned()),
                _ => s.to_owned(),
            })
            .collect();
        segments.join("/")
    }

    /// Checks one command (`words`, its environment `env`, its input
    /// `stdin`); what it printed if it ran.
    async fn check(
        &mut self,
        what: &str,
        env: Vec<(String, String)>,
        words: Vec<String>,
        stdin: Option<String>,
    ) -> Output {
        let program = words[0].clone();
        let args: Vec<String> = words[1..].iter().map(|w| self.real(w)).collect();
        match program.as_str() {
            "echo" => Output {
                text: Some(words[1..].join(" ") + "\n"),
                expect: None,
            },
            "parlor" => self.parlor(what, args, stdin).await,
            "parlor-server" => {
                self.parlor_server(what, env, args);
                Output::default()
            }
            "curl" => self.curl(what, &args).await,
            "cargo" => {
                self.cargo(what, args).await;
                Output::default()
            }
            "runuser" => {
                let at = args
                    .iter()
                    .position(|a| a == "--")
                    .unwrap_or_else(|| panic!("{what}: runuser without --"));
                Box::pin(self.check(what, env, args[at + 1..].to_vec(), stdin)).await
            }
            "bash" => {
                assert!(
                    root().join(&args[0]).is_file(),
                    "{what}: no script {}",
                    args[0]
                );
                self.counts[2] += 1;
                Output::default()
            }
            p if p == "python3" || p.ends_with("/python") || p.ends_with("/pip") => {
                self.python(what, &program, &args, stdin)
            }
            p => {
                assert!(
                    OTHER_PROGRAMS.iter().any(|(name, _)| *name == p),
                    "{what}: {p} is a program this test neither runs nor lists in OTHER_PROGRAMS"
                );
                self.counts[2] += 1;
                Output {
                    text: stdin,
                    expect: None,
                }
            }
        }
    }

    /// Runs `bin args` (no terminal, the config directory a fresh one),
    /// fed `stdin`; its status, stdout and stderr.
    async fn run(
        &self,
        bin: PathBuf,
        args: Vec<String>,
        stdin: Option<String>,
    ) -> (bool, String, String) {
        let home = self.home.path().to_owned();
        tokio::task::spawn_blocking(move || {
            let mut child = Command::new(bin)
                .args(&args)
                .env("HOME", &home)
                .env("XDG_CONFIG_HOME", home.join(".config"))
                .env_remove("PARLOR_TOKEN")
                .env_remove("PARLOR_CA_CERT")
                .stdin(if stdin.is_some() {
                    Stdio::piped()
                } else {
                    Stdio::null()
                })
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            if let Some(text) = stdin {
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(text.as_bytes())
                    .unwrap();
            }
            wait_within(&mut child, COMMAND_TIMEOUT);
            let out = child.wait_with_output().unwrap();
            (
                out.status.success(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .await
        .unwrap()
    }

    async fn parlor(&mut self, what: &str, args: Vec<String>, stdin: Option<String>) -> Output {
        // The global flags come first or anywhere; the command is the
        // first other word.
        let mut at = 0;
        while args
            .get(at)
            .is_some_and(|a| a == "--token" || a == "--ca-cert")
        {
            at += 2;
        }
        let command = args.get(at).cloned().unwrap_or_default();
        if let Ok(game) = command.parse::<GameKind>() {
            return self.analysis(what, game, &args[at + 1..], stdin).await;
        }
        let placeholder = args.iter().any(|a| a == "ID" || a.contains("..."));
        if READS_A_SERVER.contains(&command.as_str())
            && !placeholder
            && !args
                .iter()
                .any(|a| NEEDS_ANOTHER_MATCH.contains(&a.as_str()))
        {
            let mut args = args;
            if !args.iter().any(|a| a == "--server") {
                args.extend(["--server".to_owned(), self.server.url()]);
            }
            let (ok, out, err) = self.run(cli_bin(), args.clone(), stdin).await;
            assert!(ok, "{what}: parlor {args:?} failed: {err}{out}");
            self.counts[0] += 1;
            return Output {
                text: Some(out),
                expect: Some(Expect::Keys),
            };
        }
        let mut parsed = args.clone();
        parsed.push("--help".to_owned());
        let (ok, _, err) = self.run(cli_bin(), parsed, None).await;
        assert!(ok, "{what}: parlor {args:?} is refused: {err}");
        self.counts[1] += 1;
        Output::default()
    }

    /// `parlor GAME TOOL WORDS`: run, unless its input is a placeholder
    /// (`[...blocks...]`), then its words are read as the game reads them.
    async fn analysis(
        &mut self,
        what: &str,
        game: GameKind,
        words: &[String],
        stdin: Option<String>,
    ) -> Output {
        let (tool, rest) = words
            .split_first()
            .unwrap_or_else(|| panic!("{what}: no tool"));
        if stdin.as_deref().is_some_and(|s| s.contains("...")) {
            game.tool_args(tool, rest)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            self.counts[1] += 1;
            return Output::default();
        }
        let mut args = vec![game.name().to_owned()];
        args.extend(words.iter().cloned());
        let (ok, out, err) = self.run(cli_bin(), args.clone(), stdin).await;
        assert!(ok, "{what}: parlor {args:?} failed: {err}");
        self.counts[0] += 1;
        Output {
            text: Some(out),
            expect: Some(Expect::Exact),
        }
    }

    fn parlor_server(&mut self, what: &str, env: Vec<(String, String)>, args: Vec<String>) {
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let (command, _) = command_of(&self.server_tree, &words);
        if !command.path.is_empty() {
            let mut parsed = args.clone();
            parsed.push("--help".to_owned());
            let out = Command::new(server_bin()).args(&parsed).output().unwrap();
            assert!(
                out.status.success(),
                "{what}: parlor-server {args:?} is refused: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            self.counts[1] += 1;
            return;
        }
        let printed = print_config(&args, &env).unwrap_or_else(|e| panic!("{what}: {e}"));
        // Each flag's value, and each variable's, read back.
        let mut given: Vec<(String, String)> = env
            .iter()
            .filter_map(|(k, v)| {
                let key = k.strip_prefix("PARLOR_")?.to_lowercase().replace('_', "-");
                Some((key, v.clone()))
            })
            .collect();
        let mut i = 0;
        while i < args.len() {
            let Some(name) = args[i].strip_prefix("--") else {
                i += 1;
                continue;
            };
            let takes_value = command
                .flags
                .iter()
                .any(|f| f.name == args[i] && f.takes_value);
            if takes_value && name != "config" {
                given.push((name.to_owned(), args[i + 1].clone()));
            }
            i += if takes_value { 2 } else { 1 };
        }
        for (key, value) in given {
            let shown = printed_value(&printed, &key)
                .unwrap_or_else(|| panic!("{what}: --print-config has no {key}\n{printed}"));
            assert!(
                same_value(&value, &shown),
                "{what}: {key} {value:?} reads back as {shown}"
            );
        }
        self.counts[0] += 1;
    }

    async fn curl(&mut self, what: &str, args: &[String]) -> Output {
        let (mut method, mut body, mut url) = (None, None, None);
        let mut headers: Vec<(&str, String)> = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            let value = args.get(i + 1).cloned();
            match a {
                "-s" | "-f" | "-sf" => {}
                "-X" => method = value,
                "-d" => {
                    let text = value.unwrap_or_default();
                    body = Some(
                        serde_json::from_str::<Value>(&text)
                            .unwrap_or_else(|e| panic!("{what}: the body is not JSON: {e}")),
                    );
                }
                "-u" => {
                    let (name, password) = value
                        .as_deref()
                        .and_then(|v| v.split_once(':'))
                        .unwrap_or_else(|| panic!("{what}: -u NAME:PASSWORD"));
                    headers.push(basic(name, password));
                }
                "-H" => {
                    let (name, v) = value
                        .as_deref()
                        .and_then(|v| v.split_once(": "))
                        .unwrap_or_else(|| panic!("{what}: -H 'Name: value'"));
                    let name: &'static str = match name {
                        "Authorization" => "Authorization",
                        "Content-Type" => "Content-Type",
                        other => panic!("{what}: a header this test does not send: {other}"),
                    };
                    headers.push((name, v.to_owned()));
                }
                u if !u.starts_with('-') => {
                    url = Some(u.to_owned());
                    i += 1;
                    continue;
                }
                other => panic!("{what}: a curl option this test does not read: {other}"),
            }
            i += if ["-X", "-d", "-u", "-H"].contains(&a) {
                2
            } else {
                1
            };
        }
        let url = url.unwrap_or_else(|| panic!("{what}: no URL"));
        let addr = self.server.addr().to_string();
        let path = url
            .trim_start_matches("http://")
            .strip_prefix(&addr)
            .unwrap_or_else(|| panic!("{what}: {url} is not the server's"));
        assert!(
            !path.split('/').any(|s| s == "ID"),
            "{what}: no event made before {path}"
        );
        let method =
            method.unwrap_or_else(|| if body.is_some() { "POST" } else { "GET" }.to_owned());
        let answer = request(self.server.addr(), &method, path, &headers, body).await;
        assert!(
            (200..300).contains(&answer.status),
            "{what}: {method} {path}: {} {}",
            answer.status,
            answer.text
        );
        // One JSON value, or JSON lines (the ledger), or nothing (204).
        if serde_json::from_str::<Value>(&answer.text).is_err() {
            for line in answer.text.lines().filter(|l| !l.trim().is_empty()) {
                serde_json::from_str::<Value>(line)
                    .unwrap_or_else(|e| panic!("{what}: the answer is not JSON: {e}: {line}"));
            }
        }
        if method == "POST" && path == "/api/tournaments" {
            self.tournament = answer.body["id"].as_str().map(str::to_owned);
        }
        self.counts[0] += 1;
        Output {
            text: Some(answer.text),
            expect: Some(Expect::Keys),
        }
    }

    async fn cargo(&mut self, what: &str, args: Vec<String>) {
        let sub = args.first().cloned().unwrap_or_default();
        if sub != "run" {
            assert!(
                OTHER_CARGO.iter().any(|(s, _)| *s == sub),
                "{what}: cargo {sub} is neither run nor listed in OTHER_CARGO"
            );
            self.counts[2] += 1;
            return;
        }
        let (own, passed) = match args.iter().position(|a| a == "--") {
            Some(at) => (&args[..at], args[at + 1..].to_vec()),
            None => (&args[..], Vec::new()),
        };
        let after = |flag: &str| {
            own.iter()
                .position(|a| a == flag)
                .map(|at| own[at + 1].clone())
        };
        let package = after("-p").unwrap_or_else(|| panic!("{what}: cargo run names no package"));
        let dir = [
            "games",
            "competition",
            "protocol",
            "server",
            "client-cli",
            "tests",
            "bench",
        ]
        .into_iter()
        .map(|d| root().join(d))
        .find(|d| read(&d.join("Cargo.toml")).contains(&format!("name = \"{package}\"")))
        .unwrap_or_else(|| panic!("{what}: no package {package}"));
        if let Some(example) = after("--example") {
            assert!(
                dir.join("examples").join(format!("{example}.rs")).is_file(),
                "{what}: {package} has no example {example}"
            );
            self.counts[2] += 1;
            return;
        }
        let mut words = vec![match package.as_str() {
            "parlor-server" => "parlor-server".to_owned(),
            "parlor-cli" => "parlor".to_owned(),
            other => panic!("{what}: cargo run -p {other}: which binary?"),
        }];
        words.extend(passed);
        Box::pin(self.check(what, Vec::new(), words, None)).await;
    }

    fn python(
        &mut self,
        what: &str,
        program: &str,
        args: &[String],
        stdin: Option<String>,
    ) -> Output {
        self.counts[2] += 1;
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["-m", "venv", _] => Output::default(),
            ["-m", "json.tool"] => {
                let text = stdin.unwrap_or_else(|| panic!("{what}: json.tool of nothing"));
                serde_json::from_str::<Value>(&text)
                    .unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
                Output {
                    text: Some(text),
                    expect: None,
                }
            }
            ["install", path] if program.ends_with("pip") => {
                assert!(
                    root().join(path).join("pyproject.toml").is_file(),
                    "{what}: {path} is no Python package"
                );
                Output::default()
            }
            ["-m", "unittest", "discover", "-s", dir, ..] => {
                assert!(root().join(dir).is_dir(), "{what}: no {dir}");
                Output::default()
            }
            [file] if file.ends_with(".py") => {
                let path = root().join(file);
                assert!(path.is_file(), "{what}: no {file}");
                let Some(python) = python() else {
                    return Output::default();
                };
                let program = read(&path);
                let out = run_python(&python, &program, &[], &stdin.unwrap_or_default());
                assert!(
                    out.status.success(),
                    "{what}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                Output {
                    text: Some(String::from_utf8_lossy(&out.stdout).into_owned()),
                    expect: Some(Expect::Keys),
                }
            }
            other => panic!("{what}: a Python command this test does not know: {other:?}"),
        }
    }
}

/// Holds `output` against the JSON a comment shows, if it shows some.
fn check_comment(what: &str, comment: &str, output: &Output) {
    let (Some(shown), Some(text), Some(expect)) =
        (shown_json(comment), &output.text, output.expect)
    else {
        return;
    };
    let got: Value = serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("{what}: the comment shows JSON, the command printed {text:?}"));
    assert!(
        fits(&shown, &got, expect),
        "{what}: printed {got}, the comment shows {comment}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_shell_command_of_the_docs_runs_or_parses() {
    let mut live = Live::new().await;
    let mut vars = BTreeMap::new();
    vars.insert("TOKEN".to_owned(), live.token.clone());
    for b in of("sh") {
        let mut last = Output::default();
        for (n, line) in shell_lines(&b.text).into_iter().enumerate() {
            let what = format!("{} block at line {}, its line {}", b.file, b.line, n + 1);
            if line.commands.is_empty() {
                // A comment on its own line after a command shows its output.
                if let Some(comment) = &line.comment {
                    check_comment(&what, comment, &last);
                }
                continue;
            }
            let mut stdin = None;
            for (join, source) in &line.commands {
                let words = expand(source, &vars);
                let split = words
                    .iter()
                    .take_while(|w| {
                        w.split_once('=').is_some_and(|(k, _)| {
                            !k.is_empty()
                                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        })
                    })
                    .count();
                let env: Vec<(String, String)> = words[..split]
                    .iter()
                    .filter_map(|w| w.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
                if split == words.len() {
                    // An assignment: later commands see it.
                    vars.extend(env);
                    continue;
                }
                let input = if *join == Join::Pipe {
                    stdin.take()
                } else {
                    None
                };
                last = live.check(&what, env, words[split..].to_vec(), input).await;
                stdin = last.text.clone();
            }
            if let Some(comment) = &line.comment {
                check_comment(&what, comment, &last);
            }
        }
    }
    let [run, parsed, other] = live.counts;
    eprintln!("shell commands: {run} run, {parsed} parsed, {other} listed or checked otherwise");
    assert!(
        run + parsed + other >= MIN_COMMANDS,
        "only {} commands",
        run + parsed + other
    );
    assert!(run >= 30, "only {run} commands run");
    live.server.stop().await.unwrap();
}
