//! Configuration blocks. `toml`: loads through the server's configuration
//! loader (`parlor-server --config FILE --print-config`) and every key
//! reads back the value shown. Other programs' configuration is not ours
//! to run: the proxies' (`nginx`, `haproxy`, `caddy`) must point at the
//! server's default port, and an `ini` drop-in names only sections of the
//! packaged systemd unit. The `--print-config` helpers here also serve
//! the `parlor-server` commands of the shell blocks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{blocks, of};
use crate::docs::{read, root};
use crate::moderation::server_bin;

/// The port the server listens on by default, which the docs' proxy
/// configurations must point at.
const DEFAULT_PORT: &str = "7878";

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

/// `parlor-server --print-config ARGS` with `env`: what it printed, or why
/// it failed.
pub(super) fn print_config(args: &[String], env: &[(String, String)]) -> Result<String, String> {
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
pub(super) fn printed_value(printed: &str, key: &str) -> Option<toml::Value> {
    printed.lines().find_map(|l| {
        let l = l.strip_prefix("# ").unwrap_or(l);
        let rest = l.strip_prefix(key)?.trim_start().strip_prefix('=')?;
        let table: toml::Table = format!("v = {rest}").parse().ok()?;
        table.get("v").cloned()
    })
}

/// Whether `value`, as the command line gave it, is `printed`.
pub(super) fn same_value(given: &str, printed: &toml::Value) -> bool {
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
pub(super) fn shown_config_files(dir: &Path) -> BTreeMap<String, PathBuf> {
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
