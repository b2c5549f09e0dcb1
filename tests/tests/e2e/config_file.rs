//! The server binary's settings from a configuration file (`--config`)
//! and `PARLOR_` environment variables: a flag wins over its variable,
//! the variable over the file and the file over the default; refusals
//! (exit status 2, naming the key and line); `--print-config` hiding
//! passwords and reading back as the same settings; and a server started
//! from a file and a variable.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use parlor_tests::http::request;

use crate::moderation::server_bin;

/// The server binary, with none of the run flags' variables inherited
/// from the test's own environment.
fn server() -> Command {
    let mut command = Command::new(server_bin());
    for key in parlor_server::options::keys::keys() {
        command.env_remove(key.env);
    }
    command.env_remove("PARLOR_CONFIG");
    command
}

/// Writes `text` to `name` in `dir`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `command`, which must succeed; its standard output.
fn succeeds(command: &mut Command) -> String {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The values `--print-config` printed (the keys not commented out).
fn values(printed: &str) -> toml::Table {
    printed.parse().unwrap_or_else(|e| panic!("{e}\n{printed}"))
}

#[test]
fn a_flag_wins_over_its_variable_the_variable_over_the_file_the_file_over_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "parlor.toml",
        "max-rooms = 11\nmax-connections = 22\nrooms-per-address = 33\n",
    );
    let printed = succeeds(
        server()
            .arg("--config")
            .arg(&file)
            .args(["--print-config", "--rooms-per-address", "66"])
            .env("PARLOR_MAX_CONNECTIONS", "44")
            .env("PARLOR_ROOMS_PER_ADDRESS", "55")
            .env("PARLOR_MAX_UPCOMING_EVENTS_PER_ACCOUNT", "7"),
    );
    let got = values(&printed);
    // The file over the default.
    assert_eq!(got["max-rooms"].as_integer(), Some(11), "{printed}");
    // The variable over the file, and over the default.
    assert_eq!(got["max-connections"].as_integer(), Some(44), "{printed}");
    assert_eq!(
        got["max-upcoming-events-per-account"].as_integer(),
        Some(7),
        "{printed}"
    );
    // The flag over the variable and the file.
    assert_eq!(got["rooms-per-address"].as_integer(), Some(66), "{printed}");
    // The default where nothing is given: printed, commented out.
    assert!(!got.contains_key("analysis-positions"), "{printed}");
    let default = parlor_server::limits::MAX_ANALYSIS_POSITIONS;
    assert!(
        printed.contains(&format!("\n# analysis-positions = {default}\n")),
        "{printed}"
    );
    // The variable for the file itself.
    let from_variable = succeeds(server().arg("--print-config").env("PARLOR_CONFIG", &file));
    assert_eq!(values(&from_variable)["max-rooms"].as_integer(), Some(11));
}

/// Runs the server with `args` and `--config` naming a file holding
/// `text`; it must refuse with status 2, without a panic; its stderr.
fn refused(text: &str, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "parlor.toml", text);
    let out: Output = server()
        .arg("--config")
        .arg(&file)
        .args(args)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{text}: {said}");
    assert!(!said.contains("panicked"), "{said}");
    assert!(out.stdout.is_empty(), "{text}");
    said
}

#[test]
fn an_unknown_key_a_bad_value_or_a_missing_file_is_refused_by_name() {
    let said = refused(
        "bind = \"127.0.0.1:0\"\nlease_ms = 3000\n",
        &["--print-config"],
    );
    assert!(
        said.contains("line 2: unknown key `lease_ms`") && said.contains("did you mean `lease-ms`"),
        "{said}"
    );
    let said = refused("\nmax-rooms = \"lots\"\n", &[]);
    assert!(said.contains("line 2: `max-rooms`"), "{said}");
    let said = refused("max-rooms = = 1\n", &[]);
    assert!(said.contains("line 1"), "{said}");
    // A rule between keys, from two layers.
    let said = refused("bus = \"redis://127.0.0.1:6379\"\n", &["--print-config"]);
    assert!(said.contains("needs `cluster`"), "{said}");

    let out = server()
        .args(["--config", "/nonexistent/parlor.toml"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("/nonexistent/parlor.toml"), "{said}");
}

#[test]
fn a_bad_variable_is_named_and_stops_no_command() {
    let out = server()
        .arg("--print-config")
        .env("PARLOR_MAX_ROOMS", "many")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("PARLOR_MAX_ROOMS"), "{said}");
    // The commands do not read the variables.
    let dir = tempfile::tempdir().unwrap();
    let out = server()
        .args(["backup", "--db"])
        .arg(dir.path().join("absent.db"))
        .arg("--to")
        .arg(dir.path().join("copy.db"))
        .env("PARLOR_MAX_ROOMS", "many")
        .env("PARLOR_BIND", "nowhere")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("absent.db"), "{said}");
    assert!(!said.contains("PARLOR_"), "{said}");
}

#[test]
fn passwords_never_appear_in_what_is_printed() {
    let out = server()
        .args([
            "--print-config",
            "--bus",
            "redis://:bus-secret@127.0.0.1:6379",
        ])
        .env(
            "PARLOR_CLUSTER",
            "postgres://parlor:pg-secret@127.0.0.1/parlor",
        )
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    for secret in ["bus-secret", "pg-secret"] {
        assert!(
            !printed.contains(secret) && !said.contains(secret),
            "{printed}{said}"
        );
    }
    let got = values(&printed);
    assert_eq!(
        got["cluster"].as_str(),
        Some("postgres://parlor:***@127.0.0.1/parlor")
    );
    assert_eq!(got["bus"].as_str(), Some("redis://:***@127.0.0.1:6379"));
    // Nor in --help, which shows other variables' values.
    let help = succeeds(
        server()
            .arg("--help")
            .env(
                "PARLOR_CLUSTER",
                "postgres://parlor:pg-secret@127.0.0.1/parlor",
            )
            .env("PARLOR_MAX_ROOMS", "12"),
    );
    assert!(!help.contains("pg-secret"), "{help}");
    assert!(help.contains("PARLOR_MAX_ROOMS=12"), "{help}");
}

#[test]
fn what_print_config_prints_reads_back_as_the_same_settings() {
    let dir = tempfile::tempdir().unwrap();
    let first = succeeds(
        server()
            .args([
                "--print-config",
                "--bind",
                "0.0.0.0:9000",
                "--behind-proxy",
                "10.0.0.0/8",
                "--no-ladder",
                "--sync",
                "full",
            ])
            .arg("--db")
            .arg(dir.path().join("games.db"))
            .env("PARLOR_ALLOW_ORIGIN", "https://a.example,https://b.example")
            .env("PARLOR_CONNECTS_PER_ADDRESS", "2.5"),
    );
    let file = write(dir.path(), "printed.toml", &first);
    let again = succeeds(server().arg("--config").arg(&file).arg("--print-config"));
    assert_eq!(again, first);
    let got = values(&first);
    assert_eq!(got["allow-origin"].as_array().map(Vec::len), Some(2));
    assert_eq!(got["connects-per-address"].as_float(), Some(2.5));
    assert_eq!(got["behind-proxy"][0].as_str(), Some("10.0.0.0/8"));
}

/// Kills the child when dropped, so that a failing test leaves no server.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn a_server_runs_from_a_configuration_file_and_a_variable() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("from-the-file.db");
    let port_file = dir.path().join("port");
    let file = write(
        dir.path(),
        "parlor.toml",
        &format!(
            "bind = \"127.0.0.1:0\"\ndb = {}\nmax-rooms = 5\n",
            toml::Value::String(db.display().to_string())
        ),
    );
    let mut child = Running(
        server()
            .arg("--config")
            .arg(&file)
            .env("PARLOR_PORT_FILE", &port_file)
            .env("RUST_LOG", "error")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let t0 = Instant::now();
    let bound: SocketAddr = loop {
        if let Ok(text) = std::fs::read_to_string(&port_file) {
            break text.trim().parse().unwrap();
        }
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!("the server exited at start-up: {status}");
        }
        assert!(
            t0.elapsed() < parlor_tests::PATIENCE,
            "the server did not start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // The file's address (port 0: the system picked one on loopback).
    assert!(bound.ip().is_loopback() && bound.port() != 0, "{bound}");
    let stdout = child.0.stdout.take().unwrap();
    let line = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("listening on"))
        .unwrap();
    assert_eq!(line, format!("parlor-server listening on ws://{bound}"));
    let health = request(bound, "GET", "/healthz", &[], None).await;
    assert_eq!(health.status, 200, "{health:?}");
    assert!(health.text.starts_with("ok"), "{health:?}");
    // The file's database.
    assert!(db.exists(), "{} was not created", db.display());
}
