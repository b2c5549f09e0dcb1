//! `--print-config`: the effective settings as a configuration file that
//! `--config` reads back. Every key is there with its flag's help as a
//! comment; a value left at its default is commented out (so that the
//! file follows the defaults of the server reading it), and a password
//! in a URL is printed as `***`.

use super::redact::{redact, HIDDEN};
use super::Effective;

/// Width the help comments are wrapped to.
const WIDTH: usize = 76;

/// The file's opening comment.
const HEADER: &str = "\
# Parlor server configuration, read by `parlor-server --config FILE`
# (written by `parlor-server --print-config`). Each key is a flag's long
# name; the flag itself (--bind) and its environment variable
# (PARLOR_BIND) win over the file, and the file over the default.
# Commented-out keys are at their defaults; a password is printed as ***.
";

/// The effective settings as TOML.
pub fn render(effective: &Effective) -> String {
    let values = match toml::Table::try_from(&effective.options) {
        Ok(table) => table,
        // Only a path that is not UTF-8 fails, and the layers refused
        // those already.
        Err(e) => return format!("# cannot print the settings: {e}\n"),
    };
    let mut out = String::from(HEADER);
    for key in effective.keys() {
        out.push('\n');
        // Clap drops a one-sentence help's final stop; a comment keeps it.
        let mut help = key.help.clone();
        if !help.ends_with(['.', '?', '!', ':']) {
            help.push('.');
        }
        for line in wrap(&help) {
            out.push_str("# ");
            out.push_str(&line);
            out.push('\n');
        }
        let Some(value) = values.get(&key.name) else {
            out.push_str(&format!("# {} is not set\n", key.name));
            continue;
        };
        let mut shown = value.clone();
        let mut hid = false;
        if key.url {
            if let toml::Value::String(s) = value {
                let (redacted, any) = redact(s);
                shown = toml::Value::String(redacted);
                hid = any;
            }
        }
        if hid {
            out.push_str(&format!(
                "# The password is hidden ({HIDDEN}): write it here, or give it in {}.\n",
                key.env
            ));
        }
        let comment = if effective.source(&key.name).given() {
            ""
        } else {
            "# "
        };
        out.push_str(&format!("{comment}{} = {shown}\n", key.name));
    }
    out
}

/// `text`'s words in lines of at most [`WIDTH`] characters (a longer word
/// stands alone).
fn wrap(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

    use super::super::layers::tests::{with_file, without_file};
    use super::*;

    #[test]
    fn given_values_are_printed_and_defaults_commented_out() {
        let printed = render(&with_file(&["--max-rooms", "9"], "no-ladder = true\n").unwrap());
        assert!(printed.contains("\nmax-rooms = 9\n"), "{printed}");
        assert!(printed.contains("\nno-ladder = true\n"), "{printed}");
        assert!(
            printed.contains("\n# bind = \"127.0.0.1:7878\"\n"),
            "{printed}"
        );
        assert!(printed.contains("\n# cluster is not set\n"), "{printed}");
    }

    #[test]
    fn what_is_printed_reads_back_as_the_same_settings() {
        let first = with_file(
            &[
                "--bind",
                "0.0.0.0:9999",
                "--allow-origin",
                "https://a.example",
            ],
            "cluster = \"postgres://parlor@db/parlor\"\nlease-ms = 1234\n\
             behind-proxy = [\"10.0.0.0/8\"]\nconnects-per-address = 2.5\n",
        )
        .unwrap();
        let printed = render(&first);
        let again = with_file(&[], &printed).unwrap();
        assert_eq!(again.options, first.options);
        for key in first.keys() {
            assert_eq!(
                again.source(&key.name).given(),
                first.source(&key.name).given(),
                "{}",
                key.name
            );
        }
        assert_eq!(render(&again), printed);
    }

    #[test]
    fn passwords_are_printed_hidden() {
        let printed = render(
            &without_file(&[
                "--cluster",
                "postgres://parlor:hunter2@db/parlor",
                "--bus",
                "redis://:s3cret@127.0.0.1:6379",
            ])
            .unwrap(),
        );
        assert!(
            !printed.contains("hunter2") && !printed.contains("s3cret"),
            "{printed}"
        );
        assert!(
            printed.contains("\ncluster = \"postgres://parlor:***@db/parlor\"\n"),
            "{printed}"
        );
        assert!(printed.contains("give it in PARLOR_CLUSTER"), "{printed}");
        assert!(
            printed.contains("\nbus = \"redis://:***@127.0.0.1:6379\"\n"),
            "{printed}"
        );
    }

    #[test]
    fn paths_to_key_files_are_not_hidden() {
        let printed = render(
            &without_file(&[
                "--tls-cert",
                "/etc/parlor/cert.pem",
                "--tls-key",
                "/etc/parlor/key.pem",
            ])
            .unwrap(),
        );
        assert!(
            printed.contains("\ntls-key = \"/etc/parlor/key.pem\"\n"),
            "{printed}"
        );
    }

    #[test]
    fn help_comments_are_wrapped() {
        let printed = render(&without_file(&[]).unwrap());
        assert!(
            printed
                .lines()
                .all(|l| !l.starts_with('#') || l.len() <= WIDTH + 2),
            "{printed}"
        );
        assert_eq!(wrap("a b  c"), ["a b c"]);
    }

    /// The Debian package's `/etc/parlor/parlor.toml` is what
    /// `--print-config` prints with the package's database path.
    #[test]
    fn the_packaged_configuration_is_print_configs() {
        let packaged = include_str!("../../debian/parlor.toml");
        let printed = render(&without_file(&["--db", "/var/lib/parlor/parlor.db"]).unwrap());
        assert!(
            packaged == printed,
            "server/debian/parlor.toml is stale: regenerate it with \
             `target/debug/parlor-server --print-config --db /var/lib/parlor/parlor.db \
             > server/debian/parlor.toml` (no PARLOR_ variables set)"
        );
    }
}
