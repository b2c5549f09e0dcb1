//! `parlor login` keeps the device cookie the server gives it beside its
//! token (readable by the user only) and presents it on later logins, so
//! that others' failed logins for the name do not keep it out.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::account::{parlor, text};

use parlor_server::{Config, Server};

/// Runs `parlor` with `args` and `stdin`, its config in `config`.
async fn run(config: &Path, args: &[&str], stdin: &'static str) -> Output {
    let config: PathBuf = config.to_path_buf();
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    tokio::task::spawn_blocking(move || parlor(&config, &args, stdin))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logged_in_machine_is_not_locked_out_by_others_failures() {
    let server = Server::start(([127, 0, 0, 1], 0).into(), Config::default())
        .await
        .unwrap();
    let url = server.url();
    let mine = tempfile::tempdir().unwrap();
    let theirs = tempfile::tempdir().unwrap();
    let login = ["login", "owner", "--password-stdin", "--server", &url];

    let out = run(
        mine.path(),
        &["register", "owner", "--password-stdin", "--server", &url],
        "correct horse\n",
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    let out = run(mine.path(), &login, "correct horse\n").await;
    assert!(out.status.success(), "{}", text(&out));
    let kept = mine.path().join("parlor").join("device");
    let device = std::fs::read_to_string(&kept).unwrap();
    assert!(device.contains("parlor_"), "a device cookie is kept");
    assert!(
        !text(&out).contains(&device[device.find("parlor_").unwrap()..][..20]),
        "never shown"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }

    // Someone else (no device cookie) guesses until the name is limited.
    let mut limited = false;
    for _ in 0..12 {
        let out = run(theirs.path(), &login, "wrong horse\n").await;
        assert!(!out.status.success());
        limited |= text(&out).contains("auth/rate_limited");
    }
    assert!(limited, "the name's failure limit holds for strangers");
    let out = run(theirs.path(), &login, "correct horse\n").await;
    assert!(
        text(&out).contains("auth/rate_limited"),
        "without a device cookie the name's limit holds: {}",
        text(&out)
    );
    // The owner's machine still gets in, at once.
    let out = run(mine.path(), &login, "correct horse\n").await;
    assert!(out.status.success(), "{}", text(&out));
    server.stop().await.unwrap();
}
