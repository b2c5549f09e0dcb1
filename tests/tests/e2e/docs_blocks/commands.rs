//! `sh` blocks: each command, as the shell would split and expand it
//! (shell.rs), is run or parsed, and its output held against its comment
//! (comments.rs):
//!
//! - `parlor GAME TOOL ...` (analysis, no server) runs, its output
//!   against the JSON in the comment beside it;
//! - `parlor` commands that only read a server run against a test
//!   server (its address in place of the example's host, a finished
//!   match for `ROOM`); the other `parlor` commands (they prompt, play
//!   or wait) are parsed: `--help` after the words, which clap reads
//!   only once every flag and value before it was accepted;
//! - `parlor-server` runs with `--print-config` (a configuration file
//!   the docs show in a `toml` block stands in for its path), and each
//!   flag's value must be read back; its subcommands are parsed;
//! - `curl` is made as the HTTP request it describes, against the test
//!   server: a 2xx answer in JSON, with the keys of the comment's JSON;
//! - `cargo run` names a package (and example) of the workspace, its
//!   arguments checked as the binary's; a few other programs are listed
//!   below with where they are exercised or why they cannot be.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use parlor_games::GameKind;
use parlor_tests::http::{account_with_token, basic, register, request};
use parlor_tests::{nimrod_pair, play_out_nimrod, start_server_with, TestServer};
use serde_json::Value;

use super::comments::{check_comment, Expect, Output};
use super::configs::{print_config, printed_value, same_value, shown_config_files};
use super::python::{python, run_python};
use super::shell::{expand, shell_lines, Join};
use super::text::command_of;
use super::{of, wait_within, COMMAND_TIMEOUT};
use crate::docs::{cli_bin, command_tree, read, root, CommandHelp};
use crate::moderation::server_bin;

/// Fewest shell commands checked: fewer means the splitting lost them.
const MIN_COMMANDS: usize = 90;

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
        for host in ["HOST:7878", "127.0.0.1:7878", "localhost:7878"] {
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
