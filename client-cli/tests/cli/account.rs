//! `parlor register`, `login`, `token` and `logout` against a server in
//! this process, with the config directory in a temporary directory.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use parlor_server::{Config, Server};

/// Runs `parlor` with `args`, `stdin` on its input and its config in
/// `config`; waits for it.
pub(crate) fn parlor<S: AsRef<std::ffi::OsStr>>(config: &Path, args: &[S], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_parlor"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env_remove("PARLOR_TOKEN")
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

/// Its output and errors, as text.
pub(crate) fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_login_tokens_and_logout() {
    let server = Server::start(([127, 0, 0, 1], 0).into(), Config::default())
        .await
        .unwrap();
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().to_path_buf();
    let run = move |args: Vec<String>, stdin: &'static str| {
        let config = config.clone();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            parlor(&config, &args, stdin)
        })
    };
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();

    let out = run(
        s(&["register", "Zed", "--password-stdin", "--server", &url]),
        "correct horse\n",
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let again = run(
        s(&["register", "zed", "--password-stdin", "--server", &url]),
        "correct horse\n",
    )
    .await
    .unwrap();
    assert!(!again.status.success());
    assert!(
        text(&again).contains("account/name_taken"),
        "{}",
        text(&again)
    );

    let bad = run(
        s(&["login", "zed", "--password-stdin", "--server", &url]),
        "nope nope\n",
    )
    .await
    .unwrap();
    assert!(
        text(&bad).contains("auth/bad_credentials"),
        "{}",
        text(&bad)
    );
    let out = run(
        s(&["login", "zed", "--password-stdin", "--server", &url]),
        "correct horse\n",
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let file = dir.path().join("parlor").join("token");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(kept.contains("parlor_"));

    let made = run(s(&["token", "create", "--label", "ci bot"]), "")
        .await
        .unwrap();
    assert!(made.status.success(), "{}", text(&made));
    let token = String::from_utf8_lossy(&made.stdout).trim().to_owned();
    assert!(token.starts_with("parlor_"));
    // --server names the login's server; another one is refused plainly.
    let there = run(
        s(&["token", "create", "--label", "named", "--server", &url]),
        "",
    )
    .await
    .unwrap();
    assert!(there.status.success(), "{}", text(&there));
    let elsewhere = run(s(&["token", "list", "--server", "ws://127.0.0.1:9"]), "")
        .await
        .unwrap();
    assert!(!elsewhere.status.success());
    assert!(
        text(&elsewhere).contains("you are logged in to"),
        "{}",
        text(&elsewhere)
    );
    let listed = run(s(&["token", "list"]), "").await.unwrap();
    let list = String::from_utf8_lossy(&listed.stdout).to_string();
    assert!(
        list.contains("ci bot") && list.contains("parlor login"),
        "{list}"
    );
    assert!(!list.contains(&token), "listed, not shown");
    let id = list
        .lines()
        .find(|l| l.contains("ci bot"))
        .and_then(|l| l.split('\t').next())
        .unwrap()
        .to_owned();
    let revoked = run(s(&["token", "revoke", &id]), "").await.unwrap();
    assert!(revoked.status.success(), "{}", text(&revoked));
    let listed = run(s(&["token", "list"]), "").await.unwrap();
    assert!(!String::from_utf8_lossy(&listed.stdout).contains("ci bot"));

    let out = run(s(&["logout"]), "").await.unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(!file.exists(), "the token is forgotten");
    let after = run(s(&["token", "list"]), "").await.unwrap();
    assert!(!after.status.success());
    server.stop().await.unwrap();
}
