//! Where the Postgres store lives and how its connections are opened: the
//! URL, the schema its tables are in, the writer's own connection and the
//! readers' pool.
//!
//! The schema is the first entry of a `search_path` set in the URL's
//! `options` (libpq's own way: `?options=-c%20search_path%3Dname`), else
//! [`DEFAULT_SCHEMA`]. Every connection is opened with that search path,
//! so the SQL names tables without a schema, and a database can hold
//! several stores side by side (each test run has its own).

use std::str::FromStr;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::{Client, Config, NoTls};

use super::super::{with_causes, StoreError};

/// Pooled connections serving the Postgres store's reads (the restore at
/// start-up, `get_log`); the writer has a connection of its own. Reads are
/// rare next to moves, and each connection is a server process on the
/// database's side: a few keep one long read from queueing the others.
pub(super) const PG_POOL_SIZE: usize = 4;

/// How long a read waits for a pooled connection before it fails with
/// `server/storage`: far longer than any read takes, so only a stuck or
/// unreachable database makes a read fail here.
pub(super) const PG_POOL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long opening a connection to Postgres may take. A database that is
/// down then refuses moves with `server/storage` within this instead of
/// holding them; on loopback a refused connection fails at once anyway.
pub(super) const PG_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The schema the store uses when the URL names none.
pub const DEFAULT_SCHEMA: &str = "parlor";

/// Longest schema name Postgres keeps (longer ones are cut, silently).
const MAX_SCHEMA_CHARS: usize = 63;

/// A database and the schema in it.
#[derive(Clone, Debug)]
pub(super) struct Target {
    /// Connection settings, search path included.
    pub config: Config,
    /// Where the tables are.
    pub schema: String,
}

impl Target {
    /// Reads `url` (`postgres://USER@HOST[:PORT]/DB[?options=...]`).
    pub(super) fn parse(url: &str) -> Result<Target, StoreError> {
        let mut config = Config::from_str(url)
            .map_err(|e| StoreError::Settings(format!("database URL: {}", with_causes(&e))))?;
        let options = config.get_options().unwrap_or_default().to_owned();
        let schema = match search_path(&options) {
            Some(s) => s.to_owned(),
            None => {
                config.options(format!("{options} -c search_path={DEFAULT_SCHEMA}").trim());
                DEFAULT_SCHEMA.to_owned()
            }
        };
        if !valid_schema(&schema) {
            return Err(StoreError::Settings(format!(
                "schema name {schema:?}: use lower-case letters, digits and _ (at most {MAX_SCHEMA_CHARS}), not starting with a digit"
            )));
        }
        if config.get_application_name().is_none() {
            config.application_name("parlor-server");
        }
        config.connect_timeout(PG_CONNECT_TIMEOUT);
        Ok(Target { config, schema })
    }

    /// A connection of its own (the writer's): its driver runs on a task
    /// that ends when the client is dropped.
    pub(super) async fn connect(&self) -> Result<Client, StoreError> {
        let connecting = self.config.connect(NoTls);
        let (client, connection) = tokio::time::timeout(PG_CONNECT_TIMEOUT, connecting)
            .await
            .map_err(|_| {
                StoreError::Unavailable(format!(
                    "no connection to the database within {PG_CONNECT_TIMEOUT:?}"
                ))
            })??;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "a database connection ended");
            }
        });
        Ok(client)
    }

    /// The readers' pool. Connections are opened when first needed.
    pub(super) fn pool(&self) -> Result<Pool, StoreError> {
        let manager = Manager::from_config(
            self.config.clone(),
            NoTls,
            ManagerConfig {
                // Checks a connection is open, without a round trip.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        Pool::builder(manager)
            .max_size(PG_POOL_SIZE)
            .wait_timeout(Some(PG_POOL_WAIT))
            .create_timeout(Some(PG_CONNECT_TIMEOUT))
            .recycle_timeout(Some(PG_CONNECT_TIMEOUT))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|e| StoreError::Settings(format!("cannot make a connection pool: {e}")))
    }
}

/// The first schema of a `search_path` set in `options` (`-c
/// search_path=a,b`, `-csearch_path=a` or `--search_path=a`).
fn search_path(options: &str) -> Option<&str> {
    let mut words = options.split_whitespace();
    while let Some(word) = words.next() {
        let setting = if word == "-c" {
            words.next()?
        } else if let Some(s) = word.strip_prefix("--").or_else(|| word.strip_prefix("-c")) {
            s
        } else {
            continue;
        };
        if let Some(path) = setting.strip_prefix("search_path=") {
            return path.split(',').next().map(str::trim);
        }
    }
    None
}

/// A name that needs no quoting in SQL and that Postgres keeps as written.
fn valid_schema(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= MAX_SCHEMA_CHARS
}

/// `url` with any password replaced, for the logs.
pub(crate) fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((userinfo, host)) = rest.split_once('@') else {
        return url.to_owned();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    // Test helpers fail the test by panicking.
    #![allow(clippy::panic)]

    use super::*;

    fn target(url: &str) -> Target {
        Target::parse(url).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_schema_comes_from_the_urls_search_path_or_is_the_default() {
        let t = target("postgres://me@127.0.0.1/db");
        assert_eq!(t.schema, DEFAULT_SCHEMA);
        assert_eq!(t.config.get_options(), Some("-c search_path=parlor"));
        let t = target("postgres://me@127.0.0.1/db?options=-c%20search_path%3Drun_7,public");
        assert_eq!(t.schema, "run_7");
        let t = target("postgres://me@127.0.0.1/db?options=-c%20statement_timeout%3D5s");
        assert_eq!(
            t.config.get_options(),
            Some("-c statement_timeout=5s -c search_path=parlor")
        );
        assert_eq!(
            target("postgres://me@h/db?options=--search_path%3Dx").schema,
            "x"
        );
        for bad in ["Upper", "1st", "semi;colon", "quo\"te", ""] {
            let url = format!("postgres://me@h/db?options=-c%20search_path%3D{bad}");
            assert!(Target::parse(&url).is_err(), "{bad:?} accepted");
        }
        assert!(Target::parse("mysql://nope").is_err());
    }

    #[test]
    fn passwords_are_not_logged() {
        assert_eq!(
            redacted("postgres://me:secret@h:5432/db"),
            "postgres://me:***@h:5432/db"
        );
        assert_eq!(redacted("postgres://me@h/db"), "postgres://me@h/db");
    }
}
