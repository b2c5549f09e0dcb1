//! `parlor-server backup` while the server runs: the copy is a working
//! database (a server started on it knows the accounts made before), its
//! owner's alone, and never written over an existing file.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_server::{Config, StoreConfig, Sync};
use parlor_tests::http::{basic, request};
use parlor_tests::start_server_with;

use crate::moderation::{human, server_bin, sqlite_server};

#[tokio::test]
async fn a_live_database_is_backed_up_to_a_copy_a_server_can_run_on() {
    let (dir, db, server) = sqlite_server().await;
    let addr = server.addr();
    human(addr, "keeper").await;
    let copy = dir.path().join("backup.db");
    let run = |to: &std::path::Path| {
        std::process::Command::new(server_bin())
            .args(["backup", "--db"])
            .arg(&db)
            .arg("--to")
            .arg(to)
            .output()
            .unwrap()
    };
    // While the server runs.
    let out = run(&copy);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("backed up") && said.contains("layout"),
        "{said}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }
    // Never over an existing file.
    let again = run(&copy);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("never overwrites"));
    server.stop().await.unwrap();

    // A server on the copy knows the account.
    let restored = start_server_with(Config {
        store: StoreConfig::Sqlite {
            db: Some(copy),
            sync: Sync::Normal,
        },
        ..Config::default()
    })
    .await;
    let token = request(
        restored.addr(),
        "POST",
        "/api/tokens",
        &[basic("keeper", "correct horse")],
        Some(serde_json::json!({"label": "after the restore"})),
    )
    .await;
    assert_eq!(token.status, 201, "{token:?}");
    restored.stop().await.unwrap();
}
